#version 450
// 8-bit products on cooperative matrices (VK_KHR_cooperative_matrix): int8 x int8 -> int32,
// 16 x 16 x 32 per subgroup step. A workgroup of 4 subgroups of 32 (pinned, full subgroups) owns
// 64 x 64 of C, each subgroup 32 x 32 as 2 x 2 accumulators; k runs in steps of 32 staged through
// workgroup memory as words of four signed bytes along k (A row-major, B column-major), so unsigned
// operands are staged as u - 128 and the zero points apply after the loop from the row and column
// byte sums, as in the packed-dot tile: sum (s - z)(t - w) = sum st - w sum s - z sum t + K z w.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 128) in;
layout(push_constant) uniform Push { IntegerGemmPush p; };
#include "integer_gemm/igemm_io.glsl"

const uint BM = 64u, BN = 64u, BK = 32u, KW = BK / 4u;
const uint LDW = KW + 4u;  // words per staged row (16 bytes of padding)
shared uint As[BM * LDW];  // [row][k words]
shared uint Bs[BN * LDW];  // [column][k words]
shared int stage[4u * 256u];
shared int sums_s[BM + BN];
shared int za_s[BM];
shared int zb_s[BN];

#define THREADS 128u
#define AS(r, kw) As[(r) * LDW + (kw)]
#define BS(c, kw) Bs[(c) * LDW + (kw)]
#include "integer_gemm/igemm_stage.glsl"

int byte_sum(uint w) {
  return bitfieldExtract(int(w), 0, 8) + bitfieldExtract(int(w), 8, 8) + bitfieldExtract(int(w), 16, 8) +
         bitfieldExtract(int(w), 24, 8);
}

void main() {
  const uint tid = gl_LocalInvocationIndex, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint wm = sg / 2u, wn = sg % 2u;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, bz = gl_WorkGroupID.z;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  const bool a_signed = (p.flags & OG_IG_A_SIGNED) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  const bool a_words_ok = (p.flags & OG_IG_A_WORDS) != 0u, b_words_ok = (p.flags & OG_IG_B_WORDS) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  for (uint e = tid; e < BM; e += 128u) za_s[e] = row0 + e < p.m ? zero_a(row0 + e) : 0;
  for (uint e = tid; e < BN; e += 128u) zb_s[e] = col0 + e < p.n ? zero_b(col0 + e) : 0;

  coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[2][2];
  [[unroll]] for (uint i = 0u; i < 2u; ++i)
    [[unroll]] for (uint j = 0u; j < 2u; ++j) acc[i][j] = coopmat<int, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0);
  int own_sum = 0;  // invocation t < 64: byte sum of row t; 64 <= t < 128: of column t - 64
  for (uint k0 = 0u; k0 < p.k; k0 += BK) {
    stage_step(tid, k0, row0, col0, base_a, base_b, trans_a, trans_b, a_words_ok, b_words_ok, a_signed, b_signed);
    barrier();
    coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA> a[2];
    coopmat<int8_t, gl_ScopeSubgroup, 32, 16, gl_MatrixUseB> b[2];
    [[unroll]] for (uint i = 0u; i < 2u; ++i)
      coopMatLoad(a[i], As, (wm * 32u + i * 16u) * LDW, LDW, gl_CooperativeMatrixLayoutRowMajor);
    [[unroll]] for (uint j = 0u; j < 2u; ++j)
      coopMatLoad(b[j], Bs, (wn * 32u + j * 16u) * LDW, LDW, gl_CooperativeMatrixLayoutColumnMajor);
    [[unroll]] for (uint i = 0u; i < 2u; ++i)
      [[unroll]] for (uint j = 0u; j < 2u; ++j) acc[i][j] = coopMatMulAdd(a[i], b[j], acc[i][j]);
    if (tid < BM) {
      [[unroll]] for (uint kw = 0u; kw < KW; ++kw) own_sum += byte_sum(As[tid * LDW + kw]);
    } else {
      [[unroll]] for (uint kw = 0u; kw < KW; ++kw) own_sum += byte_sum(Bs[(tid - BM) * LDW + kw]);
    }
    barrier();
  }
  sums_s[tid] = own_sum;
  barrier();
  const int a_shift = a_signed ? 0 : 128, b_shift = b_signed ? 0 : 128;
  [[unroll]] for (uint i = 0u; i < 2u; ++i)
    [[unroll]] for (uint j = 0u; j < 2u; ++j) {
      coopMatStore(acc[i][j], stage, sg * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
      subgroupBarrier();
      for (uint e = lane; e < 256u; e += 32u) {
        const uint r = wm * 32u + i * 16u + e / 16u, c = wn * 32u + j * 16u + e % 16u;
        if (row0 + r < p.m && col0 + c < p.n) {
          const int z = za_s[r] - a_shift, w = zb_s[c] - b_shift;
          const int sum = stage[sg * 256u + e] - w * sums_s[r] - z * sums_s[BM + c] + int(p.k) * z * w;
          store_output(bz, row0 + r, col0 + c, sum);
        }
      }
      subgroupBarrier();
    }
}
