// Unary function codes, shared by C++ (onegpu::kernels::UnaryOp) and GLSL. Every one can be fused
// into a GEMM epilogue or a binary op.
#ifndef ONEGPU_ACTIVATION_H
#define ONEGPU_ACTIVATION_H
#define OG_ACT_NONE 0u
#define OG_ACT_RELU 1u
#define OG_ACT_GELU_ERF 2u
#define OG_ACT_GELU_TANH 3u
#define OG_UN_NEG 4u
#define OG_UN_ABS 5u
#define OG_UN_SQRT 6u
#define OG_UN_RECIPROCAL 7u
#define OG_UN_EXP 8u
#define OG_UN_LOG 9u
#define OG_UN_TANH 10u
#define OG_UN_ERF 11u
#define OG_UN_SIGMOID 12u
#define OG_UN_SILU 13u
#define OG_UN_HARD_SIGMOID 14u  // max(0, min(1, alpha x + beta))
#define OG_UN_HARD_SWISH 15u    // x max(0, min(1, x / 6 + 1 / 2))
#define OG_UN_CLIP 16u          // min(max(x, alpha), beta)
#define OG_UN_LEAKY_RELU 17u    // x >= 0 ? x : alpha x
#define OG_UN_COUNT 18u
#endif
