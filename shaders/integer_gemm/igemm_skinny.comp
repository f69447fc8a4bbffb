#version 450
// Few rows (M <= 16, decoder steps): COLS columns per workgroup of 256, k dealt round-robin to
// 256 / COLS groups, each invocation summing its column for all rows in int32 (rows past M skipped
// uniformly); A staged through workgroup memory KC values of k at a time with its zero points
// subtracted; the groups' partial sums added in workgroup memory. Integer sums: the same bits as
// every other variant.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(IntegerGemmPush, p);
#include "integer_gemm/igemm_io.glsl"

const uint ROWS = 16u, GROUPS = 256u / COLS, KC = 128u;
shared int As[ROWS][KC];
shared int red[GROUPS][ROWS][COLS];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tx = tid % COLS, g = tid / COLS;
  const uint col0 = gl_WorkGroupID.x * COLS, col = col0 + tx, bz = gl_WorkGroupID.y;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint rows = min(p.m, ROWS);
  const bool live = col < p.n;
  const int zb = live ? zero_b(col) : 0;
  int acc[ROWS];
  [[unroll]] for (uint i = 0u; i < ROWS; ++i) acc[i] = 0;
  for (uint k0 = 0u; k0 < p.k; k0 += KC) {
    for (uint e = tid; e < ROWS * KC; e += 256u) {
      const uint r = trans_a ? e % ROWS : e / KC, kk = trans_a ? e / ROWS : e % KC;
      const uint gk = k0 + kk;
      int v = 0;
      if (r < rows && gk < p.k) v = load_a(base_a + (trans_a ? gk * p.lda + r : r * p.lda + gk)) - zero_a(r);
      As[r][kk] = v;
    }
    barrier();
    if (live) {
      for (uint kk = g; kk < KC && k0 + kk < p.k; kk += GROUPS) {
        const uint gk = k0 + kk;
        const int b = load_b(base_b + (trans_b ? col * p.ldb + gk : gk * p.ldb + col)) - zb;
        [[unroll]] for (uint i = 0u; i < ROWS; ++i)
          if (i < rows) acc[i] += As[i][kk] * b;
      }
    }
    barrier();
  }
  [[unroll]] for (uint i = 0u; i < ROWS; ++i) red[g][i][tx] = acc[i];
  barrier();
  for (uint o = tid; o < ROWS * COLS; o += 256u) {
    const uint i = o / COLS, c = o % COLS;
    if (i >= rows || col0 + c >= p.n) continue;
    int sum = 0;
    [[unroll]] for (uint q = 0u; q < GROUPS; ++q) sum += red[q][i][c];
    store_output(bz, i, col0 + c, sum);
  }
}
