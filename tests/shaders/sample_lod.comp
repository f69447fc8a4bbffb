#version 450
// One textureLod per invocation: coords[i] = (u, v, lod, unused), out[i] = the filtered texel.
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D tex;
layout(std430, binding = 1) readonly buffer Coords { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 result[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 c = coords[i];
  result[i] = textureLod(tex, c.xy, c.z);
}
