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

// Float32 products on float16 hardware (gemm_f32split_*.comp): the per-line exponents and the split
// of one operand. A line is a row of op(A) or a column of op(B); element (line, k) of matrix b of
// the operand is at offset + b stride + line line_step + k k_step of its binding. Exponents are
// the largest biased float32 exponent of each line, at exp_offset + b lines + line of the exponent
// buffer (0: a line of zeros).
struct GemmSplitPush {
  OG_U32 lines;       // lines per matrix (M or N)
  OG_U32 k;
  OG_U32 k_pad;       // k rounded up to 8: the width of each part in the scratch
  OG_U32 lines_pad;   // lines rounded up to 8 (B: the scratch's row length)
  OG_U32 batch;       // matrices split (1 for an operand shared by the batch)
  OG_U32 offset;
  OG_U32 stride;
  OG_U32 line_step;
  OG_U32 k_step;
  OG_U32 k_chunk;     // exponent pass: terms of k per workgroup
  OG_U32 group_rows;  // exponent pass: z = batch x group_rows, the groups of lines folded in rows of x
  OG_U32 exp_offset;
  OG_U32 items;       // clear and split passes: invocations with work
};

// The split product's epilogue: C = alpha 2^-(e_i + f_j) D + beta C, bias, unary function, D the
// sum of `planes` planes (added in order) of batch x m x n_pad floats each, plane_words apart; row i of matrix b has exponent word exp_a + b exp_stride_a + i, column
// j exp_b + b exp_stride_b + j (stride 0: one matrix shared by the batch).
struct GemmSplitEpiloguePush {
  OG_U32 m;
  OG_U32 n;
  OG_U32 n_pad;
  OG_U32 planes;
  OG_U32 plane_words;
  OG_U32 batch;
  OG_U32 ldc;
  OG_U32 offset_c;
  OG_U32 stride_c;
  OG_U32 offset_bias;
  OG_U32 flags;       // OG_GEMM_READ_C, OG_GEMM_BIAS, the unary function
  OG_U32 exp_a;
  OG_U32 exp_stride_a;
  OG_U32 exp_b;
  OG_U32 exp_stride_b;
  OG_F32 alpha;
  OG_F32 beta;
  OG_F32 act_alpha;
  OG_F32 act_beta;
};
#endif
