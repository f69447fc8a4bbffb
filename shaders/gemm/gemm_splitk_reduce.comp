#version 450
// Split k, second pass: adds the range planes of each element in range order, then alpha, beta,
// the bias and the unary function. One invocation per element of C, linear grid.
#extension GL_GOOGLE_include_directive : require
#include "gemm/gemm_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { GemmPush p; };
layout(std430, binding = 0) readonly buffer BufScratch { float planes[]; };
layout(std430, binding = 1) buffer BufC { float c_data[]; };
layout(std430, binding = 2) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

void main() {
  const uint e = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint plane = p.m * p.n * p.batch;
  if (e >= plane) return;
  float sum = planes[e];
  for (uint s = 1u; s < p.splits; ++s) sum = sum + planes[s * plane + e];
  const uint col = e % p.n, row = (e / p.n) % p.m, bz = e / (p.n * p.m);
  const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
  c_data[ci] = gemm_output(sum, ci, col);
}
