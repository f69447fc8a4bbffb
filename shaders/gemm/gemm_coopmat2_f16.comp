#version 450
// Float16 or bfloat16 (ELEM 1 or 2) GEMM on workgroup-scope cooperative matrices
// (VK_NV_cooperative_matrix2), float32 accumulation, fast mode. The workgroup owns one BM x BK matrix of A, one BK x BN matrix of B and
// the BM x BN accumulator; the operands are loaded straight from the buffers through tensor
// layouts (a transposed operand through a transposing view), so the staging through workgroup
// memory and the split over subgroups are the driver's. Tiles that lie wholly inside C with K a
// multiple of BK load without bounds checks and take UNROLL k steps per loop iteration; the others
// clamp (zeros outside). With GROUP set, consecutive workgroups walk down GROUP tile rows before
// moving right, so the tiles in flight share more of A and B in the cache. The SPLITK variants
// sum one range of k per workgroup (z = batch x ranges; a whole number of BK steps but the last)
// and store the raw sums to the range's plane of the scratch buffer, which the second pass adds in
// range order; they are variants of their own so that the others keep a k loop from a constant 0
// and a single store, whose lowering on the H200 was about 3.5 times faster than with the range
// and the second store read from the push constants.
//
// Epilogue: alpha, beta * C and the bias are whole-matrix operations on the accumulator (C loaded as
// a matrix, the bias through a layout whose row stride is 0), so the accumulator stays in the
// driver's layout; the unary function, the one per-element operation, is compiled only into the
// ACTIVATION variant, because its mere presence costs the k loop about 7% on the H200. The store
// drops elements outside C. Every operation is `precise`, so the result equals the product
// followed by the separate operations.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#ifndef ELEM
#define ELEM 1  // element type of A and B: 1 float16, 2 bfloat16
#endif
#if ELEM == 2
#extension GL_EXT_bfloat16 : require
#define ELEM_T bfloat16_t
#else
#define ELEM_T float16_t
#endif
#include "gemm/gemm_push.h"

#ifndef BM
#define BM 128
#define BN 256
#define BK 64
#define THREADS 256
#endif
#ifndef ORIENT
#define ORIENT 0  // bit 1: A is stored K x M; bit 0: B is stored N x K
#endif
#ifndef UNROLL
#define UNROLL 8u
#endif
#ifndef ACTIVATION
#define ACTIVATION 0
#endif
#ifndef SPLITK
#define SPLITK 0
#endif

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { GemmPush p; };
layout(std430, binding = 0) readonly buffer BufA { ELEM_T a_data[]; };
layout(std430, binding = 1) readonly buffer BufB { ELEM_T b_data[]; };
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "common/activation.glsl"

#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<ELEM_T, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<ELEM_T, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>
#define CLAMPED_LAYOUT tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV>

#if ACTIVATION
float activate(const in uint r, const in uint c, const in float v) {
  return og_unary((p.flags >> OG_GEMM_ACT_SHIFT) & OG_GEMM_ACT_MASK, v, p.act_alpha, p.act_beta);
}
#endif

// The k loop for one pair of layouts (clamped or not) and the variant's operand orientations (TA,
// TB: N read as stored, T through the transposing view), so the loop body has no branch and the
// driver can pipeline its loads: A is M x K (or K x M through the view), B is K x N (or N x K).
#define LOAD_A_N(LA) coopMatLoadTensorNV(ma, a_data, base_a, sliceTensorLayoutNV(LA, row0, BM, k, BK))
#define LOAD_A_T(LA) coopMatLoadTensorNV(ma, a_data, base_a, sliceTensorLayoutNV(LA, k, BK, row0, BM), transposed)
#define LOAD_B_N(LB) coopMatLoadTensorNV(mb, b_data, base_b, sliceTensorLayoutNV(LB, k, BK, col0, BN))
#define LOAD_B_T(LB) coopMatLoadTensorNV(mb, b_data, base_b, sliceTensorLayoutNV(LB, col0, BN, k, BK), transposed)
#define K_STEP(LA, LB, TA, TB) \
  {                              \
    MAT_A ma;                    \
    MAT_B mb;                    \
    LOAD_A_##TA(LA);             \
    LOAD_B_##TB(LB);             \
    acc = coopMatMulAdd(ma, mb, acc); \
    k += BK;                     \
  }
#define K_LOOP(LA, LB, TA, TB)                                                      \
  {                                                                                 \
    uint k = k_begin;                                                               \
    if (unrolled)                                                                   \
      for (; k + BK * UNROLL <= k_end;) [[unroll]] for (uint u = 0u; u < UNROLL; ++u) K_STEP(LA, LB, TA, TB) \
    for (; k < k_end;) K_STEP(LA, LB, TA, TB)                                       \
  }
#if ORIENT == 3
#define K_LOOPS(LA, LB) K_LOOP(LA, LB, T, T)
#elif ORIENT == 2
#define K_LOOPS(LA, LB) K_LOOP(LA, LB, T, N)
#elif ORIENT == 1
#define K_LOOPS(LA, LB) K_LOOP(LA, LB, N, T)
#else
#define K_LOOPS(LA, LB) K_LOOP(LA, LB, N, N)
#endif

void main() {
#ifdef GROUP
  const uint gx = gl_NumWorkGroups.x, gy = gl_NumWorkGroups.y;
  const uint id = gl_WorkGroupID.y * gx + gl_WorkGroupID.x;
  const uint first = (id / (GROUP * gx)) * GROUP, rows = min(GROUP, gy - first), in_group = id % (GROUP * gx);
  const uint row0 = (first + in_group % rows) * BM, col0 = (in_group / rows) * BN;
#else
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
#endif
#if SPLITK
  const uint split = gl_WorkGroupID.z % p.splits, bz = gl_WorkGroupID.z / p.splits;
  // This workgroup's range of k: the host cuts ranges of a multiple of BK (the mask, a no-op, tells
  // the compiler so, and so that the loads stay aligned), so only the last one can end inside a
  // step, where the clamped layouts read zeros past K.
  const uint k_begin = (split * p.k_chunk) & ~(BK - 1u), k_end = min(p.k, k_begin + p.k_chunk);
#define RANGE_WHOLE ((k_end - k_begin) % BK == 0u)
#else
  const uint bz = gl_WorkGroupID.z;
#define k_begin 0u  // the same code as before split k existed
#define k_end p.k
#define RANGE_WHOLE (p.k % BK == 0u)
#endif
  // The orientation is a compile-time constant (one variant each): one k loop per layout.
  const bool ta = (ORIENT & 2u) != 0u, tb = (ORIENT & 1u) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint c_base = p.offset_c + bz * p.stride_c;
  const tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

  ACC acc = ACC(0.0);
  // Whole tiles with 16-byte aligned rows: no bounds checks, and the strides rounded down to a
  // multiple of 8 (a no-op here) tell the compiler that the rows are aligned.
  if (row0 + BM <= p.m && col0 + BN <= p.n && RANGE_WHOLE && (p.lda | p.ldb | base_a | base_b) % 8u == 0u) {
    const bool unrolled = true;
    tensorLayoutNV<2> la = createTensorLayoutNV(2);
    tensorLayoutNV<2> lb = createTensorLayoutNV(2);
    la = ta ? setTensorLayoutDimensionNV(la, p.k, p.m) : setTensorLayoutDimensionNV(la, p.m, p.k);
    lb = tb ? setTensorLayoutDimensionNV(lb, p.n, p.k) : setTensorLayoutDimensionNV(lb, p.k, p.n);
    la = setTensorLayoutStrideNV(la, p.lda & ~7u, 1);
    lb = setTensorLayoutStrideNV(lb, p.ldb & ~7u, 1);
    K_LOOPS(la, lb)
  } else {
    const bool unrolled = false;
    CLAMPED_LAYOUT la = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    CLAMPED_LAYOUT lb = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    la = ta ? setTensorLayoutDimensionNV(la, p.k, p.m) : setTensorLayoutDimensionNV(la, p.m, p.k);
    lb = tb ? setTensorLayoutDimensionNV(lb, p.n, p.k) : setTensorLayoutDimensionNV(lb, p.k, p.n);
    la = setTensorLayoutStrideNV(la, p.lda, 1);
    lb = setTensorLayoutStrideNV(lb, p.ldb, 1);
    K_LOOPS(la, lb)
  }

  CLAMPED_LAYOUT lc = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lc = setTensorLayoutDimensionNV(lc, p.m, p.n);
#if SPLITK
  // The raw sums to plane (split, bz), m x n packed; the second pass applies the epilogue.
  lc = setTensorLayoutStrideNV(lc, p.n, 1);
  coopMatStoreTensorNV(acc, c_data, (split * p.batch + bz) * p.m * p.n, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
#else
  lc = setTensorLayoutStrideNV(lc, p.ldc, 1);
  // alpha * sum + beta * C + bias, in that order, each rounded on its own (as epilogue.glsl).
  precise ACC v = acc * p.alpha;
  if ((p.flags & OG_GEMM_READ_C) != 0u) {
    ACC c;
    coopMatLoadTensorNV(c, c_data, c_base, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
    precise ACC scaled = c * p.beta;
    v = v + scaled;
  }
  if ((p.flags & OG_GEMM_BIAS) != 0u) {
    CLAMPED_LAYOUT lbias = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    lbias = setTensorLayoutDimensionNV(lbias, p.m, p.n);
    lbias = setTensorLayoutStrideNV(lbias, 0, 1);  // every row reads the same bias values
    ACC bias;
    coopMatLoadTensorNV(bias, bias_data, p.offset_bias, sliceTensorLayoutNV(lbias, row0, BM, col0, BN));
    v = v + bias;
  }
#if ACTIVATION
  coopMatPerElementNV(v, v, activate);
#endif
  coopMatStoreTensorNV(v, c_data, c_base, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
#endif
}
