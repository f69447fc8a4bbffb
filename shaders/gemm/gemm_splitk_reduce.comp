#version 450
// Split k, second pass: adds the range planes of each element in range order, then alpha, beta,
// the bias and the unary function. One invocation per element of C, linear grid; with VEC4 (N a
// multiple of 4) one invocation per four elements of a row, each plane read as a vec4, the same
// sums element by element.
#extension GL_GOOGLE_include_directive : require
#include "gemm/gemm_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#ifdef VEC4
layout(std430, binding = 0) readonly buffer BufScratch { vec4 planes[]; };
#else
layout(std430, binding = 0) readonly buffer BufScratch { float planes[]; };
#endif
layout(std430, binding = 1) buffer BufC { float c_data[]; };
layout(std430, binding = 2) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

void main() {
#ifdef VEC4
  const uint e4 = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint plane4 = p.m * p.n * p.batch / 4u;
  if (e4 >= plane4) return;
  vec4 sum = planes[e4];
  for (uint s = 1u; s < p.splits; ++s) sum = sum + planes[s * plane4 + e4];
  const uint e = 4u * e4;
  const uint col = e % p.n, row = (e / p.n) % p.m, bz = e / (p.n * p.m);
  const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
  for (uint i = 0u; i < 4u; ++i) c_data[ci + i] = gemm_output(sum[i], ci + i, col + i);
#else
  const uint e = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint plane = p.m * p.n * p.batch;
  if (e >= plane) return;
  float sum = planes[e];
  for (uint s = 1u; s < p.splits; ++s) sum = sum + planes[s * plane + e];
  const uint col = e % p.n, row = (e / p.n) % p.m, bz = e / (p.n * p.m);
  const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
  c_data[ci] = gemm_output(sum, ci, col);
#endif
}
