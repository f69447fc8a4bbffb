#version 450
// The row copy: like the general copy with one source, for outputs whose last merged dimension is
// contiguous in the source too and whose rows, offsets and strides are whole 16-byte vectors (the
// host checks); rows move as uvec4 vectors, OG_LAYOUT_ROW_VECTORS per invocation. Serves the
// attention head split and merge, slices along outer dimensions and permutations that keep the
// last dimension. WIDTH: the element's bits (only for the byte arithmetic).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "layout/layout_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { LayoutCopyPush p; };
layout(std430, binding = 0) readonly buffer In { uvec4 in_vectors[]; };
layout(std430, binding = 1) buffer Out { uvec4 out_vectors[]; };

#define VECTOR_ELEMENTS (128u / WIDTH)

void main() {
  const uint rank = OG_LAYOUT_FIELD(p.codes, OG_LAYOUT_RANK_SHIFT);
  const uint row_vectors = p.shape[rank - 1u] / VECTOR_ELEMENTS;
  const uint vectors = p.count / VECTOR_ELEMENTS;
  const uint base = og_workgroup_index() * (256u * OG_LAYOUT_ROW_VECTORS) + gl_LocalInvocationIndex;
  [[unroll]] for (uint u = 0u; u < OG_LAYOUT_ROW_VECTORS; ++u) {
    const uint v = base + 256u * u;
    if (v >= vectors) continue;
    uint row = v / row_vectors;
    const uint within = v - row * row_vectors;
    uint index = p.offset[0];
    [[unroll]] for (int d = OG_LAYOUT_MAX_RANK - 2; d >= 0; --d) {
      if (uint(d) + 1u < rank) {
        const uint n = p.shape[d];
        const uint q = row / n;
        index += (row - q * n) * p.strides[d];
        row = q;
      }
    }
    out_vectors[p.out_offset / VECTOR_ELEMENTS + v] = in_vectors[index / VECTOR_ELEMENTS + within];
  }
}
