#version 450
// Few rows (M <= 4, A not transposed), 16-bit operands (ELEM 1 float16, 2 bfloat16; float32 sums),
// B stored K x N with many columns: streams B once in whole, aligned 16-byte words whatever the
// alignment of its rows (a vocabulary of 51865 columns starts every row at another offset). An
// invocation owns eight consecutive columns: for each of its rows it reads the aligned word that
// holds the first of them and the next one, and takes the eight elements from the row's offset
// with selects and shifts (no branch, no workgroup memory). A workgroup owns COLS columns; its 256
// invocations split k into 256 / (COLS / 8) interleaved slices, each chaining its terms in
// increasing k, UNROLL rows in flight; one invocation per column adds the slice sums in slice
// order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"
#ifndef COLS
#define COLS 64u
#endif
#define CT (COLS / 8u)      // invocations across the columns, eight columns each (COLS / 8 divides 256)
#define SLICES (256u / CT)  // interleaved slices of k
#define UNROLL 4u           // rows of a slice in flight

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { GemmPush p; };
#include "gemm/operands.glsl"
layout(std430, binding = 1) readonly buffer BufB8 { uvec4 b8[]; };
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

shared float partial[SLICES][COLS];

// The 16-byte word q of B's binding; the binding may end inside the last one (it is bound in whole
// 32-bit words), which is then read a 32-bit word at a time, zeros past the end.
uvec4 load_chunk(uint q) {
  if (q < uint(b8.length())) return b8[q];
  uvec4 v = uvec4(0u);
  for (uint i = 0u; i < 4u; ++i)
    if (4u * q + i < uint(b_words.length())) v[i] = b_words[4u * q + i];
  return v;
}

// The eight elements from element `shift` (0..7) of the sixteen in w0, w1.
uvec4 window(uvec4 w0, uvec4 w1, uint shift) {
  const uint ws = shift / 2u;
  const uint w[8] = uint[8](w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w);
  uint v[5];
  [[unroll]] for (uint i = 0u; i < 5u; ++i)
    v[i] = ws == 0u ? w[i] : ws == 1u ? w[i + 1u] : ws == 2u ? w[i + 2u] : w[i + 3u];
  if ((shift & 1u) == 0u) return uvec4(v[0], v[1], v[2], v[3]);
  return uvec4((v[0] >> 16) | (v[1] << 16), (v[1] >> 16) | (v[2] << 16), (v[2] >> 16) | (v[3] << 16),
               (v[3] >> 16) | (v[4] << 16));
}

// The two elements of a 32-bit word, the first in memory first.
vec2 decode_pair(uint w) {
#if ELEM == 1
  return unpackHalf2x16(w);
#else
  return vec2(uintBitsToFloat(w << 16), uintBitsToFloat(w & 0xffff0000u));
#endif
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint ct = tid % CT, sl = tid / CT;
  const uint col0 = gl_WorkGroupID.x * COLS, c0 = col0 + 8u * ct, bz = gl_WorkGroupID.y;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  float acc[4][8];
  [[unroll]] for (uint r = 0u; r < 4u; ++r)
    [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[r][j] = 0.0;
  if (c0 < p.n) {
    for (uint k = sl; k < p.k; k += SLICES * UNROLL) {
      uvec4 b[UNROLL];
      float a[UNROLL][4];
      [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
        const uint kk = k + u * SLICES;
        b[u] = uvec4(0u);
        a[u] = float[4](0.0, 0.0, 0.0, 0.0);
        if (kk < p.k) {
          const uint e = base_b + kk * p.ldb + c0;
          b[u] = window(load_chunk(e / 8u), load_chunk(e / 8u + 1u), e % 8u);
          [[unroll]] for (uint r = 0u; r < 4u; ++r)
            if (r < p.m) a[u][r] = load_a(base_a + r * p.lda + kk);
        }
      }
      [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
        if (k + u * SLICES < p.k) {
          float x[8];
          [[unroll]] for (uint w = 0u; w < 4u; ++w) {
            const vec2 pair = decode_pair(b[u][w]);
            x[2u * w] = pair.x;
            x[2u * w + 1u] = pair.y;
          }
          [[unroll]] for (uint r = 0u; r < 4u; ++r)
            if (r < p.m)
              [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[r][j] = fma(a[u][r], x[j], acc[r][j]);
        }
      }
    }
  }
  [[unroll]] for (uint r = 0u; r < 4u; ++r) {
    if (r < p.m) {  // uniform
      [[unroll]] for (uint j = 0u; j < 8u; ++j) partial[sl][8u * ct + j] = acc[r][j];
      barrier();
      const uint col = col0 + tid;
      if (tid < COLS && col < p.n) {
        float sum = partial[0][tid];
        for (uint i = 1u; i < SLICES; ++i) sum = sum + partial[i][tid];
        const uint ci = p.offset_c + bz * p.stride_c + r * p.ldc + col;
        c_data[ci] = gemm_output(sum, ci, col);
      }
      barrier();
    }
  }
}
