// The push-constant blocks of the 8-bit product kernels, shared by the host
// (src/kernels/integer_gemm) and GLSL. Offsets, strides and leading dimensions count elements from
// the start of each binding (bytes for A, B and an 8-bit Y; 32-bit words for C, zero points count
// bytes, scales and biases 32-bit elements).
#ifndef ONEGPU_IGEMM_PUSH_H
#define ONEGPU_IGEMM_PUSH_H
#include "common/layout.h"

#define OG_IG_A_SIGNED 1u
#define OG_IG_B_SIGNED 2u
#define OG_IG_TRANS_A 4u
#define OG_IG_TRANS_B 8u
// Zero point of A in bits 4..5 and of B in bits 6..7: a value, one element of a buffer, or one
// element per row of op(A) / per column of op(B).
#define OG_IG_ZA_SHIFT 4u
#define OG_IG_ZB_SHIFT 6u
#define OG_IG_ZP_MASK 3u
#define OG_IG_ZP_VALUE 0u
#define OG_IG_ZP_SCALAR 1u
#define OG_IG_ZP_PER_CHANNEL 2u
#define OG_IG_OUT_FLOAT 256u      // float(sum + int bias) * scale (+ float bias); else int32
#define OG_IG_SCALE_BUFFER 512u   // the scale is read from its buffer
#define OG_IG_SCALE_PER_COL 1024u // one scale per column
#define OG_IG_INT_BIAS 2048u
#define OG_IG_FLOAT_BIAS 4096u
#define OG_IG_A_WORDS 8192u       // A's k runs are word aligned: four k read as one word
#define OG_IG_B_WORDS 16384u
#define OG_IG_SUMS 32768u         // the workgroup-scope tile applies the zero points from the sums pass
#define OG_IG_PARTIAL 65536u      // the rows kernel writes its slice's sums to the partial buffer

struct IntegerGemmPush {
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
  OG_U32 stride_a;
  OG_U32 stride_b;
  OG_U32 stride_c;
  OG_U32 zero_a;         // OG_IG_ZP_VALUE: the value (two's complement)
  OG_U32 zero_b;
  OG_U32 zero_a_offset;  // buffer forms: element offset in the zero-point binding
  OG_U32 zero_b_offset;
  OG_F32 scale;          // without OG_IG_SCALE_BUFFER
  OG_U32 scale_offset;
  OG_U32 int_bias_offset;
  OG_U32 bias_offset;
  OG_U32 sums_per_batch;  // records of the sums pass per batch entry: m (rows of op(A)) + n (columns of op(B))
  OG_U32 splits;          // the rows kernel: slices of k (1: no partial buffer)
  OG_U32 split_k;         // the rows kernel: k values per slice, a multiple of 4
};

#define OG_IG_Y_SIGNED 1u
#define OG_IG_MUL_BUFFER 2u
#define OG_IG_MUL_PER_COL 4u

// The second pass of the requantized form: the int32 sums (dense, batch x m x n) to 8-bit Y.
struct RequantizePush {
  OG_U32 m;
  OG_U32 n;
  OG_U32 batch;
  OG_U32 ldy;
  OG_U32 offset_y;
  OG_U32 stride_y;
  OG_U32 flags;
  OG_U32 words_per_row;  // threads per row of Y: every word a row's bytes can touch
  OG_F32 multiplier;
  OG_U32 multiplier_offset;
  OG_U32 zero_point;     // two's complement
  OG_U32 threads;        // batch x m x words_per_row
};
#endif
