#version 450
// Few rows (16 < M <= 64, a batch of decoder steps): the weights read once per block of rows, at
// bandwidth. A workgroup of 256 owns ROWS rows, COLS = 4 CWORDS columns and one slice of k
// (p.split_k values; the grid's x runs over column blocks, then slices, so a product with few column
// blocks still fills the device). Invocation t takes column word t % CWORDS (neighbours read
// neighbouring words of a B row) and every LANES-th run of 16 k of each staged chunk from
// t / CWORDS. Four k per word as signed bytes (unsigned ones shifted by 128; B's rows transposed
// bytewise where it is stored K x N), dotPacked4x8EXT for ROWS x 4 sums per invocation; A staged KCW
// words of four k per row at a time (whole words where its rows run along k and are word aligned)
// and read back four words at once. The operand sums the zero points need are skipped where they
// would be multiplied by 0.
//
// The zero points apply per slice from the slice's row sums of A and column sums of B, as in the
// packed-dot tile: sum (s - z)(t - w) = sum st - w sum s - z sum t + K z w, exact modulo 2^32, so the
// slices' results add up to the whole product's. One slice stores the result; several write their
// int32 results to the partial buffer (binding 2: [slice][batch][m][n]) and igemm_rows_finish.comp
// adds them and stores. Every sum is an integer one: the same in any order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/packed_dot.glsl"
#include "integer_gemm/igemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(IntegerGemmPush, p);
#include "integer_gemm/igemm_io.glsl"

#ifndef ROWS
#define ROWS 16u
#define CWORDS 16u
#endif
const uint WORDS = CWORDS, LANES = 256u / WORDS, COLS = 4u * WORDS;
const uint KCW = 4096u / ROWS;  // words of four k per staged chunk and row: 16 KiB of A
const uint PARTS = 256u / ROWS; // invocations adding one row's staged words
// A's chunk while the sums run (four words of a row read at once), then the lanes' partial sums of
// four rows.
shared uvec4 smem[1024];
shared int a_red[256];
shared int b_red[LANES][COLS];

// Byte i of a word as the kernel multiplies it (shifted when unsigned).
uint shifted(uint byte, bool is_signed) { return is_signed ? byte : byte ^ 0x80u; }

// Four columns c0 .. c0 + 3 of B at k .. k + 3 (zero at and past k_end, the slice's end), each as a
// word of its four k.
uvec4 load_b(uint k, uint k_end, uint base_b, uint c0, bool cols_whole) {
  const bool trans_b = (p.flags & OG_IG_TRANS_B) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  uvec4 b = uvec4(0u);
  if (k >= k_end) return b;
  if (k + 4u <= k_end && cols_whole && (p.flags & OG_IG_B_WORDS) != 0u) {
    if (trans_b) {
      [[unroll]] for (uint c = 0u; c < 4u; ++c) b[c] = b_words[(base_b + (c0 + c) * p.ldb + k) >> 2];
    } else {
      uvec4 rw;  // rows k .. k + 3, four columns each, transposed bytewise in two rounds
      [[unroll]] for (uint q = 0u; q < 4u; ++q) rw[q] = b_words[(base_b + (k + q) * p.ldb + c0) >> 2];
      const uint t0 = (rw.x & 0x00ff00ffu) | ((rw.y & 0x00ff00ffu) << 8);  // x0 y0 x2 y2
      const uint t1 = ((rw.x >> 8) & 0x00ff00ffu) | (rw.y & 0xff00ff00u);  // x1 y1 x3 y3
      const uint t2 = (rw.z & 0x00ff00ffu) | ((rw.w & 0x00ff00ffu) << 8);  // z0 w0 z2 w2
      const uint t3 = ((rw.z >> 8) & 0x00ff00ffu) | (rw.w & 0xff00ff00u);  // z1 w1 z3 w3
      b = uvec4((t0 & 0xffffu) | (t2 << 16), (t1 & 0xffffu) | (t3 << 16), (t0 >> 16) | (t2 & 0xffff0000u),
                (t1 >> 16) | (t3 & 0xffff0000u));
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
  return b;
}

void main() {
  const uint tid = gl_LocalInvocationIndex, cw = tid % WORDS, lane = tid / WORDS;
  const uint col_blocks = (p.n + COLS - 1u) / COLS;
  const uint slice = gl_WorkGroupID.x / col_blocks;
  const uint col0 = (gl_WorkGroupID.x % col_blocks) * COLS, row0 = gl_WorkGroupID.y * ROWS, bz = gl_WorkGroupID.z;
  const bool trans_a = (p.flags & OG_IG_TRANS_A) != 0u;
  const bool a_signed = (p.flags & OG_IG_A_SIGNED) != 0u, b_signed = (p.flags & OG_IG_B_SIGNED) != 0u;
  const bool a_aligned = (p.flags & OG_IG_A_WORDS) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint rows = min(p.m - row0, ROWS);
  const uint c0 = col0 + cw * 4u;  // this invocation's first column
  const bool cols_whole = c0 + 4u <= p.n;
  const uint k_begin = slice * p.split_k, k_end = min(p.k, k_begin + p.split_k);
  // The row sums of A matter where B's shifted zero point may not be 0, the column sums of B where A's may not.
  const uint za_mode = (p.flags >> OG_IG_ZA_SHIFT) & OG_IG_ZP_MASK, zb_mode = (p.flags >> OG_IG_ZB_SHIFT) & OG_IG_ZP_MASK;
  const bool need_a_sums = !b_signed || zb_mode != OG_IG_ZP_VALUE || p.zero_b != 0u;
  const bool need_b_sums = !a_signed || za_mode != OG_IG_ZP_VALUE || p.zero_a != 0u;

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
      smem[e >> 2][e & 3u] = w;
    }
    barrier();
    // The shifted row sums (integer additions: the same in any order), where B's zero point needs them.
    if (need_a_sums) {
      [[unroll]] for (uint j = 0u; j < KCW / PARTS; ++j) {
        const uint e = (tid / PARTS) * KCW + (tid % PARTS) + j * PARTS;
        a_part += og_dot4(int(smem[e >> 2][e & 3u]), 0x01010101);
      }
    }
    // Four consecutive words of k per step (one vector read of A per row).
    [[unroll]] for (uint j = 0u; j < KCW / (4u * LANES); ++j) {
      const uint quad = lane + j * LANES;
#ifndef OG_WEBGPU
      if (k0 + quad * 16u >= k_end) break;
#endif
      // (The WebGPU dialect leaves no branch here: past the slice's end the steps multiply zeros,
      // since load_b gives zeros there and A's staged words are zero; a branch out of the loop
      // carries its values through a variable WGSL takes as non-uniform before the next barrier.)
      uvec4 bq[4];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) bq[i] = load_b(k0 + (quad * 4u + i) * 4u, k_end, base_b, c0, cols_whole);
      if (need_b_sums)
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
          [[unroll]] for (uint c = 0u; c < 4u; ++c) bsum[c] += og_dot4(int(bq[i][c]), 0x01010101);
      [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
        const uvec4 a = smem[(r * KCW >> 2) + quad];
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
          [[unroll]] for (uint c = 0u; c < 4u; ++c) acc[r][c] += og_dot4(int(a[i]), int(bq[i][c]));
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
      smem[((lane * 4u + r) * COLS >> 2) + cw] = uvec4(acc[r4 + r][0], acc[r4 + r][1], acc[r4 + r][2], acc[r4 + r][3]);
    barrier();
    const uint row = r4 + out_row, col = col0 + out_col;
    if (out_row < 4u && row < rows && col < p.n) {
      int sum = 0, bs = 0, as = 0;
      for (uint l = 0u; l < LANES; ++l) {
        const uint e = (l * 4u + out_row) * COLS + out_col;
        sum += int(smem[e >> 2][e & 3u]);
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
