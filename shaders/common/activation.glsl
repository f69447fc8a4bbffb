// Activations shared by every family that applies one (the GEMM epilogue, element-wise ops), so a
// fused activation gives the same bits as the separate operation. Codes are in activation.h.
#ifndef ONEGPU_ACTIVATION_GLSL
#define ONEGPU_ACTIVATION_GLSL
#include "common/layout.h"
#include "common/activation.h"

// e^x with its own range reduction and polynomial (relative error below 1e-7), because the
// accuracy of the driver's exp() is implementation-defined.
float og_exp(float x) {
  x = clamp(x, -87.0, 88.0);
  // n = round(x / ln 2) by adding 1.5 * 2^23: the sum's unit is 1, so its low bits hold n. This
  // takes neither floor() nor a float-to-int conversion, which run at a quarter of the rate of
  // arithmetic on most GPUs.
#ifdef OG_WEBGPU
  // WGSL has no `precise`, and compilers fold (t + c) - c to t where nothing forbids it (Mesa
  // does): the dialect rounds with roundEven instead.
  const float n = roundEven(x * 1.4426950408889634);
  const int e = int(n) + 127;
#else
  precise float t = fma(x, 1.4426950408889634, 12582912.0);
  precise float n = t - 12582912.0;
  const int e = floatBitsToInt(t) - 0x4b400000 + 127;  // biased exponent of 2^n
#endif
  // fma() under `precise` is one fused operation on every driver (a * b + c would be two roundings
  // and twice the instructions). n * ln 2 (high part) is exact.
  precise float r = fma(n, -0.693145751953125, x);
  r = fma(n, -1.428606765330187e-06, r);  // ln 2, low part
  precise float p = 1.0 / 5040.0;
  p = fma(p, r, 1.0 / 720.0);
  p = fma(p, r, 1.0 / 120.0);
  p = fma(p, r, 1.0 / 24.0);
  p = fma(p, r, 1.0 / 6.0);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  return p * intBitsToFloat(e << 23);
}

// erfc(x) for x >= 0 by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
float og_erfc_pos(float x) {
  precise float t = 1.0 / (1.0 + 0.3275911 * x);
  precise float y = 1.061405429;
  y = fma(y, t, -1.453152027);
  y = fma(y, t, 1.421413741);
  y = fma(y, t, -0.284496736);
  y = fma(y, t, 0.254829592);
  return y * t * og_exp(-x * x);
}

float og_erf(float x) {
  float e = 1.0 - og_erfc_pos(abs(x));
  return x < 0.0 ? -e : e;
}

// x * Phi(x); the negative tail uses erfc directly so it keeps its relative accuracy.
float og_gelu_erf(float x) {
  precise float z = abs(x) * 0.7071067811865476;
  precise float c = og_erfc_pos(z);
  return x >= 0.0 ? x * (1.0 - 0.5 * c) : x * 0.5 * c;
}

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), tanh written through og_exp.
float og_gelu_tanh(float x) {
  precise float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  precise float e = og_exp(-2.0 * abs(u));
  precise float t = (1.0 - e) / (1.0 + e);
  t = u < 0.0 ? -t : t;
  return 0.5 * x * (1.0 + t);
}

// e^x over the whole float range: NaN stays NaN, overflow gives infinity, underflow 0.
float og_exp_full(float x) {
  if (og_isnan(x)) return x;
  if (x > 88.72283935546875) return OG_FLOAT_BITS(0x7f800000u);
  if (x < -103.97208404541016) return 0.0;
  if (x < -87.0) return og_exp(x + 16.0 * 0.6931471805599453) * (1.0 / 65536.0);  // subnormal results
  return og_exp(x);
}

float og_tanh(float x) {
  if (og_isnan(x)) return x;
  const float a = abs(x);
  if (a < 0.0004) return x;  // tanh x = x - x^3/3: the cube is below half an ulp
  precise float e = og_exp_full(-2.0 * a);
  precise float t = (1.0 - e) / (1.0 + e);
  return x < 0.0 ? -t : t;
}

float og_sigmoid(float x) {
  if (og_isnan(x)) return x;
  return x >= 0.0 ? 1.0 / (1.0 + og_exp_full(-x)) : og_exp_full(x) / (1.0 + og_exp_full(x));
}

// Every unary function of the element-wise family, as CASE(code, value of x) entries; alpha and
// beta are the functions' parameters. og_unary() applies one to one value; a kernel that applies
// one operation to several values can expand the list with the loop inside each case, so the
// operation is chosen once and the values' computations interleave.
#define OG_UNARY_CASES(CASE, x, alpha, beta)                                        \
  CASE(OG_ACT_NONE, x)                                                              \
  CASE(OG_ACT_RELU, og_isnan(x) ? x : max(x, 0.0))                                     \
  CASE(OG_ACT_GELU_ERF, og_gelu_erf(x))                                             \
  CASE(OG_ACT_GELU_TANH, og_gelu_tanh(x))                                           \
  CASE(OG_UN_NEG, -x)                                                               \
  CASE(OG_UN_ABS, abs(x))                                                           \
  CASE(OG_UN_SQRT, sqrt(x))                                                         \
  CASE(OG_UN_RECIPROCAL, 1.0 / x)                                                   \
  CASE(OG_UN_EXP, og_exp_full(x))                                                   \
  CASE(OG_UN_LOG, log(x))                                                           \
  CASE(OG_UN_TANH, og_tanh(x))                                                      \
  CASE(OG_UN_ERF, og_isnan(x) ? x : og_erf(x))                                         \
  CASE(OG_UN_SIGMOID, og_sigmoid(x))                                                \
  CASE(OG_UN_SILU, x * og_sigmoid(x))                                               \
  CASE(OG_UN_HARD_SIGMOID, og_isnan(x) ? x : clamp(alpha * x + beta, 0.0, 1.0))        \
  CASE(OG_UN_HARD_SWISH, og_isnan(x) ? x : x * clamp(x / 6.0 + 0.5, 0.0, 1.0))         \
  CASE(OG_UN_CLIP, og_isnan(x) ? x : min(max(x, alpha), beta))                         \
  CASE(OG_UN_LEAKY_RELU, x >= 0.0 ? x : alpha * x)

float og_unary(uint op, float x, float alpha, float beta) {
#define OG_RETURN_CASE(code, value) \
  case code:                        \
    return value;
  switch (op) { OG_UNARY_CASES(OG_RETURN_CASE, x, alpha, beta) }
#undef OG_RETURN_CASE
  return x;
}

#endif
