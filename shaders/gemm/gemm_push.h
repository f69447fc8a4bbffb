// The push-constant block of every GEMM kernel, shared by the host (src/kernels/gemm) and GLSL.
// Offsets, strides and leading dimensions count elements from the start of each operand's
// binding; the host binds the range an operand uses.
#ifndef ONEGPU_GEMM_PUSH_H
#define ONEGPU_GEMM_PUSH_H
#include "common/layout.h"

#define OG_GEMM_TRANS_A 1u
#define OG_GEMM_TRANS_B 2u
#define OG_GEMM_READ_C 4u      // beta != 0
#define OG_GEMM_BIAS 8u
#define OG_GEMM_SPLIT 16u      // write raw sums to a scratch plane (split k)
#define OG_GEMM_ACT_SHIFT 8u   // the epilogue's unary function (common/activation.h) in bits 8..12
#define OG_GEMM_ACT_MASK 31u

struct GemmPush {
  OG_U32 m;
  OG_U32 n;
  OG_U32 k;
  OG_U32 batch;
  OG_U32 lda;
  OG_U32 ldb;
  OG_U32 ldc;
  OG_U32 flags;
  OG_U32 offset_a;
  OG_U32 offset_b;
  OG_U32 offset_c;
  OG_U32 offset_bias;
  OG_U32 stride_a;
  OG_U32 stride_b;
  OG_U32 stride_c;
  OG_U32 splits;   // k ranges (1 without split k)
  OG_U32 k_chunk;  // terms per range, a multiple of 32
  OG_F32 alpha;
  OG_F32 beta;
  OG_F32 act_alpha;  // the unary function's parameters
  OG_F32 act_beta;
};
#endif
