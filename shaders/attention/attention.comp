#version 450
// Scaled dot-product attention, one pass over the keys with the online normaliser. Defines:
// ELEM (0 float32, 1 float16, 2 bfloat16; 16-bit values are read and written as pairs in 32-bit
// words), PD (the padded head dimension: 32, 64, 128 or 256), PAIRS (0: one invocation per query
// row, 64 rows per workgroup; 1: two neighbouring invocations per row, each half of the head
// dimension, 32 rows), BLOCKWISE (1: each key tile sums into its own accumulator, added to the
// row's after one rescale), TILE (keys per tile in workgroup memory).
// The loops over the keys of a tile stay loops ([[dont_unroll]]; unrolled, lavapipe's compiler took
// tens of seconds per variant), the loops over the head dimension unroll so that the query and the
// accumulator stay in registers. Keys are folded in increasing order; every sum has an order the
// code fixes; the one subgroup operation (PAIRS) exchanges a half dot product between the two
// invocations of a row, which each add the two halves (a + b == b + a).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if PAIRS
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "attention/attention_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

#if PAIRS
#define LANES 2u
#else
#define LANES 1u
#endif
#define ROWS (OG_ATTN_WORKGROUP / LANES)
#define HD (PD / LANES)

layout(local_size_x = 64) in;
OG_PUSH_BLOCK(AttentionPush, p);

#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufQ { float q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { float k_data[]; };
layout(std430, binding = 2) readonly buffer BufV { float v_data[]; };
#else
layout(std430, binding = 0) readonly buffer BufQ { uint q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { uint k_data[]; };
layout(std430, binding = 2) readonly buffer BufV { uint v_data[]; };
#endif
// The output, or the scratch of partials with OG_ATTN_SPLIT.
#ifdef OG_WEBGPU
layout(std430, binding = 3) buffer BufO { uint o_words[]; };  // naga has no write-only storage
#else
layout(std430, binding = 3) writeonly buffer BufO { uint o_words[]; };
#endif
layout(std430, binding = 4) readonly buffer BufMask { float mask_data[]; };
layout(std430, binding = 5) readonly buffer BufLengths { int key_lengths[]; };

shared float tile[TILE][PD];
// Each row's scores of the current tile (-inf: hidden), written by the row's first invocation.
shared float scores[TILE][ROWS];

#define kNegInf OG_FLOAT_BITS(0xff800000u)

vec2 decode_pair(uint word) {
#if ELEM == 1
  return unpackHalf2x16(word);
#else
  return vec2(uintBitsToFloat(word << 16), uintBitsToFloat(word & 0xffff0000u));
#endif
}

uint encode_pair(float lo, float hi) {
#if ELEM == 1
  return og_pack_half2(lo, hi);
#else
  // bfloat16, rounded to nearest even; NaN stays NaN.
  uvec2 u = floatBitsToUint(vec2(lo, hi));
  uvec2 r;
  for (uint i = 0u; i < 2u; ++i)
    r[i] = (u[i] & 0x7fffffffu) > 0x7f800000u ? (u[i] >> 16) | 0x40u : (u[i] + 0x7fffu + ((u[i] >> 16) & 1u)) >> 16;
  return r.x | (r.y << 16);
#endif
}

// Keys [first, first + n) of a K or V head into the tile; zeros past n and past head_dim.
void load_tile(bool values, uint base, uint row_stride, uint first, uint n) {
#if ELEM == 0
  for (uint e = gl_LocalInvocationIndex; e < TILE * PD; e += OG_ATTN_WORKGROUP) {
    const uint key = e / PD, d = e % PD;
    float x = 0.0;
    if (key < n && d < p.head_dim) {
      const uint i = base + (first + key) * row_stride + d;
      x = values ? v_data[i] : k_data[i];
    }
    tile[key][d] = x;
  }
#else
  for (uint e = gl_LocalInvocationIndex; e < TILE * PD / 2u; e += OG_ATTN_WORKGROUP) {
    const uint key = e / (PD / 2u), d = 2u * (e % (PD / 2u));
    vec2 x = vec2(0.0);
    if (key < n && d < p.head_dim) {
      const uint i = (base + (first + key) * row_stride + d) >> 1;
      x = decode_pair(values ? v_data[i] : k_data[i]);
    }
    tile[key][d] = x.x;
    tile[key][d + 1u] = x.y;
  }
#endif
}

bool is_neg_inf(float x) { return floatBitsToUint(x) == 0xff800000u; }
// NaN or +inf.
bool is_bad(float x) { return (floatBitsToUint(x) & 0x7fffffffu) >= 0x7f800000u && !is_neg_inf(x); }

void main() {
  const uint local_wg = og_workgroup_index();
  if (local_wg >= p.workgroup_count) return;
  const uint wg = p.first_workgroup + local_wg;
  const uint query_blocks = (p.query_length + ROWS - 1u) / ROWS;
  const uint split = wg % p.splits;
  const uint rest = wg / p.splits;
  const uint block = rest % query_blocks;
  const uint bh = rest / query_blocks;
  const uint b = bh / p.heads, h = bh % p.heads;
  const uint kvh = h / p.group;
  const uint lane = gl_LocalInvocationIndex % LANES;
  const uint local_row = gl_LocalInvocationIndex / LANES;
  const uint row = block * ROWS + local_row;
  const bool live_row = row < p.query_length;
  const uint d0 = lane * HD;
  const int causal_offset = int(p.causal_offset);

  // The keys this workgroup walks: its range, cut at the batch entry's key length and at the last
  // key the causal rule shows to its last row.
  const uint k_begin = split * p.key_chunk;
  uint walk_end = min(k_begin + p.key_chunk, p.key_length);
  if ((p.flags & OG_ATTN_KEY_LENGTHS) != 0u) walk_end = min(walk_end, uint(clamp(key_lengths[b], 0, int(p.key_length))));
  if ((p.flags & OG_ATTN_CAUSAL) != 0u) {
    const int last_row = int(min(block * ROWS + ROWS, p.query_length)) - 1;
    walk_end = min(walk_end, uint(clamp(last_row + causal_offset + 1, 0, int(p.key_length))));
  }

  float q[HD];
  const uint q_base = p.q_offset + b * p.q_batch + h * p.q_head + row * p.q_row;
  for (uint i = 0u; i < HD; ++i) {
    const uint d = d0 + i;
    float x = 0.0;
    if (live_row && d < p.head_dim) {
#if ELEM == 0
      x = q_data[q_base + d];
#else
      x = decode_pair(q_data[(q_base + d) >> 1])[d & 1u];
#endif
    }
    q[i] = x;
  }
  float acc[HD];
  for (uint i = 0u; i < HD; ++i) acc[i] = 0.0;
  float m = kNegInf, l = 0.0;
  bool bad = false;
  const uint k_base = p.k_offset + b * p.k_batch + kvh * p.k_head;
  const uint v_base = p.v_offset + b * p.v_batch + kvh * p.v_head;
  const uint mask_base = p.mask_offset + b * p.mask_batch + h * p.mask_head + row * p.mask_row;

  for (uint t0 = k_begin; t0 < walk_end; t0 += TILE) {
    const uint n = min(TILE, walk_end - t0);
    barrier();
    load_tile(false, k_base, p.k_row, t0, n);
    barrier();
    float tile_max = kNegInf;
    [[dont_unroll]] for (uint j = 0u; j < TILE; ++j) {
      float dot = 0.0;
      [[unroll]] for (uint i = 0u; i < HD; ++i) dot = fma(q[i], tile[j][d0 + i], dot);
#if PAIRS
      dot = dot + subgroupShuffleXor(dot, 1u);
#endif
      const uint key = t0 + j;
      bool visible = live_row && j < n;
      if ((p.flags & OG_ATTN_CAUSAL) != 0u) visible = visible && int(key) <= int(row) + causal_offset;
      float score = dot * p.scale;
      if (visible && (p.flags & OG_ATTN_MASK) != 0u) score += mask_data[mask_base + key];
      if (visible && is_bad(score)) bad = true;
      score = visible && !is_bad(score) ? score : kNegInf;
      if (lane == 0u) scores[j][local_row] = score;
      tile_max = max(tile_max, score);
    }
    barrier();
    load_tile(true, v_base, p.v_row, t0, n);
    barrier();
    const float m_new = max(m, tile_max);
    if (!is_neg_inf(m_new)) {
      const float alpha = exp(m - m_new);
#if BLOCKWISE
      float tile_acc[HD];
      [[unroll]] for (uint i = 0u; i < HD; ++i) tile_acc[i] = 0.0;
      float tile_sum = 0.0;
      [[dont_unroll]] for (uint j = 0u; j < TILE; ++j) {
        const float score = scores[j][local_row];
        if (is_neg_inf(score)) continue;
        const float w = exp(score - m_new);
        tile_sum += w;
        [[unroll]] for (uint i = 0u; i < HD; ++i) tile_acc[i] = fma(w, tile[j][d0 + i], tile_acc[i]);
      }
      l = fma(l, alpha, tile_sum);
      [[unroll]] for (uint i = 0u; i < HD; ++i) acc[i] = fma(acc[i], alpha, tile_acc[i]);
#else
      l *= alpha;
      [[unroll]] for (uint i = 0u; i < HD; ++i) acc[i] *= alpha;
      [[dont_unroll]] for (uint j = 0u; j < TILE; ++j) {
        const float score = scores[j][local_row];
        if (is_neg_inf(score)) continue;
        const float w = exp(score - m_new);
        l += w;
        [[unroll]] for (uint i = 0u; i < HD; ++i) acc[i] = fma(w, tile[j][d0 + i], acc[i]);
      }
#endif
      m = m_new;
    }
  }
  if (!live_row) return;

  const float nan = OG_FLOAT_BITS(0x7fc00000u);
  if ((p.flags & OG_ATTN_SPLIT) != 0u) {
    const uint stride = p.head_dim + OG_ATTN_PARTIAL_HEADER;
    const uint base = ((bh * p.query_length + row) * p.splits + split) * stride;
    if (lane == 0u) {
      o_words[base] = floatBitsToUint(bad ? nan : m);
      o_words[base + 1u] = floatBitsToUint(l);
    }
    for (uint i = 0u; i < HD; ++i)
      if (d0 + i < p.head_dim) o_words[base + OG_ATTN_PARTIAL_HEADER + d0 + i] = floatBitsToUint(acc[i]);
    return;
  }
  // No visible key: NaN (0 / 0) or zeros; a NaN or +inf score: NaN.
  const bool empty = is_neg_inf(m);
  const float fill = bad || (empty && (p.flags & OG_ATTN_ZERO_ROWS) == 0u) ? nan : 0.0;
  const bool no_sum = bad || empty;
  const uint o_base = p.o_offset + b * p.o_batch + h * p.o_head + row * p.o_row;
#if ELEM == 0
  for (uint i = 0u; i < HD; ++i)
    if (d0 + i < p.head_dim) o_words[o_base + d0 + i] = floatBitsToUint(no_sum ? fill : acc[i] / l);
#else
  for (uint i = 0u; i < HD; i += 2u)
    if (d0 + i < p.head_dim)
      o_words[(o_base + d0 + i) >> 1] = no_sum ? encode_pair(fill, fill) : encode_pair(acc[i] / l, acc[i + 1u] / l);
#endif
}
