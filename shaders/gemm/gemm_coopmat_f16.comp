#version 450
// Float16 GEMM on cooperative matrices (VK_KHR_cooperative_matrix), float32 accumulation, fast
// mode. 128 x 128 of C per workgroup of 8 subgroups of 32 (pinned, full subgroups); subgroup s owns
// rows 64 (s / 4) .. + 64 and columns 32 (s % 4) .. + 32 as 4 x 2 accumulators of 16 x 16. k runs in
// steps of 32 through double-buffered workgroup memory, the next step's operands loading into
// registers while the current one multiplies. Operands are read eight halves at a time along their
// contiguous dimension (the host takes this kernel only when those reads are whole). Each element
// is one chain over k (the hardware sums each 16-term step). The epilogue passes every 16 x 16
// accumulator through a per-subgroup staging tile, so alpha, beta, bias, activation and the edges
// are plain code.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "gemm/gemm_push.h"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { GemmPush p; };
layout(std430, binding = 0) readonly buffer BufA { uvec4 a8[]; };
layout(std430, binding = 1) readonly buffer BufB { uvec4 b8[]; };
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

#define BK 32u
#define LD_K 40u    // row length of a [128][BK] tile (k contiguous), padded
#define LD_MN 136u  // row length of a [BK][128] tile (m or n contiguous), padded
#define TILE_HALVES 5120u

shared float16_t As[2][TILE_HALVES];
shared float16_t Bs[2][TILE_HALVES];
shared float staging[8][256];

uvec4 ra[2], rb[2];

void load_global(uint k0, uint row0, uint col0, uint base_a, uint base_b, bool ta, bool tb) {
  [[unroll]] for (uint l = 0u; l < 2u; ++l) {
    const uint idx = gl_LocalInvocationIndex + 256u * l;
    ra[l] = uvec4(0u);
    rb[l] = uvec4(0u);
    if (!ta) {  // A is M x K: eight k of one row
      const uint r = row0 + idx / 4u, k = k0 + (idx % 4u) * 8u;
      if (r < p.m && k < p.k) ra[l] = a8[(base_a + r * p.lda + k) / 8u];
    } else {    // A is K x M: eight rows of one k
      const uint k = k0 + idx / 16u, r = row0 + (idx % 16u) * 8u;
      if (r < p.m && k < p.k) ra[l] = a8[(base_a + k * p.lda + r) / 8u];
    }
    if (!tb) {  // B is K x N: eight columns of one k
      const uint k = k0 + idx / 16u, c = col0 + (idx % 16u) * 8u;
      if (c < p.n && k < p.k) rb[l] = b8[(base_b + k * p.ldb + c) / 8u];
    } else {    // B is N x K: eight k of one column
      const uint c = col0 + idx / 4u, k = k0 + (idx % 4u) * 8u;
      if (c < p.n && k < p.k) rb[l] = b8[(base_b + c * p.ldb + k) / 8u];
    }
  }
}

void put8(uint buf, bool is_a, uint at, uvec4 v) {
  [[unroll]] for (uint w = 0u; w < 4u; ++w) {
    const f16vec2 h = unpackFloat2x16(v[w]);
    if (is_a) {
      As[buf][at + 2u * w] = h.x;
      As[buf][at + 2u * w + 1u] = h.y;
    } else {
      Bs[buf][at + 2u * w] = h.x;
      Bs[buf][at + 2u * w + 1u] = h.y;
    }
  }
}

void store_shared(uint buf, bool ta, bool tb) {
  [[unroll]] for (uint l = 0u; l < 2u; ++l) {
    const uint idx = gl_LocalInvocationIndex + 256u * l;
    put8(buf, true, ta ? (idx / 16u) * LD_MN + (idx % 16u) * 8u : (idx / 4u) * LD_K + (idx % 4u) * 8u, ra[l]);
    put8(buf, false, tb ? (idx / 4u) * LD_K + (idx % 4u) * 8u : (idx / 16u) * LD_MN + (idx % 16u) * 8u, rb[l]);
  }
}

void main() {
  const uint sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint row0 = gl_WorkGroupID.y * 128u, col0 = gl_WorkGroupID.x * 128u, bz = gl_WorkGroupID.z;
  const bool ta = (p.flags & OG_GEMM_TRANS_A) != 0u, tb = (p.flags & OG_GEMM_TRANS_B) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint sm = (sg / 4u) * 64u, sn = (sg % 4u) * 32u;  // the subgroup's corner in the tile
  const uint steps = (p.k + BK - 1u) / BK;

  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[8];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) acc[i] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);

  if (steps > 0u) {
    load_global(0u, row0, col0, base_a, base_b, ta, tb);
    store_shared(0u, ta, tb);
  }
  barrier();
  for (uint t = 0u; t < steps; ++t) {
    const uint buf = t % 2u;
    if (t + 1u < steps) load_global((t + 1u) * BK, row0, col0, base_a, base_b, ta, tb);
    [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
      coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a[4];
      coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b[2];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        const uint m = sm + 16u * i;
        if (ta) coopMatLoad(a[i], As[buf], kk * LD_MN + m, LD_MN, gl_CooperativeMatrixLayoutColumnMajor);
        else coopMatLoad(a[i], As[buf], m * LD_K + kk, LD_K, gl_CooperativeMatrixLayoutRowMajor);
      }
      [[unroll]] for (uint j = 0u; j < 2u; ++j) {
        const uint n = sn + 16u * j;
        if (tb) coopMatLoad(b[j], Bs[buf], n * LD_K + kk, LD_K, gl_CooperativeMatrixLayoutColumnMajor);
        else coopMatLoad(b[j], Bs[buf], kk * LD_MN + n, LD_MN, gl_CooperativeMatrixLayoutRowMajor);
      }
      [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < 2u; ++j) acc[i * 2u + j] = coopMatMulAdd(a[i], b[j], acc[i * 2u + j]);
    }
    if (t + 1u < steps) store_shared(1u - buf, ta, tb);
    barrier();
  }

  [[unroll]] for (uint f = 0u; f < 8u; ++f) {
    coopMatStore(acc[f], staging[sg], 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = lane; e < 256u; e += 32u) {
      const uint row = row0 + sm + 16u * (f / 2u) + e / 16u;
      const uint col = col0 + sn + 16u * (f % 2u) + e % 16u;
      if (row < p.m && col < p.n) {
        const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
        c_data[ci] = gemm_output(staging[sg][e], ci, col);
      }
    }
    subgroupBarrier();
  }
}
