#version 450
// The row copy (see LayoutRowsPush): rows contiguous in source and output, whose lengths, offsets
// and strides are whole 16-byte vectors (the host checks), move as uvec4 vectors,
// OG_LAYOUT_ROW_VECTORS per invocation; the index arithmetic runs once per vector. Serves the
// attention head split and merge, slices of outer dimensions, permutations that keep the last
// dimension, expand of rows, and each input's block of a concat. WIDTH: the element's bits (for
// the element-to-vector arithmetic).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "layout/layout_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(LayoutRowsPush, p);
layout(std430, binding = 0) readonly buffer In { uvec4 in_vectors[]; };
layout(std430, binding = 1) buffer Out { uvec4 out_vectors[]; };

#define VECTOR_ELEMENTS (128u / WIDTH)

void main() {
  const uint row_vectors = p.shape[p.rank - 1u] / VECTOR_ELEMENTS;
  const uint vectors = p.count / VECTOR_ELEMENTS;
  const uint base = og_workgroup_index() * (256u * OG_LAYOUT_ROW_VECTORS) + gl_LocalInvocationIndex;
  [[unroll]] for (uint u = 0u; u < OG_LAYOUT_ROW_VECTORS; ++u) {
    const uint v = base + 256u * u;
    if (v >= vectors) continue;
    uint row = v / row_vectors;
    const uint within = v - row * row_vectors;
    uint in_index = p.in_offset, out_index = p.out_offset;
    [[unroll]] for (int d = OG_LAYOUT_MAX_RANK - 2; d >= 0; --d) {
      if (uint(d) + 1u < p.rank) {
        const uint n = p.shape[d];
        const uint q = row / n;
        const uint c = row - q * n;
        in_index += c * p.in_strides[d];
        out_index += c * p.out_strides[d];
        row = q;
      }
    }
    out_vectors[out_index / VECTOR_ELEMENTS + within] = in_vectors[in_index / VECTOR_ELEMENTS + within];
  }
}
