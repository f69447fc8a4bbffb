#version 450
// DynamicQuantizeLinear, first pass: each workgroup folds a grid-strided share of x's aligned
// groups of four into one (minimum, maximum) pair of keys (minmax.glsl), written to partials.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "quantize/quantize_push.h"
#include "quantize/exact_float.glsl"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(QuantizePush, p);
layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
// In the WebGPU dialect the vector view stays declared (one layout for both backends) as words,
// unread: WebGPU wants a binding to hold at least one element of the array its kernel declares,
// which x's buffer need not (three float32). The groups are read as words of X.
#ifdef OG_WEBGPU
layout(std430, binding = 1) readonly buffer XV { uint x_vector_words[]; };
uvec4 x_vector(uint g) { return uvec4(x_words[4u * g], x_words[4u * g + 1u], x_words[4u * g + 2u], x_words[4u * g + 3u]); }
#else
layout(std430, binding = 1) readonly buffer XV { uvec4 x_vectors[]; };
#define x_vector(g) x_vectors[g]
#endif
layout(std430, binding = 2) buffer Partials { uint partials[]; };
#include "quantize/minmax.glsl"

void main() {
  const uint wg = og_workgroup_index();
  if (wg >= p.workgroups) return;
  uint lo = OG_KEY_ZERO, hi = OG_KEY_ZERO;
  const uint end = p.x_offset + p.count;
  const uint first = p.x_offset >> 2, last = (end + 3u) >> 2;
  const uint stride = p.workgroups * OG_QUANT_WORKGROUP;
  for (uint g = first + wg * OG_QUANT_WORKGROUP + gl_LocalInvocationID.x; g < last; g += stride) {
    const uint e0 = g * 4u;
    uvec4 x;
    bvec4 live = bvec4(true);
    if (e0 >= p.x_offset && e0 + 4u <= end) {
      x = x_vector(g);
    } else {
      [[unroll]] for (uint s = 0u; s < 4u; ++s) {
        live[s] = e0 + s >= p.x_offset && e0 + s < end;
        x[s] = live[s] ? x_words[e0 + s] : 0u;
      }
    }
    [[unroll]] for (uint s = 0u; s < 4u; ++s) {
      if (!live[s] || og_is_nan(x[s])) continue;
      const uint k = og_key(x[s]);
      lo = min(lo, k);
      hi = max(hi, k);
    }
  }
  const uvec2 r = og_workgroup_minmax(lo, hi);
  if (gl_LocalInvocationID.x == 0u) {
    partials[2u * wg] = r.x;
    partials[2u * wg + 1u] = r.y;
  }
}
