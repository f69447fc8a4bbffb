#version 450
// Reads an r32_uint texture through a usampler2D (texelFetch) into a buffer, row by row.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform usampler2D tex;
layout(std430, binding = 1) writeonly buffer Out { uint result[]; };
layout(push_constant) uniform Push { uint width; uint height; int lod; } pc;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  result[p.y * pc.width + p.x] = texelFetch(tex, ivec2(p), pc.lod).x;
}
