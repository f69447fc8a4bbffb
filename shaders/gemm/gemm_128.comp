#version 450
// GEMM for large products (fast mode), float32 inputs (ELEM 0) or float16 / bfloat16 (ELEM 1 / 2,
// widened to float32 as they are staged): 128 x 128 of C per workgroup of 256, k in steps of
// BK (16) through double-buffered workgroup memory, an 8 x 8 register tile per invocation (rows
// 4 ty + i and 64 + 4 ty + i, columns likewise with tx), operands read as vec4 along their
// contiguous dimension. The host takes it only when every vec4 lies wholly inside or outside the
// operand (see gemm_plan.cpp). Each element is one fused multiply-add chain in increasing k over
// its k range: a second set of block accumulators (the portable tile's order) needs 64 more
// registers per invocation and cost 12 to 14 % on an H200 (8192^3: 31.7 against 27.8 ms). With
// OG_GEMM_SPLIT each k range writes raw sums to its scratch plane.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#ifndef ELEM
#define ELEM 0
#endif
#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufA { vec4 a4[]; };
layout(std430, binding = 1) readonly buffer BufB { vec4 b4[]; };
vec4 load_a4(uint i) { return a4[i]; }
vec4 load_b4(uint i) { return b4[i]; }
#else
// Four 16-bit elements (8 bytes) at a time, widened to float32 on the way into workgroup memory.
layout(std430, binding = 0) readonly buffer BufA { uvec2 a4[]; };
layout(std430, binding = 1) readonly buffer BufB { uvec2 b4[]; };
vec4 widen(uvec2 w) {
#if ELEM == 1
  return vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y));
#else
  return vec4(uintBitsToFloat(w.x << 16), uintBitsToFloat(w.x & 0xffff0000u), uintBitsToFloat(w.y << 16),
              uintBitsToFloat(w.y & 0xffff0000u));
#endif
}
vec4 load_a4(uint i) { return widen(a4[i]); }
vec4 load_b4(uint i) { return widen(b4[i]); }
#endif
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

#ifndef BK
#define BK 16u
#endif
#define LOADS (BK / 8u)  // vec4 of A (and of B) each invocation loads per step

// Rows padded by one vec4 (33 KiB in all). COMPACT drops the padding to fit 32 KiB (lavapipe);
// the host takes it only where the padded one does not fit.
#ifdef COMPACT
#define ROW 32
#else
#define ROW 33
#endif
shared vec4 As[2][BK][ROW];  // [buffer][k][row / 4]
shared vec4 Bs[2][BK][ROW];  // [buffer][k][col / 4]

vec4 ra[LOADS], rb[LOADS];  // the next step's operands, in flight

// The shape comes in as arguments read once (on WebGPU the push constants are a storage buffer,
// which a loop with barriers would read again every step).
struct Dims {
  uint m, n, lda, ldb;
};

void load_global(uint k0, uint row0, uint col0, uint base_a, uint base_b, uint k_end, bool ta, bool tb, Dims d) {
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + 256u * l;
    ra[l] = vec4(0.0);
    rb[l] = vec4(0.0);
    if (!ta) {  // A is M x K: a vec4 of four k of one row
      const uint r = row0 + idx / (BK / 4u), k = k0 + (idx % (BK / 4u)) * 4u;
      if (r < d.m && k < k_end) ra[l] = load_a4((base_a + r * d.lda + k) / 4u);
    } else {    // A is K x M: a vec4 of four rows of one k
      const uint k = k0 + idx / 32u, r = row0 + (idx % 32u) * 4u;
      if (r < d.m && k < k_end) ra[l] = load_a4((base_a + k * d.lda + r) / 4u);
    }
    if (!tb) {  // B is K x N: four columns of one k
      const uint k = k0 + idx / 32u, c = col0 + (idx % 32u) * 4u;
      if (c < d.n && k < k_end) rb[l] = load_b4((base_b + k * d.ldb + c) / 4u);
    } else {    // B is N x K: four k of one column
      const uint c = col0 + idx / (BK / 4u), k = k0 + (idx % (BK / 4u)) * 4u;
      if (c < d.n && k < k_end) rb[l] = load_b4((base_b + c * d.ldb + k) / 4u);
    }
  }
}

void store_shared(uint buf, bool ta, bool tb) {
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + 256u * l;
    if (!ta) {
      const uint r = idx / (BK / 4u), k = (idx % (BK / 4u)) * 4u;
      [[unroll]] for (uint i = 0u; i < 4u; ++i) As[buf][k + i][r / 4u][r % 4u] = ra[l][i];
    } else {
      As[buf][idx / 32u][idx % 32u] = ra[l];
    }
    if (!tb) {
      Bs[buf][idx / 32u][idx % 32u] = rb[l];
    } else {
      const uint c = idx / (BK / 4u), k = (idx % (BK / 4u)) * 4u;
      [[unroll]] for (uint i = 0u; i < 4u; ++i) Bs[buf][k + i][c / 4u][c % 4u] = rb[l][i];
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tx = tid % 16u, ty = tid / 16u;
  const uint row0 = gl_WorkGroupID.y * 128u, col0 = gl_WorkGroupID.x * 128u;
  const uint split = gl_WorkGroupID.z % p.splits, bz = gl_WorkGroupID.z / p.splits;
  const bool ta = (p.flags & OG_GEMM_TRANS_A) != 0u, tb = (p.flags & OG_GEMM_TRANS_B) != 0u;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(p.k, k_begin + p.k_chunk);
  const uint steps = k_end > k_begin ? (k_end - k_begin + BK - 1u) / BK : 0u;
  const Dims d = Dims(p.m, p.n, p.lda, p.ldb);

  vec4 acc[16];  // [i * 2 + half]: row i (0..7), columns half*64 + 4 tx + 0..3
  [[unroll]] for (uint i = 0u; i < 16u; ++i) acc[i] = vec4(0.0);

  if (steps > 0u) {
    load_global(k_begin, row0, col0, base_a, base_b, k_end, ta, tb, d);
    store_shared(0u, ta, tb);
  }
  barrier();
  for (uint t = 0u; t < steps; ++t) {
    const uint buf = t % 2u;
    if (t + 1u < steps) load_global(k_begin + (t + 1u) * BK, row0, col0, base_a, base_b, k_end, ta, tb, d);
    [[unroll]] for (uint k = 0u; k < BK; ++k) {
      const vec4 a0 = As[buf][k][ty], a1 = As[buf][k][16u + ty];
      const vec4 b0 = Bs[buf][k][tx], b1 = Bs[buf][k][16u + tx];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        acc[i * 2u] = fma(vec4(a0[i]), b0, acc[i * 2u]);
        acc[i * 2u + 1u] = fma(vec4(a0[i]), b1, acc[i * 2u + 1u]);
        acc[8u + i * 2u] = fma(vec4(a1[i]), b0, acc[8u + i * 2u]);
        acc[8u + i * 2u + 1u] = fma(vec4(a1[i]), b1, acc[8u + i * 2u + 1u]);
      }
    }
    if (t + 1u < steps) store_shared(1u - buf, ta, tb);
    barrier();
  }

  // The epilogue reads a copy: were acc itself indexed there in a way the compiler cannot resolve,
  // it would leave registers for the whole kernel (16 times slower on NVIDIA).
  vec4 result[16];
  [[unroll]] for (uint q = 0u; q < 16u; ++q) result[q] = acc[q];
  const bool to_scratch = (p.flags & OG_GEMM_SPLIT) != 0u;
  [[unroll]] for (uint q = 0u; q < 16u; ++q) {
    const uint row = row0 + (q < 8u ? 4u * ty + q / 2u : 64u + 4u * ty + (q - 8u) / 2u);
    const uint col_base = col0 + (q % 2u) * 64u + 4u * tx;
    if (row < p.m) {
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        const uint col = col_base + j;
        if (col < p.n) {
          if (to_scratch) {
            c_data[((split * p.batch + bz) * p.m + row) * p.n + col] = result[q][j];
          } else {
            const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
            c_data[ci] = gemm_output(result[q][j], ci, col);
          }
        }
      }
    }
  }
}
