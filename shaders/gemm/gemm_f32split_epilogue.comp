#version 450
// Float32 products on float16 hardware, the last pass: the planes of the float16 products of the
// scaled parts added in order, scaled back by 2^-(e_i + f_j) (exact), then alpha, beta, the bias and
// the unary function as every GEMM kernel applies them. One invocation per element of C, linear
// grid.
#extension GL_GOOGLE_include_directive : require
#include "gemm/gemm_push.h"
#include "common/grid.glsl"
#include "gemm/f32split.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmSplitEpiloguePush, p);
layout(std430, binding = 0) readonly buffer BufD { float d_data[]; };
layout(std430, binding = 1) buffer BufC { float c_data[]; };
layout(std430, binding = 2) readonly buffer BufBias { float bias_data[]; };
layout(std430, binding = 3) readonly buffer BufExp { uint exps[]; };
#include "gemm/epilogue.glsl"

void main() {
  const uint e = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (e >= p.m * p.n * p.batch) return;
  const uint col = e % p.n, row = (e / p.n) % p.m, bz = e / (p.n * p.m);
  const int scale = og_split_exponent(exps[p.exp_a + bz * p.exp_stride_a + row]) +
                    og_split_exponent(exps[p.exp_b + bz * p.exp_stride_b + col]);
  const uint d = (bz * p.m + row) * p.n_pad + col;
  precise float total = d_data[d];
  for (uint i = 1u; i < p.planes; ++i) total = total + d_data[i * p.plane_words + d];
  const float sum = og_scale_pow2(total, -scale);
  const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
  c_data[ci] = gemm_output(sum, ci, col);
}
