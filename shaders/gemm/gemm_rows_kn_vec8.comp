#version 450
// Few rows (M <= ROWS, 4 or 1, A not transposed; 16-bit operands of type ELEM, float32 sums), B stored K x N,
// read in 16-byte words. An invocation owns eight adjacent columns; a workgroup owns COLS columns
// (COLS / 8 invocations across) and splits its range of k into 256 / (COLS / 8) interleaved slices,
// each chaining its terms in increasing k. A row of B starts at any element modulo 8, so each
// invocation reads the two aligned words its eight elements lie in and shifts them into place (the
// shift is the same for every column of a row). One invocation per column adds the slice sums in
// slice order. With split k (OG_GEMM_SPLIT), z is the range and its raw sums go to its plane.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"
#ifndef COLS
#define COLS 64u
#endif
#define GROUPS (COLS / 8u)
#define SLICES (256u / GROUPS)
#ifndef LOADS
#define LOADS 4u
#endif
// Rows of A and C the kernel takes (M <= ROWS): 1 for a vector, fewer registers.
#ifndef ROWS
#define ROWS 4u
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#include "gemm/operands.glsl"
#ifdef OG_WEBGPU
uvec4 load_b_word(uint q) {
  return uvec4(b_words[4u * q], b_words[4u * q + 1u], b_words[4u * q + 2u], b_words[4u * q + 3u]);
}
#else
layout(std430, binding = 1) restrict readonly buffer BufB8 { uvec4 b8[]; };
uvec4 load_b_word(uint q) { return b8[q]; }
#endif
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

shared float partial[SLICES][COLS];

// The eight elements from element s (0..7) of the 32 bytes lo, hi, as four words.
uvec4 from_element(uvec4 lo, uvec4 hi, uint s) {
  if ((s & 4u) != 0u) {
    lo = uvec4(lo.zw, hi.xy);
    hi = uvec4(hi.zw, 0u, 0u);
  }
  if ((s & 2u) != 0u) {
    lo = uvec4(lo.yzw, hi.x);
    hi = uvec4(hi.yzw, 0u);
  }
  if ((s & 1u) != 0u) lo = (lo >> 16) | (uvec4(lo.yzw, hi.x) << 16);
  return lo;
}

float element(uvec4 w, uint i) {
  const uint word = w[i / 2u];
#if ELEM == 1
  return unpackHalf2x16(word)[i % 2u];
#else
  return uintBitsToFloat(i % 2u == 0u ? word << 16 : word & 0xffff0000u);
#endif
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint g = tid % GROUPS, slice = tid / GROUPS;
  const uint col = gl_WorkGroupID.x * COLS + g * 8u, bz = gl_WorkGroupID.y, range = gl_WorkGroupID.z;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint k_begin = range * p.k_chunk, k_end = min(p.k, k_begin + p.k_chunk);
  // Whole 16-byte words below the end of B (the host binds at least that far; N >= 8, so one).
  const uint words = (p.offset_b + (p.batch - 1u) * p.stride_b + (p.k - 1u) * p.ldb + p.n) / 8u;
  const bool whole = col + 8u <= p.n;
  float acc[ROWS][8];
  [[unroll]] for (uint r = 0u; r < ROWS; ++r)
    [[unroll]] for (uint i = 0u; i < 8u; ++i) acc[r][i] = 0.0;

  if (col < p.n) {
    uint kk = k_begin + slice;
    // LOADS rows in flight (both words of each, clamped inside the binding), then their terms in
    // increasing k; the single rows after them the same way.
    while (kk < k_end) {
      uvec4 lo[LOADS], hi[LOADS];
      [[unroll]] for (uint u = 0u; u < LOADS; ++u) {
        const uint q = min((base_b + min(kk + u * SLICES, k_end - 1u) * p.ldb + col) / 8u, words - 1u);
        lo[u] = load_b_word(q);
        hi[u] = load_b_word(min(q + 1u, words - 1u));
      }
      [[unroll]] for (uint u = 0u; u < LOADS; ++u) {
        const uint row = kk + u * SLICES;
        if (row < k_end) {
          const uint f = base_b + row * p.ldb + col, s = f % 8u;
          // Both words lie inside B and hold all eight columns; else (the last row of B, the last
          // columns) the elements one by one.
          float x[8];
          if (whole && f / 8u + (s != 0u ? 1u : 0u) < words) {
            const uvec4 w = from_element(lo[u], hi[u], s);
            [[unroll]] for (uint i = 0u; i < 8u; ++i) x[i] = element(w, i);
          } else {
            [[unroll]] for (uint i = 0u; i < 8u; ++i) x[i] = col + i < p.n ? load_b(f + i) : 0.0;
          }
          [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
            if (r < p.m) {
              const float a = load_a(base_a + r * p.lda + row);
              [[unroll]] for (uint i = 0u; i < 8u; ++i) acc[r][i] = fma(a, x[i], acc[r][i]);
            }
          }
        }
      }
      kk += LOADS * SLICES;
    }
  }

  // Each row of C: the slice sums through workgroup memory, added in slice order.
  const bool to_scratch = (p.flags & OG_GEMM_SPLIT) != 0u;
  const uint out_col = gl_WorkGroupID.x * COLS + tid;
  [[unroll]] for (uint r = 0u; r < ROWS; ++r) {
    barrier();
    [[unroll]] for (uint i = 0u; i < 8u; ++i) partial[slice][g * 8u + i] = acc[r][i];
    barrier();
    if (r < p.m && tid < COLS && out_col < p.n) {
      float sum = partial[0][tid];
      for (uint i = 1u; i < SLICES; ++i) sum = sum + partial[i][tid];
      if (to_scratch) {
        c_data[((range * p.batch + bz) * p.m + r) * p.n + out_col] = sum;
      } else {
        const uint ci = p.offset_c + bz * p.stride_c + r * p.ldc + out_col;
        c_data[ci] = gemm_output(sum, ci, out_col);
      }
    }
  }
}
