#version 450
// Exercises the reflection reader: two sets of bindings, read-only and writable, a uniform block,
// a push block with mixed members, shared memory and the 16-bit storage capability.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32, local_size_y = 2, local_size_z = 1) in;
layout(std430, binding = 0) readonly buffer In { uint16_t halves[]; } in_buf;
layout(std430, binding = 3) buffer Out { float values[]; } out_buf;
layout(std140, binding = 2) uniform Params { vec4 scale; } params;
layout(push_constant) uniform Push { uint n; float alpha; uvec2 stride; uint tail; } pc;
shared float tile[32][33];
void main() {
  uint i = gl_GlobalInvocationID.x;
  tile[gl_LocalInvocationID.y][gl_LocalInvocationID.x] = float(in_buf.halves[i]);
  barrier();
  out_buf.values[i] = tile[0][i % 32u] * pc.alpha * params.scale.x + float(pc.n + pc.stride.y + pc.tail);
}
