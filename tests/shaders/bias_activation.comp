#version 450
// The separate bias add and activation the fused GEMM epilogue must equal bit for bit:
// c[i] = act(c[i] + bias[i % n]) over `count` elements.
#extension GL_GOOGLE_include_directive : require
#include "common/activation.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer C { float c_data[]; };
layout(std430, binding = 1) readonly buffer Bias { float bias_data[]; };
layout(push_constant) uniform Push { uint count; uint n; uint activation; uint has_bias; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  precise float v = c_data[i];
  if (pc.has_bias != 0u) v = v + bias_data[i % pc.n];
  c_data[i] = og_activate(pc.activation, v);
}
