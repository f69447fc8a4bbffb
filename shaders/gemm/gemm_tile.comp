#version 450
// The portable GEMM tile: 64 x 64 of C per workgroup of 256, k in steps of 16 staged through
// workgroup memory with bounds checks, a 4 x 4 register tile per invocation (rows ty + 16 i,
// columns tx + 16 j). Float32 sums in blocks: 16 products chain per step, two steps form a block,
// four blocks a group, groups join the total in increasing k. With split k (OG_GEMM_SPLIT),
// z = batch * splits and each range writes raw sums to its plane of the scratch buffer.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#include "gemm/operands.glsl"
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

shared float As[16][68];  // [k][row]
shared float Bs[16][68];  // [k][col]

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tx = tid % 16u, ty = tid / 16u;
  const uint row0 = gl_WorkGroupID.y * 64u, col0 = gl_WorkGroupID.x * 64u;
  const uint split = gl_WorkGroupID.z % p.splits, bz = gl_WorkGroupID.z / p.splits;
  const bool trans_a = (p.flags & OG_GEMM_TRANS_A) != 0u, trans_b = (p.flags & OG_GEMM_TRANS_B) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k, k_begin + p.k_chunk);
  const uint steps = k_end > k_begin ? (k_end - k_begin + 15u) / 16u : 0u;

  float blk[16], grp[16], total[16];
  [[unroll]] for (uint i = 0u; i < 16u; ++i) { blk[i] = 0.0; grp[i] = 0.0; total[i] = 0.0; }

  for (uint t = 0u; t < steps; ++t) {
    const uint k0 = k_begin + t * 16u;
    for (uint e = tid; e < 1024u; e += 256u) {
      uint r, kk;
      if (trans_a) { r = e % 64u; kk = e / 64u; } else { r = e / 16u; kk = e % 16u; }
      uint gr = row0 + r, gk = k0 + kk;
      float v = 0.0;
      if (gr < p.m && gk < k_end) v = load_a(base_a + (trans_a ? gk * p.lda + gr : gr * p.lda + gk));
      As[kk][r] = v;
      uint c;
      if (trans_b) { c = e / 16u; kk = e % 16u; } else { c = e % 64u; kk = e / 64u; }
      uint gc = col0 + c;
      gk = k0 + kk;
      float w = 0.0;
      if (gc < p.n && gk < k_end) w = load_b(base_b + (trans_b ? gc * p.ldb + gk : gk * p.ldb + gc));
      Bs[kk][c] = w;
    }
    barrier();
    float s[16];
    [[unroll]] for (uint i = 0u; i < 16u; ++i) s[i] = 0.0;
    [[unroll]] for (uint kk = 0u; kk < 16u; ++kk) {
      float a[4], b[4];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) a[i] = As[kk][ty + 16u * i];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) b[j] = Bs[kk][tx + 16u * j];
      [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j) s[i * 4u + j] = fma(a[i], b[j], s[i * 4u + j]);
    }
    barrier();
    const bool last = t + 1u == steps;
    [[unroll]] for (uint i = 0u; i < 16u; ++i) blk[i] = (t % 2u == 0u) ? s[i] : blk[i] + s[i];
    if (t % 2u == 1u || last) {
      const uint b_index = t / 2u;
      [[unroll]] for (uint i = 0u; i < 16u; ++i) grp[i] = (b_index % 4u == 0u) ? blk[i] : grp[i] + blk[i];
      if (b_index % 4u == 3u || last)
        [[unroll]] for (uint i = 0u; i < 16u; ++i) total[i] = total[i] + grp[i];
    }
  }

  const bool to_scratch = (p.flags & OG_GEMM_SPLIT) != 0u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint row = row0 + ty + 16u * i;
    if (row >= p.m) continue;
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const uint col = col0 + tx + 16u * j;
      if (col >= p.n) continue;
      if (to_scratch) {
        c_data[((split * p.batch + bz) * p.m + row) * p.n + col] = total[i * 4u + j];
      } else {
        const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
        c_data[ci] = gemm_output(total[i * 4u + j], ci, col);
      }
    }
  }
}
