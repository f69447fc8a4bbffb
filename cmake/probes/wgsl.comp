#version 450
// The WebGPU dialect's smallest kernel: push constants as the dialect declares them, a NaN test.
#extension GL_GOOGLE_include_directive : require
#include "common/layout.h"
struct ProbePush { OG_U32 count; OG_U32 pad[3]; };
layout(local_size_x = 64) in;
OG_PUSH_BLOCK(ProbePush, p);
layout(std430, binding = 0) buffer Out { float data[]; };
void main() {
  if (gl_GlobalInvocationID.x < p.count && og_isnan(data[gl_GlobalInvocationID.x])) data[gl_GlobalInvocationID.x] = 0.0;
}
