#version 450
// Gather, GatherND (MODE index) and GatherElements (MODE elements) over payloads of WIDTH bits.
// One invocation owns one 32-bit output word (four 8-bit or two 16-bit elements, one 32-bit
// element) or one 64-bit element, so elements outside the output's range that share its first or
// last word are kept, without atomics. An out-of-range index gives zero.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gather/gather_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GatherPush, p);
layout(std430, binding = 0) readonly buffer Data { uint data_words[]; };
layout(std430, binding = 1) readonly buffer Indices { uint index_words[]; };
layout(std430, binding = 2) buffer Out { uint out_words[]; };
layout(std430, binding = 3) buffer Status { uint status_word; };
#define OG_INDEX_STATUS status_word
#include "common/index.glsl"

#if WIDTH == 8
#define PER_WORD 4u
#define MASK 0xffu
#elif WIDTH == 16
#define PER_WORD 2u
#define MASK 0xffffu
#else
#define PER_WORD 1u
#endif

uint tuple_length() { return (p.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK; }

// The index at position q of the index tensor, in [0, n), or OG_BAD_INDEX (then recorded).
uint index_at(uint q, uint n) {
  const bool wide = (p.codes & OG_GATHER_WIDE) != 0u;
  const uint a = p.index_offset + q;
  const uint lo = index_words[wide ? 2u * a : a];
  const uint hi = wide ? index_words[2u * a + 1u] : 0u;
  const uint j = og_normalize_index(lo, hi, wide, n);
  if (j == OG_BAD_INDEX && (p.codes & OG_GATHER_RECORD) != 0u) og_report_bad_index(q);
  return j;
}

// The data element (from data_offset) output element e (from out_offset) copies, or OG_BAD_INDEX.
uint source_of(uint e) {
#if MODE == OG_GATHER_MODE_INDEX
  const uint i = e % p.inner, r = e / p.inner;
  const uint t = r % p.tuples, a = r / p.tuples;
  const uint k = tuple_length();
  const uint q = (a * p.tuple_outer_stride + t) * k;
  uint src = a * p.data_outer_stride + i;
  [[unroll]] for (uint c = 0u; c < OG_GATHER_MAX_RANK; ++c) {
    if (c >= k) break;
    const uint j = index_at(q + c, p.dims[c]);
    if (j == OG_BAD_INDEX) return OG_BAD_INDEX;
    src += j * p.strides[c];
  }
  return src;
#else
  uint rest = e, src = 0u;
  const uint rank = tuple_length();
  [[unroll]] for (uint d = OG_GATHER_MAX_RANK; d-- > 0u;) {
    if (d >= rank) continue;
    const uint x = rest % p.dims[d];
    rest /= p.dims[d];
    if (d != p.axis) src += x * p.strides[d];
  }
  const uint j = index_at(e, p.axis_length);
  return j == OG_BAD_INDEX ? OG_BAD_INDEX : src + j * p.strides[p.axis];
#endif
}

void main() {
  const uint item = og_workgroup_index() * OG_GATHER_WORKGROUP + gl_LocalInvocationID.x;
#if WIDTH == 64
  if (item >= p.count) return;
  const uint src = source_of(item);
  uvec2 v = uvec2(0u);
  if (src != OG_BAD_INDEX) {
    const uint w = 2u * (p.data_offset + src);
    v = uvec2(data_words[w], data_words[w + 1u]);
  }
  const uint o = 2u * (p.out_offset + item);
  out_words[o] = v.x;
  out_words[o + 1u] = v.y;
#elif WIDTH == 32
  if (item >= p.count) return;
  const uint src = source_of(item);
  out_words[p.out_offset + item] = src == OG_BAD_INDEX ? 0u : data_words[p.data_offset + src];
#else
  const uint word = p.out_offset / PER_WORD + item;
  const uint end = p.out_offset + p.count;
  if (word * PER_WORD >= end) return;
  uint result = 0u, live = 0u;
  [[unroll]] for (uint s = 0u; s < PER_WORD; ++s) {
    const uint at = word * PER_WORD + s;
    if (at < p.out_offset || at >= end) continue;
    live |= MASK << (s * WIDTH);
    const uint src = source_of(at - p.out_offset);
    if (src == OG_BAD_INDEX) continue;
    const uint d = p.data_offset + src;
    result |= ((data_words[d / PER_WORD] >> ((d % PER_WORD) * WIDTH)) & MASK) << (s * WIDTH);
  }
  // A word shared with elements outside the output keeps them.
  if (live != 0xffffffffu) result |= out_words[word] & ~live;
  out_words[word] = result;
#endif
}
