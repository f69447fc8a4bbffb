#version 450
// The 8-bit product tile: BM x BN of C per workgroup of 256 (a TY x TX grid of invocations, each
// owning TM x TN outputs at rows ty + TY i, columns tx + TX j), k in steps of BK through workgroup
// memory. Portable (DOT 0): values staged as int32 with their zero points subtracted, products
// summed in int32. Packed dot (DOT 1): four k per 32-bit word as signed bytes (unsigned ones
// shifted by 128), dotPacked4x8EXT (og_dot4), and the zero points applied after the loop from row and column
// byte sums: sum (s - z)(t - w) = sum st - w sum s - z sum t + K z w, exact modulo 2^32.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if DOT
#include "common/packed_dot.glsl"
#endif
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(IntegerGemmPush, p);
#include "integer_gemm/igemm_io.glsl"

const uint BM = TY * TM, BN = TX * TN;
#if DOT
const uint KW = BK / 4u;
shared uint As[KW][BM + 1];
shared uint Bs[KW][BN + 1];
shared int sums_s[BM + BN];
#else
shared int As[BK][BM + 4];
shared int Bs[BK][BN + 4];
#endif
shared int za_s[BM];
shared int zb_s[BN];

#if DOT
#define THREADS 256u
#define AS(r, kw) As[kw][r]
#define BS(c, kw) Bs[kw][c]
#include "integer_gemm/igemm_stage.glsl"
#endif

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tx = tid % TX, ty = tid / TX;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, bz = gl_WorkGroupID.z;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  for (uint e = tid; e < BM; e += 256u) za_s[e] = row0 + e < p.m ? zero_a(row0 + e) : 0;
  for (uint e = tid; e < BN; e += 256u) zb_s[e] = col0 + e < p.n ? zero_b(col0 + e) : 0;
  barrier();

  int acc[TM * TN];
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] = 0;
#if DOT
  const bool a_signed = (p.flags & OG_IG_A_SIGNED) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  const bool a_words_ok = (p.flags & OG_IG_A_WORDS) != 0u, b_words_ok = (p.flags & OG_IG_B_WORDS) != 0u;
  int own_sum = 0;  // invocation t < BM: byte sum of row t; BM <= t < BM + BN: of column t - BM
  for (uint k0 = 0u; k0 < p.k; k0 += BK) {
    stage_step(tid, k0, row0, col0, base_a, base_b, trans_a, trans_b, a_words_ok, b_words_ok, a_signed, b_signed);
    barrier();
    [[unroll]] for (uint kw = 0u; kw < KW; ++kw) {
      int a[TM], b[TN];
      [[unroll]] for (uint i = 0u; i < TM; ++i) a[i] = int(As[kw][ty + TY * i]);
      [[unroll]] for (uint j = 0u; j < TN; ++j) b[j] = int(Bs[kw][tx + TX * j]);
      [[unroll]] for (uint i = 0u; i < TM; ++i)
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i * TN + j] += og_dot4(a[i], b[j]);
    }
    if (tid < BM) {
      [[unroll]] for (uint kw = 0u; kw < KW; ++kw) own_sum += og_dot4(int(As[kw][tid]), 0x01010101);
    } else if (tid < BM + BN) {
      [[unroll]] for (uint kw = 0u; kw < KW; ++kw) own_sum += og_dot4(int(Bs[kw][tid - BM]), 0x01010101);
    }
    barrier();
  }
  if (tid < BM + BN) sums_s[tid] = own_sum;
  barrier();
  const int a_shift = a_signed ? 0 : 128, b_shift = b_signed ? 0 : 128;
#else
  for (uint k0 = 0u; k0 < p.k; k0 += BK) {
    for (uint e = tid; e < BM * BK; e += 256u) {
      const uint r = trans_a ? e % BM : e / BK, kk = trans_a ? e / BM : e % BK;
      const uint gr = row0 + r, gk = k0 + kk;
      int v = 0;
      if (gr < p.m && gk < p.k) v = load_a(base_a + (trans_a ? gk * p.lda + gr : gr * p.lda + gk)) - za_s[r];
      As[kk][r] = v;
    }
    for (uint e = tid; e < BN * BK; e += 256u) {
      const uint c = trans_b ? e / BK : e % BN, kk = trans_b ? e % BK : e / BN;
      const uint gc = col0 + c, gk = k0 + kk;
      int w = 0;
      if (gc < p.n && gk < p.k) w = load_b(base_b + (trans_b ? gc * p.ldb + gk : gk * p.ldb + gc)) - zb_s[c];
      Bs[kk][c] = w;
    }
    barrier();
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      int a[TM], b[TN];
      [[unroll]] for (uint i = 0u; i < TM; ++i) a[i] = As[kk][ty + TY * i];
      [[unroll]] for (uint j = 0u; j < TN; ++j) b[j] = Bs[kk][tx + TX * j];
      [[unroll]] for (uint i = 0u; i < TM; ++i)
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
    }
    barrier();
  }
#endif

  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    const uint r = ty + TY * i;
    if (row0 + r >= p.m) continue;
    [[unroll]] for (uint j = 0u; j < TN; ++j) {
      const uint c = tx + TX * j;
      if (col0 + c >= p.n) continue;
      int sum = acc[i * TN + j];
#if DOT
      const int z = za_s[r] - a_shift, w = zb_s[c] - b_shift;
      sum = sum - w * sums_s[r] - z * sums_s[BM + c] + int(p.k) * z * w;
#endif
      store_output(bz, row0 + r, col0 + c, sum);
    }
  }
}
