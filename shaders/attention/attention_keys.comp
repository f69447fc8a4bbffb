#version 450
// Attention for few query rows (decoder steps): a workgroup of 256 invocations owns one batch
// entry, one key/value head and one key range, and serves every query row of every query head
// that reads that key/value head (R = group * query_length <= RMAX rows: 16, or 8 for PD 256), so each K and V row is
// read once for all of them. Keys are taken in tiles of 256 in increasing order:
//   1. invocation j forms the scores of key j of the tile against the R query rows (held in
//      workgroup memory), applying scale, mask and the visibility rules;
//   2. each row's tile maximum and, after the rescale, its sum of exp(score - maximum) are formed
//      in a fixed order: PARTS invocations per row each fold PART_KEYS keys in key order, then one
//      folds the PARTS partial results in order;
//   3. each invocation owns output elements (row, d) and adds p * v over the tile's keys in key
//      order into a tile accumulator that starts at zero, then adds it to the running accumulator
//      after one rescale by exp(old maximum - new maximum) (the blockwise sum).
// Defines: ELEM (0 float32, 1 float16, 2 bfloat16; 16-bit values are read as pairs of a 32-bit
// word), PD (padded head dimension: 32, 64, 128 or 256). No atomics and no subgroup operations.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "attention/attention_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

#define THREADS 256u
#define KT 256u                   // keys per tile, one per invocation
#define RMAX (PD == 256u ? 8u : 16u)  // query rows per workgroup (fewer for the widest heads: memory)
#define PARTS (THREADS / RMAX)    // invocations per row in the reductions
#define PART_KEYS (KT / PARTS)    // keys each of them folds
#if ELEM == 0
#define PER 1u                    // output elements per unit: one float, or one pair of 16-bit values
#else
#define PER 2u
#endif
#define UNITS ((RMAX * PD / PER + THREADS - 1u) / THREADS)  // output units per invocation, at most
#define NEG_INF OG_FLOAT_BITS(0xff800000u)

layout(local_size_x = THREADS) in;
OG_PUSH_BLOCK(AttentionPush, p);
#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufQ { float q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { float k_data[]; };
layout(std430, binding = 2) readonly buffer BufV { float v_data[]; };
#else
layout(std430, binding = 0) readonly buffer BufQ { uint q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { uint k_data[]; };
#ifndef OG_WEBGPU
layout(std430, binding = 1) readonly buffer BufKVec { uvec4 k_vec[]; };
#endif
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

shared float q_s[RMAX][PD];        // the query rows, zeros past head_dim
shared float s_s[RMAX][KT + 1u];   // scores, then probabilities, of the tile
shared float part_s[RMAX][PARTS];  // per-row partial maxima or sums
shared float m_s[RMAX], alpha_s[RMAX], l_s[RMAX];
shared bool bad_s[RMAX];

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
  uvec2 u = floatBitsToUint(vec2(lo, hi));
  uvec2 r;
  for (uint i = 0u; i < 2u; ++i)
    r[i] = (u[i] & 0x7fffffffu) > 0x7f800000u ? (u[i] >> 16) | 0x40u : (u[i] + 0x7fffu + ((u[i] >> 16) & 1u)) >> 16;
  return r.x | (r.y << 16);
#endif
}

bool is_bad(float x) { return og_isnan(x) || (og_isinf(x) && x > 0.0); }

void main() {
  const uint local_wg = og_workgroup_index();
  if (local_wg >= p.workgroup_count) return;
  const uint wg = p.first_workgroup + local_wg;
  const uint kv_heads = p.heads / p.group;
  const uint split = wg % p.splits;
  const uint bk = wg / p.splits;
  const uint b = bk / kv_heads, kvh = bk % kv_heads;
  const uint t = gl_LocalInvocationIndex;
  const uint rows = p.group * p.query_length;  // <= RMAX (the host checks)
  const int causal_offset = int(p.causal_offset);
  const bool causal = (p.flags & OG_ATTN_CAUSAL) != 0u;

  // This range's keys, cut at the batch entry's key length and, for the causal rule, at the last
  // key the last query row sees.
  const uint k_begin = split * p.key_chunk;
  uint k_end = min(k_begin + p.key_chunk, p.key_length);
  if ((p.flags & OG_ATTN_KEY_LENGTHS) != 0u) k_end = min(k_end, uint(clamp(key_lengths[b], 0, int(p.key_length))));
  if (causal) k_end = min(k_end, uint(clamp(int(p.query_length) - 1 + causal_offset + 1, 0, int(p.key_length))));

  // Query rows: row rr is query row rr % query_length of head kvh * group + rr / query_length.
  for (uint e = t; e < RMAX * PD; e += THREADS) {
    const uint rr = e / PD, d = e % PD;
    float x = 0.0;
    if (rr < rows && d < p.head_dim) {
      const uint h = kvh * p.group + rr / p.query_length, r = rr % p.query_length;
      const uint i = p.q_offset + b * p.q_batch + h * p.q_head + r * p.q_row + d;
#if ELEM == 0
      x = q_data[i];
#else
      x = decode_pair(q_data[i >> 1])[i & 1u];
#endif
    }
    q_s[rr][d] = x;
  }
  if (t < RMAX) {
    m_s[t] = NEG_INF;
    l_s[t] = 0.0;
    bad_s[t] = false;
  }
  float acc[UNITS][PER];
  [[unroll]] for (uint i = 0u; i < UNITS; ++i)
    [[unroll]] for (uint e = 0u; e < PER; ++e) acc[i][e] = 0.0;
  const uint k_base = p.k_offset + b * p.k_batch + kvh * p.k_head;
#if ELEM != 0
  const bool vec_k = (k_base & 7u) == 0u && (p.k_row & 7u) == 0u && (p.head_dim & 7u) == 0u;
#endif
  const uint v_base = p.v_offset + b * p.v_batch + kvh * p.v_head;
  barrier();

  for (uint t0 = k_begin; t0 < k_end; t0 += KT) {
    // 1. Scores of key t0 + t against every row.
    const uint key = t0 + t;
    if (key < k_end) {
      float dot[RMAX];
      [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) dot[rr] = 0.0;
      const uint kb = k_base + key * p.k_row;
#if ELEM == 0
      for (uint d = 0u; d < p.head_dim; ++d) {
        const float kx = k_data[kb + d];
        [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) if (rr < rows) dot[rr] = fma(q_s[rr][d], kx, dot[rr]);
      }
#else
      if (vec_k) {
        // Eight elements per read (the host set OG_ATTN_KEYS_VEC: offsets, strides and head_dim
        // multiples of 8).
        for (uint d = 0u; d < p.head_dim; d += 8u) {
          #ifdef OG_WEBGPU
          // One binding per buffer: the four words through the word view.
          const uint kw0 = (kb + d) >> 1;
          const uvec4 kw = uvec4(k_data[kw0], k_data[kw0 + 1u], k_data[kw0 + 2u], k_data[kw0 + 3u]);
#else
          const uvec4 kw = k_vec[(kb + d) >> 3];
#endif
          [[unroll]] for (uint w = 0u; w < 4u; ++w) {
            const vec2 kx = decode_pair(kw[w]);
            [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) {
              if (rr < rows) {
                dot[rr] = fma(q_s[rr][d + 2u * w], kx.x, dot[rr]);
                dot[rr] = fma(q_s[rr][d + 2u * w + 1u], kx.y, dot[rr]);
              }
            }
          }
        }
      } else
      for (uint d = 0u; d < p.head_dim; d += 2u) {
        const vec2 kx = decode_pair(k_data[(kb + d) >> 1]);
        [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) {
          if (rr < rows) {
            dot[rr] = fma(q_s[rr][d], kx.x, dot[rr]);
            dot[rr] = fma(q_s[rr][d + 1u], kx.y, dot[rr]);
          }
        }
      }
#endif
      [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) {
        if (rr >= rows) break;
        const uint h = kvh * p.group + rr / p.query_length, r = rr % p.query_length;
        float s = NEG_INF;
        if (!causal || int(key) <= int(r) + causal_offset) {
          s = dot[rr] * p.scale;
          if ((p.flags & OG_ATTN_MASK) != 0u)
            s += mask_data[p.mask_offset + b * p.mask_batch + h * p.mask_head + r * p.mask_row + key];
          if (is_bad(s)) {
            bad_s[rr] = true;  // every writer stores true
            s = NEG_INF;
          }
        }
        s_s[rr][t] = s;
      }
    } else {
      [[unroll]] for (uint rr = 0u; rr < RMAX; ++rr) s_s[rr][t] = NEG_INF;
    }
    barrier();
    // 2a. Tile maximum per row: PARTS invocations per row, PART_KEYS keys each, then in order.
    const uint pr = t / PARTS, pc = t % PARTS;
    {
      float mx = NEG_INF;
      for (uint j = 0u; j < PART_KEYS; ++j) mx = max(mx, s_s[pr][pc * PART_KEYS + j]);
      part_s[pr][pc] = mx;
    }
    barrier();
    if (t < RMAX) {
      float mx = m_s[t];
      for (uint j = 0u; j < PARTS; ++j) mx = max(mx, part_s[t][j]);
      alpha_s[t] = mx == NEG_INF ? 1.0 : exp(m_s[t] - mx);
      m_s[t] = mx;
    }
    barrier();
    // 2b. Probabilities in place, and their sums.
    {
      const float mx = m_s[pr];
      float sum = 0.0;
      for (uint j = 0u; j < PART_KEYS; ++j) {
        const float s = s_s[pr][pc * PART_KEYS + j];
        const float w = s == NEG_INF ? 0.0 : exp(s - mx);
        s_s[pr][pc * PART_KEYS + j] = w;
        sum += w;
      }
      part_s[pr][pc] = sum;
    }
    barrier();
    if (t < RMAX) {
      float sum = 0.0;
      for (uint j = 0u; j < PARTS; ++j) sum += part_s[t][j];
      l_s[t] = fma(l_s[t], alpha_s[t], sum);
    }
    // 3. P V for this invocation's outputs, in key order.
    const uint n = min(KT, k_end - t0);
    [[unroll]] for (uint i = 0u; i < UNITS; ++i) {
      const uint e0 = (t + THREADS * i) * PER;
      const uint rr = e0 / PD, d = e0 % PD;
      if (rr >= rows || d >= p.head_dim) continue;
      float tile_acc[PER];
      [[unroll]] for (uint e = 0u; e < PER; ++e) tile_acc[e] = 0.0;
      const uint vb = v_base + t0 * p.v_row + d;
      // Eight keys per step with their loads issued together; a hidden key (weight 0) is read
      // (it lies inside the tensor) but not added, so NaN or infinity there changes nothing.
      uint j = 0u;
      for (; j + 8u <= n; j += 8u) {
        float vx[8][PER];
        [[unroll]] for (uint u = 0u; u < 8u; ++u) {
          const uint vi = vb + (j + u) * p.v_row;
#if ELEM == 0
          vx[u][0] = v_data[vi];
#else
          const vec2 x = decode_pair(v_data[vi >> 1]);
          vx[u][0] = x.x;
          vx[u][1] = x.y;
#endif
        }
        [[unroll]] for (uint u = 0u; u < 8u; ++u) {
          const float w = s_s[rr][j + u];
          [[unroll]] for (uint e = 0u; e < PER; ++e) tile_acc[e] = w != 0.0 ? fma(w, vx[u][e], tile_acc[e]) : tile_acc[e];
        }
      }
      for (; j < n; ++j) {
        const float w = s_s[rr][j];
        if (w == 0.0) continue;
        const uint vi = vb + j * p.v_row;
#if ELEM == 0
        tile_acc[0] = fma(w, v_data[vi], tile_acc[0]);
#else
        const vec2 x = decode_pair(v_data[vi >> 1]);
        tile_acc[0] = fma(w, x.x, tile_acc[0]);
        tile_acc[1] = fma(w, x.y, tile_acc[1]);
#endif
      }
      [[unroll]] for (uint e = 0u; e < PER; ++e) acc[i][e] = fma(acc[i][e], alpha_s[rr], tile_acc[e]);
    }
    barrier();  // the tile's probabilities and the row statistics are read
  }

  // Results: the range's partials, or O = acc / sum.
  const float nan = OG_FLOAT_BITS(0x7fc00000u);
  const bool split_out = (p.flags & OG_ATTN_SPLIT) != 0u;
  [[unroll]] for (uint i = 0u; i < UNITS; ++i) {
    const uint e0 = (t + THREADS * i) * PER;
    const uint rr = e0 / PD, d = e0 % PD;
    if (rr >= rows || d >= p.head_dim) continue;
    const uint h = kvh * p.group + rr / p.query_length, r = rr % p.query_length;
    const uint bh = b * p.heads + h;
    if (split_out) {
      const uint part = ((bh * p.query_length + r) * p.splits + split) * (p.head_dim + OG_ATTN_PARTIAL_HEADER);
      if (d == 0u) {
        o_words[part] = floatBitsToUint(bad_s[rr] ? nan : m_s[rr]);
        o_words[part + 1u] = floatBitsToUint(l_s[rr]);
      }
      [[unroll]] for (uint e = 0u; e < PER; ++e)
        if (d + e < p.head_dim) o_words[part + OG_ATTN_PARTIAL_HEADER + d + e] = floatBitsToUint(acc[i][e]);
      continue;
    }
    const bool empty = m_s[rr] == NEG_INF;
    const float fill = bad_s[rr] || (empty && (p.flags & OG_ATTN_ZERO_ROWS) == 0u) ? nan : 0.0;
    float o[PER];
    [[unroll]] for (uint e = 0u; e < PER; ++e) o[e] = bad_s[rr] || empty ? fill : acc[i][e] / l_s[rr];
    const uint oi = p.o_offset + b * p.o_batch + h * p.o_head + r * p.o_row + d;
#if ELEM == 0
    o_words[oi] = floatBitsToUint(o[0]);
#else
    o_words[oi >> 1] = encode_pair(o[0], o[1]);
#endif
  }
}
