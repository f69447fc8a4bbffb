#version 450
// The sums pass of the workgroup-scope tile (igemm_coopmat2.comp): for every batch entry one
// record per row i of op(A), (z_i, sum_k a'[i][k]), then one per column j of op(B),
// (w_j, sum_k b'[k][j] - K w_j), where a', b' are the values as the tile multiplies them (unsigned
// operands shifted by -128) and z, w the zero points shifted the same way. Workgroups of 256 take
// lines of one operand: where k runs along memory (A stored M x K, B stored N x K) 8 lines, 32
// invocations each reading along k (whole words when the lines are word aligned); where k runs
// across lines 32 lines, 8 groups of 32 invocations each taking every eighth k. Integer sums in
// workgroup memory: the same records whatever the order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(IntegerGemmPush, p);
#include "integer_gemm/igemm_io.glsl"

shared int part[256];

int byte_sum(uint w, bool is_signed) {
  if (is_signed)
    return bitfieldExtract(int(w), 0, 8) + bitfieldExtract(int(w), 8, 8) + bitfieldExtract(int(w), 16, 8) +
           bitfieldExtract(int(w), 24, 8);
  return int(bitfieldExtract(w, 0, 8) + bitfieldExtract(w, 8, 8) + bitfieldExtract(w, 16, 8) + bitfieldExtract(w, 24, 8));
}

// Raw value of element e of A or B.
int load_op(bool of_a, uint e) { return of_a ? load_a(e) : load_b(e); }
uint load_word(bool of_a, uint w) { return of_a ? a_words[w] : b_words[w]; }

void main() {
  const uint tid = gl_LocalInvocationIndex, bz = gl_WorkGroupID.z;
  const uint wg = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  // Rows of op(A) run along k unless A is stored K x M; columns of op(B) when B is stored N x K.
  const bool a_along = !trans_a, b_along = trans_b;
  const uint a_groups = (p.m + (a_along ? 7u : 31u)) / (a_along ? 8u : 32u);
  const uint b_groups = (p.n + (b_along ? 7u : 31u)) / (b_along ? 8u : 32u);
  if (wg >= a_groups + b_groups) return;  // uniform: the grid's last row is partly used
  const bool of_a = wg < a_groups;
  const bool along = of_a ? a_along : b_along;
  const bool is_signed = (p.flags & (of_a ? OG_IG_A_SIGNED : OG_IG_B_SIGNED)) != 0u;
  const bool words = (p.flags & (of_a ? OG_IG_A_WORDS : OG_IG_B_WORDS)) != 0u;
  const uint lines = of_a ? p.m : p.n;
  const uint ld = of_a ? p.lda : p.ldb;
  const uint base = of_a ? p.offset_a + bz * p.stride_a : p.offset_b + bz * p.stride_b;
  const uint first = (of_a ? wg : wg - a_groups) * (along ? 8u : 32u);

  int s = 0;
  if (along) {
    const uint line = first + tid / 32u, lane = tid % 32u;
    if (line < lines) {
      const uint start = base + line * ld;  // k = 0 of the line
      uint k = 0u;
      if (words) {
        const uint kw = p.k / 4u;
        for (uint w = lane; w < kw; w += 32u) s += byte_sum(load_word(of_a, start / 4u + w), is_signed);
        k = kw * 4u;
      }
      for (k += lane; k < p.k; k += 32u) s += load_op(of_a, start + k);
    }
  } else {
    const uint line = first + tid % 32u, g = tid / 32u;
    if (line < lines) {
      int s1 = 0, s2 = 0, s3 = 0;
      uint k = g;
      for (; k + 24u < p.k; k += 32u) {
        s += load_op(of_a, base + k * ld + line);
        s1 += load_op(of_a, base + (k + 8u) * ld + line);
        s2 += load_op(of_a, base + (k + 16u) * ld + line);
        s3 += load_op(of_a, base + (k + 24u) * ld + line);
      }
      for (; k < p.k; k += 8u) s += load_op(of_a, base + k * ld + line);
      s += s1 + s2 + s3;
    }
  }
  part[tid] = s;
  barrier();
  const uint per = along ? 8u : 32u;
  if (tid < per && first + tid < lines) {
    int total = 0;
    if (along) {
      [[unroll]] for (uint i = 0u; i < 32u; ++i) total += part[tid * 32u + i];
    } else {
      [[unroll]] for (uint i = 0u; i < 8u; ++i) total += part[i * 32u + tid];
    }
    const uint line = first + tid;
    const int shift = is_signed ? 0 : 128;
    total -= shift * int(p.k);  // the shifted values' sum
    const int z = (of_a ? zero_a(line) : zero_b(line)) - shift;
    const uint rec = bz * p.sums_per_batch + (of_a ? line : p.m + line);
    c_words[2u * rec] = uint(z);
    c_words[2u * rec + 1u] = uint(of_a ? total : total - int(p.k) * z);
  }
}
