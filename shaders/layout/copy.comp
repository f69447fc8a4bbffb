#version 450
// The general layout copy: every output element from one of up to four strided sources (see
// LayoutCopyPush). One invocation owns OG_LAYOUT_WORDS output words (64-bit: elements), so the
// neighbours of a range that starts or ends inside a word, and the elements no source covers, keep
// their bits without atomics. WIDTH: the element's bits (8, 16, 32, 64).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "layout/layout_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(LayoutCopyPush, p);
layout(std430, binding = 0) readonly buffer S0 { uint s0[]; };
layout(std430, binding = 1) readonly buffer S1 { uint s1[]; };
layout(std430, binding = 2) readonly buffer S2 { uint s2[]; };
layout(std430, binding = 3) readonly buffer S3 { uint s3[]; };
layout(std430, binding = 4) buffer Out { uint out_words[]; };

#if WIDTH == 64
#define PER 1u
#else
#define PER (32u / WIDTH)
#endif

uint word_of(uint k, uint w) {
  if (k == 0u) return s0[w];
  if (k == 1u) return s1[w];
  if (k == 2u) return s2[w];
  return s3[w];
}

// Source k and the element index in it of output element e; k = 4 when no source covers e.
uvec2 locate(uint e) {
  const uint rank = OG_LAYOUT_FIELD(p.codes, OG_LAYOUT_RANK_SHIFT);
  const uint sel = OG_LAYOUT_FIELD(p.codes, OG_LAYOUT_SEL_SHIFT);
  const uint sources = OG_LAYOUT_FIELD(p.codes, OG_LAYOUT_SOURCES_SHIFT);
  uint c[OG_LAYOUT_MAX_RANK];
  uint rest = e;
  [[unroll]] for (int d = OG_LAYOUT_MAX_RANK - 1; d > 0; --d) {
    if (uint(d) < rank) {
      const uint n = p.shape[d];
      const uint q = rest / n;
      c[d] = rest - q * n;
      rest = q;
    } else {
      c[d] = 0u;
    }
  }
  c[0] = rest;
  const uint along = c[sel];
  uint k = 4u;
  [[unroll]] for (uint s = 0u; s < OG_LAYOUT_MAX_SOURCES; ++s) {
    const uint hi = s + 1u < sources ? p.lo[s + 1u] : p.sel_end;
    if (s < sources && along >= p.lo[s] && along < hi) k = s;
  }
  if (k == 4u) return uvec2(4u, 0u);
  uint index = p.offset[k];
  [[unroll]] for (uint d = 0u; d < OG_LAYOUT_MAX_RANK; ++d)
    if (d < rank) index += c[d] * p.strides[k * rank + d];
  return uvec2(k, index);
}

void main() {
  const uint first = p.out_offset / PER;  // the first output word (64-bit: element)
  const uint words = (p.out_offset + p.count - 1u) / PER - first + 1u;
  const uint base = og_workgroup_index() * (256u * OG_LAYOUT_WORDS) + gl_LocalInvocationIndex;
  [[unroll]] for (uint u = 0u; u < OG_LAYOUT_WORDS; ++u) {
    const uint w = base + 256u * u;
    if (w >= words) continue;
    const uint word = first + w;
#if WIDTH == 64
    const uvec2 at = locate(word - p.out_offset);
    if (at.x < 4u) {
      const uint lo = word_of(at.x, 2u * at.y), hi = word_of(at.x, 2u * at.y + 1u);
      out_words[2u * word] = lo;
      out_words[2u * word + 1u] = hi;
    }
#elif WIDTH == 32
    const uvec2 at = locate(word - p.out_offset);
    if (at.x < 4u) out_words[word] = word_of(at.x, at.y);
#else
    // Elements of the word inside the output: all of them, or some at the ends (then the others
    // are read back and kept).
    const uint g0 = word * PER;
    uint bits = 0u, kept = 0u;
    [[unroll]] for (uint j = 0u; j < PER; ++j) {
      const uint g = g0 + j;
      const uint shift = j * WIDTH;
      const uint mask = ((1u << WIDTH) - 1u) << shift;
      uvec2 at = uvec2(4u, 0u);
      if (g >= p.out_offset && g - p.out_offset < p.count) at = locate(g - p.out_offset);
      if (at.x < 4u) {
        const uint v = (word_of(at.x, at.y / PER) >> ((at.y % PER) * WIDTH)) & ((1u << WIDTH) - 1u);
        bits |= v << shift;
      } else {
        kept |= mask;
      }
    }
    if (kept != 0u) bits |= out_words[word] & kept;
    if (kept != 0xffffffffu) out_words[word] = bits;
#endif
  }
}
