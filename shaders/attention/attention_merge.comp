#version 450
// Merges the split-key partials of each output row (attention_push.h gives their layout) in range
// order: M = max of the ranges' maxima, then sum = Σ sum_s exp(m_s - M) and
// out = Σ acc_s exp(m_s - M) / sum. One invocation per output element (float32) or word (16-bit).
// ELEM: 0 float32, 1 float16, 2 bfloat16.
#extension GL_GOOGLE_include_directive : require
#include "attention/attention_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 64) in;
OG_PUSH_BLOCK(AttentionMergePush, p);
layout(std430, binding = 0) readonly buffer BufPartials { float partials[]; };
#ifdef OG_WEBGPU
layout(std430, binding = 1) buffer BufO { uint o_words[]; };  // naga has no write-only storage
#else
layout(std430, binding = 1) writeonly buffer BufO { uint o_words[]; };
#endif

#if ELEM == 0
#define PER_ITEM 1u
#else
#define PER_ITEM 2u
#endif

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

void main() {
  const uint item = og_workgroup_index() * OG_ATTN_WORKGROUP + gl_LocalInvocationIndex;
  if (item >= p.count) return;
  const uint per_row = (p.head_dim + PER_ITEM - 1u) / PER_ITEM;
  const uint row_index = item / per_row;
  const uint d = (item % per_row) * PER_ITEM;
  const uint bh = row_index / p.query_length, row = row_index % p.query_length;
  const uint b = bh / p.heads, h = bh % p.heads;
  const uint stride = p.head_dim + OG_ATTN_PARTIAL_HEADER;
  const uint base = row_index * p.splits * stride;

  float top = OG_FLOAT_BITS(0xff800000u);
  bool bad = false;
  for (uint s = 0u; s < p.splits; ++s) {
    const float m = partials[base + s * stride];
    if (og_isnan(m) || (floatBitsToUint(m) & 0x7fffffffu) > 0x7f800000u) bad = true;
    else top = max(top, m);
  }
  const bool empty = floatBitsToUint(top) == 0xff800000u;
  float out_values[PER_ITEM];
  if (bad || empty) {
    const float fill = bad || (p.flags & OG_ATTN_ZERO_ROWS) == 0u ? OG_FLOAT_BITS(0x7fc00000u) : 0.0;
    for (uint e = 0u; e < PER_ITEM; ++e) out_values[e] = fill;
  } else {
    float sum = 0.0;
    float num[PER_ITEM];
    for (uint e = 0u; e < PER_ITEM; ++e) num[e] = 0.0;
    for (uint s = 0u; s < p.splits; ++s) {
      const uint at = base + s * stride;
      const float m = partials[at];
      if (floatBitsToUint(m) == 0xff800000u) continue;  // no visible key in this range
      const float w = exp(m - top);
      sum = fma(partials[at + 1u], w, sum);
      for (uint e = 0u; e < PER_ITEM; ++e) num[e] = fma(partials[at + OG_ATTN_PARTIAL_HEADER + d + e], w, num[e]);
    }
    for (uint e = 0u; e < PER_ITEM; ++e) out_values[e] = num[e] / sum;
  }
  const uint o = p.o_offset + b * p.o_batch + h * p.o_head + row * p.o_row + d;
#if ELEM == 0
  o_words[o] = floatBitsToUint(out_values[0]);
#else
  o_words[o >> 1] = encode_pair(out_values[0], out_values[1]);
#endif
}
