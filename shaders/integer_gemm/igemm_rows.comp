#version 450
// Few rows (16 < M <= 64, a batch of decoder steps): the weights read once, at bandwidth. A
// workgroup of 256 owns ROWS rows and 4 CWORDS columns (CWORDS words of four columns) for the whole
// k range: invocation t takes column word t % CWORDS and every LANES-th group of four k from
// t / CWORDS (LANES = 256 / CWORDS), so a subgroup reads whole runs of B. Four k per word as signed
// bytes (unsigned ones shifted by 128), dotPacked4x8EXT for ROWS x 4 sums per invocation; A staged
// KC values of k at a time (whole words where its rows run along k and are word aligned). The zero
// points apply at the end from the row sums of A and the column sums of B, as in the packed-dot
// tile: sum (s - z)(t - w) = sum st - w sum s - z sum t + K z w, exact modulo 2^32. The partial sums
// of the lanes are added in workgroup memory, four rows at a time (28 KiB at most).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_integer_dot_product : require
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { IntegerGemmPush p; };
#include "integer_gemm/igemm_io.glsl"

#ifndef ROWS
#define ROWS 32u
#define CWORDS 8u
#endif
const uint WORDS = CWORDS, LANES = 256u / WORDS, KW = 2u * LANES, KC = 4u * KW;
shared uint As[ROWS][KW];               // [row][k word]: four k of a row as signed bytes
shared int red[LANES][WORDS * 4u][4];   // the lanes' partial sums of four rows
shared int a_sums[ROWS];
shared int b_sums[LANES][WORDS * 4u];

// Byte i of a word as the tile multiplies it (shifted when unsigned).
uint shifted(uint byte, bool is_signed) { return is_signed ? byte : byte ^ 0x80u; }

void main() {
  const uint tid = gl_LocalInvocationIndex, cw = tid % WORDS, lane = tid / WORDS;
  const uint col0 = gl_WorkGroupID.x * (WORDS * 4u), row0 = gl_WorkGroupID.y * ROWS, bz = gl_WorkGroupID.z;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  const bool a_signed = (p.flags & OG_IG_A_SIGNED) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  const bool b_aligned = (p.flags & OG_IG_B_WORDS) != 0u, a_aligned = (p.flags & OG_IG_A_WORDS) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint rows = min(p.m - row0, ROWS);
  const uint c0 = col0 + cw * 4u;  // this invocation's first column
  const bool cols_whole = c0 + 4u <= p.n;

  int acc[ROWS][4];
  [[unroll]] for (uint r = 0u; r < ROWS; ++r) [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[r][c] = 0;
  ivec4 bsum = ivec4(0);
  if (tid < ROWS) a_sums[tid] = 0;
  barrier();
  for (uint k0 = 0u; k0 < p.k; k0 += KC) {
    // A: ROWS x KC as words of four k (zero outside the product: a shifted 0 contributes nothing).
    for (uint e = tid; e < ROWS * KW; e += 256u) {
      const uint r = e / KW, kw = e % KW;
      uint w = 0u;
      const uint k = k0 + kw * 4u;
      if (r < rows && !trans_a && a_aligned && k + 4u <= p.k) {
        w = a_words[(base_a + (row0 + r) * p.lda + k) >> 2];
        if (!a_signed) w ^= 0x80808080u;
      } else if (r < rows) {
        [[unroll]] for (uint q = 0u; q < 4u; ++q) {
          if (k + q < p.k) {
            const uint i = base_a + (trans_a ? (k + q) * p.lda + row0 + r : (row0 + r) * p.lda + k + q);
            w |= shifted(raw_byte(a_words[i >> 2], i), a_signed) << (8u * q);
          }
        }
      }
      As[r][kw] = w;
      // The shifted row sums (integer additions: the same in any order).
      if (w != 0u) atomicAdd(a_sums[r], dotPacked4x8EXT(int(w), 0x01010101));
    }
    barrier();
    // Two words of k per invocation and chunk, unrolled so that both words' loads are in flight.
    [[unroll]] for (uint j = 0u; j < KW / LANES; ++j) {
      const uint kw = lane + j * LANES, k = k0 + kw * 4u;
      // B: four columns c0 .. c0 + 3, each as a word of its four k.
      uvec4 b = uvec4(0u);
      if (k + 4u <= p.k && cols_whole && b_aligned) {
        if (trans_b) {
          [[unroll]] for (uint c = 0u; c < 4u; ++c) b[c] = b_words[(base_b + (c0 + c) * p.ldb + k) >> 2];
        } else {
          uvec4 rw;  // rows k .. k + 3, four columns each
          [[unroll]] for (uint q = 0u; q < 4u; ++q) rw[q] = b_words[(base_b + (k + q) * p.ldb + c0) >> 2];
          [[unroll]] for (uint c = 0u; c < 4u; ++c)
            b[c] = bitfieldExtract(rw.x, int(8u * c), 8) | (bitfieldExtract(rw.y, int(8u * c), 8) << 8) |
                   (bitfieldExtract(rw.z, int(8u * c), 8) << 16) | (bitfieldExtract(rw.w, int(8u * c), 8) << 24);
        }
        if (!b_signed) b ^= uvec4(0x80808080u);
      } else {
        [[unroll]] for (uint c = 0u; c < 4u; ++c)
          [[unroll]] for (uint q = 0u; q < 4u; ++q)
            if (c0 + c < p.n && k + q < p.k) {
              const uint i = base_b + (trans_b ? (c0 + c) * p.ldb + k + q : (k + q) * p.ldb + c0 + c);
              b[c] |= shifted(raw_byte(b_words[i >> 2], i), b_signed) << (8u * q);
            }
      }
      [[unroll]] for (uint c = 0u; c < 4u; ++c) bsum[c] += dotPacked4x8EXT(int(b[c]), 0x01010101);
      [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        const int a = int(As[r][kw]);
        [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[r][c] += dotPacked4x8EXT(a, int(b[c]));
      }
    }
    barrier();
  }
  [[unroll]] for (uint c = 0u; c < 4u; ++c) b_sums[lane][cw * 4u + c] = bsum[c];
  const int a_shift = a_signed ? 0 : 128, b_shift = b_signed ? 0 : 128;
  // Four rows at a time: each of 16 CWORDS invocations adds one (row, column) over the lanes.
  const uint out_col = tid % (WORDS * 4u), out_row = tid / (WORDS * 4u);
  [[unroll]] for (uint r4 = 0u; r4 < ROWS; r4 += 4u) {
    barrier();
    [[unroll]] for (uint r = 0u; r < 4u; ++r)
      [[unroll]] for (uint c = 0u; c < 4u; ++c) red[lane][cw * 4u + c][r] = acc[r4 + r][c];
    barrier();
    const uint row = r4 + out_row, col = col0 + out_col;
    if (out_row < 4u && row < rows && col < p.n) {
      int sum = 0, bs = 0;
      for (uint l = 0u; l < LANES; ++l) {
        sum += red[l][out_col][out_row];
        bs += b_sums[l][out_col];
      }
      const int z = zero_a(row0 + row) - a_shift, w = zero_b(col) - b_shift;
      store_output(bz, row0 + row, col, sum - w * a_sums[row] - z * bs + int(p.k) * z * w);
    }
  }
}
