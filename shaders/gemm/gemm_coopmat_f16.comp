#version 450
// Float16 or bfloat16 (ELEM 1 or 2) GEMM on cooperative matrices (VK_KHR_cooperative_matrix),
// float32 accumulation, fast mode. The operands move as 16-bit patterns, so only the fragments'
// element type depends on ELEM. A workgroup of WM x WN subgroups of 32 (pinned, full subgroups) computes a BM x BN tile of
// C: each subgroup owns FM x FN accumulators of 16 x 16 (BM = 16 WM FM, BN = 16 WN FN). k runs in
// steps of BK, staged through workgroup memory: with BUFFERS 1 (one staging buffer, two barriers
// per step) a step's operands are stored, the next step's loads are issued into registers, and the
// step multiplies while they travel; with BUFFERS 2 (double-buffered, one barrier per step) the next
// step is loaded during the multiply and stored into the other buffer after it. Operands are read
// and staged eight halves (one uvec4) at a time along their contiguous dimension (the host takes
// this kernel only when those reads are whole). Rows of the staged tiles are padded by eight halves,
// which keeps the fragment loads free of bank conflicts. Each element is one chain over k (the
// hardware sums each 16-term step). The epilogue passes every accumulator through a per-subgroup
// staging tile in the same workgroup memory, so alpha, beta, bias, activation and the edges are
// plain code.
// With split k (OG_GEMM_SPLIT), z = batch x ranges: each workgroup sums one range of k (whole BK
// steps but the last) and writes its raw sums to its plane of the scratch buffer.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
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
#define BM 128u
#define BN 128u
#define BK 32u
#define WM 2u
#define WN 2u
#endif
#ifndef BUFFERS
#define BUFFERS 1  // staging buffers in workgroup memory (1 or 2)
#endif
#ifndef ORIENT
#define ORIENT 0u   // bit 1: A is stored K x M; bit 0: B is stored N x K
#endif
#define FM (BM / (16u * WM))  // 16 x 16 accumulators per subgroup, down and across
#define FN (BN / (16u * WN))
#define THREADS (32u * WM * WN)
#define LDK4 ((BK + 8u) / 8u)   // uvec4 per row of a [rows][BK] tile (k contiguous)
#define LDM4 ((BM + 8u) / 8u)   // uvec4 per row of a [BK][BM] tile (m contiguous)
#define LDN4 ((BN + 8u) / 8u)   // uvec4 per row of a [BK][BN] tile (n contiguous)
#define MAX2(x, y) ((x) > (y) ? (x) : (y))
#define A_TILE MAX2(BM * LDK4, BK * LDM4)
#define B_TILE MAX2(BN * LDK4, BK * LDN4)
#define A_LOADS (BM * BK / 8u / THREADS)
#define B_LOADS (BN * BK / 8u / THREADS)
#define STAGING (WM * WN * 64u)  // a 16 x 16 float tile per subgroup
#define SMEM MAX2(BUFFERS * (A_TILE + B_TILE), STAGING)

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { GemmPush p; };
layout(std430, binding = 0) readonly buffer BufA { uvec4 a8[]; };
layout(std430, binding = 1) readonly buffer BufB { uvec4 b8[]; };
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

// The buffers of A, then those of B; after the k loop, the staging tiles.
shared uvec4 smem[SMEM];
uvec4 ra[A_LOADS], rb[B_LOADS];  // a step's operands on their way to workgroup memory
uint k_end;                       // the end of this workgroup's range of k

void load_global(uint k0, uint row0, uint col0, uint base_a, uint base_b, bool ta, bool tb) {
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    ra[l] = uvec4(0u);
    if (!ta) {  // A is M x K: eight k of one row
      const uint r = row0 + idx / (BK / 8u), k = k0 + (idx % (BK / 8u)) * 8u;
      if (r < p.m && k < k_end) ra[l] = a8[(base_a + r * p.lda + k) / 8u];
    } else {    // A is K x M: eight rows of one k
      const uint k = k0 + idx / (BM / 8u), r = row0 + (idx % (BM / 8u)) * 8u;
      if (r < p.m && k < k_end) ra[l] = a8[(base_a + k * p.lda + r) / 8u];
    }
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    rb[l] = uvec4(0u);
    if (!tb) {  // B is K x N: eight columns of one k
      const uint k = k0 + idx / (BN / 8u), c = col0 + (idx % (BN / 8u)) * 8u;
      if (c < p.n && k < k_end) rb[l] = b8[(base_b + k * p.ldb + c) / 8u];
    } else {    // B is N x K: eight k of one column
      const uint c = col0 + idx / (BK / 8u), k = k0 + (idx % (BK / 8u)) * 8u;
      if (c < p.n && k < k_end) rb[l] = b8[(base_b + c * p.ldb + k) / 8u];
    }
  }
}

void store_shared(uint buf, bool ta, bool tb) {
  const uint a_at = buf * A_TILE, b_at = BUFFERS * A_TILE + buf * B_TILE;
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    smem[a_at + (ta ? (idx / (BM / 8u)) * LDM4 + idx % (BM / 8u) : (idx / (BK / 8u)) * LDK4 + idx % (BK / 8u))] = ra[l];
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    smem[b_at + (tb ? (idx / (BK / 8u)) * LDK4 + idx % (BK / 8u) : (idx / (BN / 8u)) * LDN4 + idx % (BN / 8u))] = rb[l];
  }
}

// One k step from workgroup memory buffer `buf` into the subgroup's accumulators.
void multiply_step(uint buf, uint sm, uint sn, bool ta, bool tb,
                   inout coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FM * FN]) {
  const uint a_at = buf * A_TILE, b_at = BUFFERS * A_TILE + buf * B_TILE;
  [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
    coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a[FM];
    [[unroll]] for (uint i = 0u; i < FM; ++i) {
      const uint m = sm + 16u * i;
      if (ta) coopMatLoad(a[i], smem, a_at + kk * LDM4 + m / 8u, LDM4, gl_CooperativeMatrixLayoutColumnMajor);
      else coopMatLoad(a[i], smem, a_at + m * LDK4 + kk / 8u, LDK4, gl_CooperativeMatrixLayoutRowMajor);
    }
    coopmat<ELEM_T, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b[FN];
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      const uint n = sn + 16u * j;
      if (tb) coopMatLoad(b[j], smem, b_at + n * LDK4 + kk / 8u, LDK4, gl_CooperativeMatrixLayoutColumnMajor);
      else coopMatLoad(b[j], smem, b_at + kk * LDN4 + n / 8u, LDN4, gl_CooperativeMatrixLayoutRowMajor);
    }
    [[unroll]] for (uint i = 0u; i < FM; ++i)
      [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i * FN + j] = coopMatMulAdd(a[i], b[j], acc[i * FN + j]);
  }
}

void main() {
  const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  const uint split = gl_WorkGroupID.z % p.splits, bz = gl_WorkGroupID.z / p.splits;
  const uint k_begin = split * p.k_chunk;
  k_end = min(p.k, k_begin + p.k_chunk);
  // The orientation is a compile-time constant (one variant each): no branch on it in the k loop.
  const bool ta = (ORIENT & 2u) != 0u, tb = (ORIENT & 1u) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint sm = (sg / WN) * (16u * FM), sn = (sg % WN) * (16u * FN);  // the subgroup's corner
  const uint steps = (k_end - k_begin + BK - 1u) / BK;

  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FM * FN];
  [[unroll]] for (uint i = 0u; i < FM * FN; ++i)
    acc[i] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);

#if BUFFERS == 1
  if (steps > 0u) load_global(k_begin, row0, col0, base_a, base_b, ta, tb);
  for (uint t = 0u; t < steps; ++t) {
    barrier();  // the previous step's fragments are read
    store_shared(0u, ta, tb);
    barrier();
    if (t + 1u < steps) load_global(k_begin + (t + 1u) * BK, row0, col0, base_a, base_b, ta, tb);
    multiply_step(0u, sm, sn, ta, tb, acc);
  }
  barrier();
#else
  if (steps > 0u) {
    load_global(k_begin, row0, col0, base_a, base_b, ta, tb);
    store_shared(0u, ta, tb);
  }
  barrier();
  for (uint t = 0u; t < steps; ++t) {
    const uint buf = t % 2u;
    if (t + 1u < steps) load_global(k_begin + (t + 1u) * BK, row0, col0, base_a, base_b, ta, tb);
    multiply_step(buf, sm, sn, ta, tb, acc);
    if (t + 1u < steps) store_shared(1u - buf, ta, tb);
    barrier();
  }
#endif

  // The last step ended with a barrier: the tiles are free for staging.
  const uint stage = sg * 64u;
  const bool to_scratch = (p.flags & OG_GEMM_SPLIT) != 0u;
  [[unroll]] for (uint f = 0u; f < FM * FN; ++f) {
    coopMatStore(acc[f], smem, stage, 4u, gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = lane; e < 256u; e += 32u) {
      const uint row = row0 + sm + 16u * (f / FN) + e / 16u;
      const uint col = col0 + sn + 16u * (f % FN) + e % 16u;
      if (row < p.m && col < p.n) {
        const float sum = uintBitsToFloat(smem[stage + e / 4u][e % 4u]);
        if (to_scratch) {
          c_data[((split * p.batch + bz) * p.m + row) * p.n + col] = sum;
        } else {
          const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
          c_data[ci] = gemm_output(sum, ci, col);
        }
      }
    }
    subgroupBarrier();
  }
}
