// alpha * sum + beta * C, then the bias and the unary function: the same expressions, uncontracted,
// in every GEMM kernel, so the fused result equals the product followed by the separate operations
// (the element-wise family applies the same og_unary).
#include "common/activation.glsl"
#include "common/rounded.glsl"

float gemm_output(float sum, uint c_index, uint col) {
  precise float v = og_mul_rounded(p.alpha, sum);
  if ((p.flags & OG_GEMM_READ_C) != 0u) v = v + og_mul_rounded(p.beta, c_data[c_index]);
  if ((p.flags & OG_GEMM_BIAS) != 0u) v = v + bias_data[p.offset_bias + col];
  return og_unary((p.flags >> OG_GEMM_ACT_SHIFT) & OG_GEMM_ACT_MASK, v, p.act_alpha, p.act_beta);
}
