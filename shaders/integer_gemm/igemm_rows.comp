#version 450
// Few rows (16 < M <= 64, a batch of decoder steps): the weights read once per block of rows, at
// bandwidth. A workgroup of 256 owns ROWS rows, COLS = 4 CWORDS columns and one slice of k
// (p.split_k values; the grid's x runs over column blocks, then slices, so a product with few column
// blocks still fills the device). Invocation t takes column word t % CWORDS (neighbours read
// neighbouring words of a B row) and every LANES-th word of four k of each staged chunk from
// t / CWORDS. Four k per word as signed bytes (unsigned ones shifted by 128), dotPacked4x8EXT for
// ROWS x 4 sums per invocation; A staged KCW words of four k per row at a time (whole words where
// its rows run along k and are word aligned).
//
// The zero points apply per slice from the slice's row sums of A and column sums of B, as in the
// packed-dot tile: sum (s - z)(t - w) = sum st - w sum s - z sum t + K z w, exact modulo 2^32, so the
// slices' results add up to the whole product's. One slice stores the result; several write their
// int32 results to the partial buffer (binding 2: [slice][batch][m][n]) and igemm_rows_finish.comp
// adds them and stores. Every sum is an integer one: the same in any order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_integer_dot_product : require
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { IntegerGemmPush p; };
#include "integer_gemm/igemm_io.glsl"

#ifndef ROWS
#define ROWS 16u
#define CWORDS 16u
#endif
const uint WORDS = CWORDS, LANES = 256u / WORDS, COLS = 4u * WORDS;
const uint KCW = 4096u / ROWS;  // words of four k per staged chunk and row: 16 KiB of A
const uint PARTS = 256u / ROWS; // invocations adding one row's staged words
// A's chunk while the sums run, then the lanes' partial sums of four rows.
shared uint smem[4096];
shared int a_red[256];
shared int b_red[LANES][COLS];

// Byte i of a word as the kernel multiplies it (shifted when unsigned).
uint shifted(uint byte, bool is_signed) { return is_signed ? byte : byte ^ 0x80u; }

void main() {
  const uint tid = gl_LocalInvocationIndex, cw = tid % WORDS, lane = tid / WORDS;
  const uint col_blocks = (p.n + COLS - 1u) / COLS;
  const uint slice = gl_WorkGroupID.x / col_blocks;
  const uint col0 = (gl_WorkGroupID.x % col_blocks) * COLS, row0 = gl_WorkGroupID.y * ROWS, bz = gl_WorkGroupID.z;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u, trans_b = (p.flags & OG_IG_TRANS_B) != 0u;
  const bool a_signed = (p.flags & OG_IG_A_SIGNED) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  const bool b_aligned = (p.flags & OG_IG_B_WORDS) != 0u, a_aligned = (p.flags & OG_IG_A_WORDS) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint rows = min(p.m - row0, ROWS);
  const uint c0 = col0 + cw * 4u;  // this invocation's first column
  const bool cols_whole = c0 + 4u <= p.n;
  const uint k_begin = slice * p.split_k, k_end = min(p.k, k_begin + p.split_k);

  int acc[ROWS][4];
  [[unroll]] for (uint r = 0u; r < ROWS; ++r) [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[r][c] = 0;
  ivec4 bsum = ivec4(0);
  int a_part = 0;  // row tid / PARTS: the shifted sum of every PARTS-th staged word
  for (uint k0 = k_begin; k0 < k_end; k0 += 4u * KCW) {
    // A: ROWS x 4 KCW as words of four k (zero outside the slice: a shifted 0 contributes nothing).
    for (uint e = tid; e < ROWS * KCW; e += 256u) {
      const uint r = e / KCW, kw = e % KCW;
      uint w = 0u;
      const uint k = k0 + kw * 4u;
      if (r < rows && !trans_a && a_aligned && k + 4u <= k_end) {
        w = a_words[(base_a + (row0 + r) * p.lda + k) >> 2];
        if (!a_signed) w ^= 0x80808080u;
      } else if (r < rows) {
        [[unroll]] for (uint q = 0u; q < 4u; ++q) {
          if (k + q < k_end) {
            const uint i = base_a + (trans_a ? (k + q) * p.lda + row0 + r : (row0 + r) * p.lda + k + q);
            w |= shifted(raw_byte(a_words[i >> 2], i), a_signed) << (8u * q);
          }
        }
      }
      smem[e] = w;
    }
    barrier();
    // The shifted row sums (integer additions: the same in any order).
    [[unroll]] for (uint j = 0u; j < KCW / PARTS; ++j)
      a_part += dotPacked4x8EXT(int(smem[(tid / PARTS) * KCW + (tid % PARTS) + j * PARTS]), 0x01010101);
    [[unroll]] for (uint j = 0u; j < KCW / LANES; ++j) {
      const uint kw = lane + j * LANES, k = k0 + kw * 4u;
      if (k >= k_end) break;
      // B: four columns c0 .. c0 + 3, each as a word of its four k.
      uvec4 b = uvec4(0u);
      if (k + 4u <= k_end && cols_whole && b_aligned) {
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
            if (c0 + c < p.n && k + q < k_end) {
              const uint i = base_b + (trans_b ? (c0 + c) * p.ldb + k + q : (k + q) * p.ldb + c0 + c);
              b[c] |= shifted(raw_byte(b_words[i >> 2], i), b_signed) << (8u * q);
            }
      }
      [[unroll]] for (uint c = 0u; c < 4u; ++c) bsum[c] += dotPacked4x8EXT(int(b[c]), 0x01010101);
      [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        const int a = int(smem[r * KCW + kw]);
        [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[r][c] += dotPacked4x8EXT(a, int(b[c]));
      }
    }
    barrier();
  }
  a_red[tid] = a_part;
  [[unroll]] for (uint c = 0u; c < 4u; ++c) b_red[lane][cw * 4u + c] = bsum[c];
  const int a_shift = a_signed ? 0 : 128, b_shift = b_signed ? 0 : 128;
  const int slice_k = int(k_end - min(k_begin, k_end));
  const bool partial = (p.flags & OG_IG_PARTIAL) != 0u;
  // Four rows at a time: each of 4 COLS invocations adds one (row, column) over the lanes.
  const uint out_col = tid % COLS, out_row = tid / COLS;
  [[unroll]] for (uint r4 = 0u; r4 < ROWS; r4 += 4u) {
    barrier();
    [[unroll]] for (uint r = 0u; r < 4u; ++r)
      [[unroll]] for (uint c = 0u; c < 4u; ++c) smem[(lane * 4u + r) * COLS + cw * 4u + c] = uint(acc[r4 + r][c]);
    barrier();
    const uint row = r4 + out_row, col = col0 + out_col;
    if (out_row < 4u && row < rows && col < p.n) {
      int sum = 0, bs = 0, as = 0;
      for (uint l = 0u; l < LANES; ++l) {
        sum += int(smem[(l * 4u + out_row) * COLS + out_col]);
        bs += b_red[l][out_col];
      }
      [[unroll]] for (uint j = 0u; j < PARTS; ++j) as += a_red[row * PARTS + j];
      const int z = zero_a(row0 + row) - a_shift, w = zero_b(col) - b_shift;
      const int v = sum - w * as - z * bs + slice_k * z * w;
      if (partial)
        c_words[((slice * p.batch + bz) * p.m + row0 + row) * p.n + col] = uint(v);
      else
        store_output(bz, row0 + row, col, v);
    }
  }
}
