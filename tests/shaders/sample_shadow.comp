#version 450
// Depth comparison: coords[i] = (u, v, reference, lod), out[i] = the comparison's result.
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2DShadow tex;
layout(std430, binding = 1) readonly buffer Coords { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 c = coords[i];
  result[i] = textureLod(tex, c.xyz, c.w);
}
