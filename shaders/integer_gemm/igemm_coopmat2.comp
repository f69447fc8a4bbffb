#version 450
// 8-bit products on workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2): int8 x int8
// -> int32. The workgroup owns one BM x BK matrix of A, one BK x BN matrix of B and the BM x BN
// accumulator, loaded straight from the buffers through tensor layouts (a transposed operand
// through a transposing view), as the float16 GEMM does (shaders/gemm/gemm_coopmat2_f16.comp).
// Whole tiles with K a multiple of BK and 16-byte aligned rows load without bounds checks.
//
// Unsigned operands (A_UNSIGNED, B_UNSIGNED) are loaded as bytes and shifted by 128 (the byte XOR
// 0x80) as matrices; outside the operand the clamp value 0x80 becomes 0 after the shift. The zero
// points apply after the loop (EPILOGUE) from the records of the sums pass (igemm_sums.comp): per
// row of op(A) (z, sum of the shifted row), per column of op(B) (w, sum of the shifted column - K w),
// so sum (s - z)(t - w) = sum st - w sum s - z (sum t - K w), exact modulo 2^32. The epilogue also
// adds the int32 bias and, in the float form, converts, scales and adds the float bias (two separate
// roundings). Without EPILOGUE (int8 x int8, no zero points, no bias) the accumulator is stored as
// it is.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_EXT_shader_8bit_storage : require
#include "integer_gemm/igemm_push.h"

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
#define UNROLL 4u
#endif
#ifndef EPILOGUE
#define EPILOGUE 1
#endif
#ifndef A_UNSIGNED
#define A_UNSIGNED 0
#endif
#ifndef B_UNSIGNED
#define B_UNSIGNED 0
#endif

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { IntegerGemmPush p; };
layout(std430, binding = 0) readonly buffer BufA { int8_t a_data[]; };
layout(std430, binding = 1) readonly buffer BufB { int8_t b_data[]; };
layout(std430, binding = 2) buffer BufC { int c_data[]; };
#if EPILOGUE
layout(std430, binding = 3) readonly buffer BufSums { ivec2 sums[]; };
layout(std430, binding = 5) readonly buffer BufScale { float scale_data[]; };
layout(std430, binding = 6) readonly buffer BufIntBias { int int_bias_data[]; };
layout(std430, binding = 7) readonly buffer BufBias { float bias_data[]; };
#endif

#define ACC coopmat<int, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<int8_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<int8_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>
#define CLAMPED_LAYOUT tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV>

int8_t shift_a(const in uint32_t r, const in uint32_t c, const in int8_t x) { return x ^ int8_t(-128); }
int8_t shift_b(const in uint32_t r, const in uint32_t c, const in int8_t x) { return x ^ int8_t(-128); }

#if EPILOGUE
// One element of C (r, c within the tile): the zero-point terms, the int32 bias, and in the float
// form the scale and float bias; returns the 32-bit pattern stored.
int finish(const in uint32_t r, const in uint32_t c, const in int s, const in uint row0, const in uint col0,
           const in uint sums_base) {
  const uint row = row0 + r, col = col0 + c;
  if (row >= p.m || col >= p.n) return 0;  // dropped by the store
  int v = s;
  if ((p.flags & OG_IG_SUMS) != 0u) {
    const ivec2 rs = sums[sums_base + row], cs = sums[sums_base + p.m + col];
    v = v - cs.x * rs.y - rs.x * cs.y;
  }
  if ((p.flags & OG_IG_INT_BIAS) != 0u) v += int_bias_data[p.int_bias_offset + col];
  if ((p.flags & OG_IG_OUT_FLOAT) == 0u) return v;
  float sc = p.scale;
  if ((p.flags & OG_IG_SCALE_BUFFER) != 0u)
    sc = scale_data[p.scale_offset + ((p.flags & OG_IG_SCALE_PER_COL) != 0u ? col : 0u)];
  precise float f = float(v) * sc;
  if ((p.flags & OG_IG_FLOAT_BIAS) != 0u) f = f + bias_data[p.bias_offset + col];
  return floatBitsToInt(f);
}
#endif

#if A_UNSIGNED
#define SHIFT_A coopMatPerElementNV(ma, ma, shift_a);
#else
#define SHIFT_A
#endif
#if B_UNSIGNED
#define SHIFT_B coopMatPerElementNV(mb, mb, shift_b);
#else
#define SHIFT_B
#endif

#define LOAD_A_N(LA) coopMatLoadTensorNV(ma, a_data, base_a, sliceTensorLayoutNV(LA, row0, BM, k, BK))
#define LOAD_A_T(LA) coopMatLoadTensorNV(ma, a_data, base_a, sliceTensorLayoutNV(LA, k, BK, row0, BM), transposed)
#define LOAD_B_N(LB) coopMatLoadTensorNV(mb, b_data, base_b, sliceTensorLayoutNV(LB, k, BK, col0, BN))
#define LOAD_B_T(LB) coopMatLoadTensorNV(mb, b_data, base_b, sliceTensorLayoutNV(LB, col0, BN, k, BK), transposed)
#define K_STEP(LA, LB, TA, TB)        \
  {                                   \
    MAT_A ma;                         \
    MAT_B mb;                         \
    LOAD_A_##TA(LA);                  \
    LOAD_B_##TB(LB);                  \
    SHIFT_A                           \
    SHIFT_B                           \
    acc = coopMatMulAdd(ma, mb, acc); \
    k += BK;                          \
  }
#define K_LOOP(LA, LB, TA, TB)                                                                              \
  {                                                                                                         \
    uint k = 0u;                                                                                            \
    if (unrolled)                                                                                           \
      for (; k + BK * UNROLL <= p.k;) [[unroll]] for (uint u = 0u; u < UNROLL; ++u) K_STEP(LA, LB, TA, TB) \
    for (; k < p.k;) K_STEP(LA, LB, TA, TB)                                                                 \
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
  const uint bz = gl_WorkGroupID.z;
  const bool ta = (ORIENT & 2u) != 0u, tb = (ORIENT & 1u) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint c_base = p.offset_c + bz * p.stride_c;
  const tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

  ACC acc = ACC(0);
  // Whole tiles with 16-byte aligned rows: no bounds checks; the strides rounded down to a multiple
  // of 16 (a no-op here) tell the compiler that the rows are aligned.
  if (row0 + BM <= p.m && col0 + BN <= p.n && p.k % BK == 0u && (p.lda | p.ldb | base_a | base_b) % 16u == 0u) {
    const bool unrolled = true;
    tensorLayoutNV<2> la = createTensorLayoutNV(2);
    tensorLayoutNV<2> lb = createTensorLayoutNV(2);
    la = ta ? setTensorLayoutDimensionNV(la, p.k, p.m) : setTensorLayoutDimensionNV(la, p.m, p.k);
    lb = tb ? setTensorLayoutDimensionNV(lb, p.n, p.k) : setTensorLayoutDimensionNV(lb, p.k, p.n);
    la = setTensorLayoutStrideNV(la, p.lda & ~15u, 1);
    lb = setTensorLayoutStrideNV(lb, p.ldb & ~15u, 1);
    K_LOOPS(la, lb)
  } else {
    const bool unrolled = false;
    CLAMPED_LAYOUT la = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    CLAMPED_LAYOUT lb = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    la = ta ? setTensorLayoutDimensionNV(la, p.k, p.m) : setTensorLayoutDimensionNV(la, p.m, p.k);
    lb = tb ? setTensorLayoutDimensionNV(lb, p.n, p.k) : setTensorLayoutDimensionNV(lb, p.k, p.n);
    la = setTensorLayoutStrideNV(la, p.lda, 1);
    lb = setTensorLayoutStrideNV(lb, p.ldb, 1);
    // Outside an unsigned operand the shift must give 0.
#if A_UNSIGNED
    la = setTensorLayoutClampValueNV(la, 0x80u);
#endif
#if B_UNSIGNED
    lb = setTensorLayoutClampValueNV(lb, 0x80u);
#endif
    K_LOOPS(la, lb)
  }

  CLAMPED_LAYOUT lc = createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lc = setTensorLayoutDimensionNV(lc, p.m, p.n);
  lc = setTensorLayoutStrideNV(lc, p.ldc, 1);
#if EPILOGUE
  coopMatPerElementNV(acc, acc, finish, row0, col0, bz * p.sums_per_batch);
#endif
  coopMatStoreTensorNV(acc, c_data, c_base, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
}
