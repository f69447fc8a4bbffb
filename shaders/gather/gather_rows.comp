#version 450
// Whole rows per index tuple (the embedding lookup; Gather and GatherND):
// rows of `row_units` units of UNIT bytes (uvec4 or one word), aligned to the unit in data and out.
// 2^row_shift invocations share a row, 256 >> row_shift rows per workgroup; a row longer than
// 2^row_shift * 4 units is split over `row_chunks` workgroups. An out-of-range index gives a row
// of zeros.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gather/gather_push.h"
#include "common/grid.glsl"

#if UNIT == 16
#define UNIT_T uvec4
#else
#define UNIT_T uint
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GatherPush, p);
layout(std430, binding = 0) readonly buffer Data { UNIT_T data_units[]; };
layout(std430, binding = 1) readonly buffer Indices { uint index_words[]; };
#ifdef OG_WEBGPU
layout(std430, binding = 2) buffer Out { UNIT_T out_units[]; };  // naga has no write-only storage
#else
layout(std430, binding = 2) writeonly buffer Out { UNIT_T out_units[]; };
#endif
layout(std430, binding = 3) buffer Status { uint status_word; };
#define OG_INDEX_STATUS status_word
#include "common/index.glsl"

void main() {
  const uint lane = gl_LocalInvocationID.x & ((1u << p.row_shift) - 1u);
  const uint sub = gl_LocalInvocationID.x >> p.row_shift;
  const uint g = og_workgroup_index();
  const uint block = g / p.row_chunks, chunk = g - block * p.row_chunks;
  const uint row = (block << (8u - p.row_shift)) + sub;
  if (row >= p.count) return;
  const uint t = row % p.tuples, a = row / p.tuples;
  const uint k = (p.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK;
  const uint q = (a * p.tuple_outer_stride + t) * k;
  const bool wide = (p.codes & OG_GATHER_WIDE) != 0u;
  uint src = p.data_offset + a * p.data_outer_stride;
  bool bad = false;
  [[unroll]] for (uint c = 0u; c < OG_GATHER_MAX_RANK; ++c) {
    if (c >= k) break;
    const uint at = p.index_offset + q + c;
    const uint lo = index_words[wide ? 2u * at : at];
    const uint hi = wide ? index_words[2u * at + 1u] : 0u;
    const uint j = og_normalize_index(lo, hi, wide, p.dims[c]);
    if (j == OG_BAD_INDEX) {
      if (lane == 0u && chunk == 0u && (p.codes & OG_GATHER_RECORD) != 0u) og_report_bad_index(q + c);
      bad = true;
      break;
    }
    src += j * p.strides[c];
  }
  const uint dst = p.out_offset + row * p.row_units;
  const uint first = chunk * (OG_GATHER_ROW_ITEMS << p.row_shift) + lane;
  const uint step = 1u << p.row_shift;
  // All loads first, then the stores: the loads of one invocation are in flight together.
  UNIT_T v[OG_GATHER_ROW_ITEMS];
  [[unroll]] for (uint u = 0u; u < OG_GATHER_ROW_ITEMS; ++u) {
    const uint c = first + u * step;
    v[u] = (c < p.row_units && !bad) ? data_units[src + c] : UNIT_T(0u);
  }
  [[unroll]] for (uint u = 0u; u < OG_GATHER_ROW_ITEMS; ++u) {
    const uint c = first + u * step;
    if (c < p.row_units) out_units[dst + c] = v[u];
  }
}
