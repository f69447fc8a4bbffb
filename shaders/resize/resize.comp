#version 450
// Resize: one invocation per output element (32-bit) or output word of two 16-bit elements, reading
// its row's and column's taps from the plan's table. Nearest copies the element's bits; linear
// interpolates along the width, then the height, in float32.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "resize/resize_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ResizePush, p);
layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
layout(std430, binding = 1) readonly buffer Taps { uint taps[]; };
layout(std430, binding = 2) buffer Y { uint y_words[]; };

#ifdef BITS16
uint bits_at(uint a) { return (x_words[a >> 1] >> (16u * (a & 1u))) & 0xffffu; }
#else
uint bits_at(uint a) { return x_words[a]; }
#endif

#ifdef LINEAR
#ifdef IN_F16
float x_at(uint a) { return og_half_at(x_words[a >> 1], a); }
uint to_bits(float v) { return og_f32_to_f16(v); }
#else
float x_at(uint a) { return uintBitsToFloat(x_words[a]); }
uint to_bits(float v) { return floatBitsToUint(v); }
#endif
#endif

// The bits of output element e (0 <= e < count).
uint resized(uint e) {
  const uint plane_out = p.out_h * p.out_w;
  const uint plane = e / plane_out, r = e - plane * plane_out;
  const uint oh = r / p.out_w, ow = r - oh * p.out_w;
  const uint row = oh * OG_RESIZE_TAP_WORDS, col = p.columns_at + ow * OG_RESIZE_TAP_WORDS;
  const uint base = p.x_offset + plane * p.in_h * p.in_w;
#ifdef LINEAR
  const uint r0 = base + taps[row] * p.in_w, r1 = base + taps[row + 1u] * p.in_w;
  const uint c0 = taps[col], c1 = taps[col + 1u];
  const float wy = uintBitsToFloat(taps[row + 2u]), wx = uintBitsToFloat(taps[col + 2u]);
  const float top = x_at(r0 + c0) * (1.0 - wx) + x_at(r0 + c1) * wx;
  const float bottom = x_at(r1 + c0) * (1.0 - wx) + x_at(r1 + c1) * wx;
  return to_bits(top * (1.0 - wy) + bottom * wy);
#else
  return bits_at(base + taps[row] * p.in_w + taps[col]);
#endif
}

void main() {
  const uint unit = og_workgroup_index() * OG_RESIZE_WORKGROUP + gl_LocalInvocationID.x;
  if (unit >= p.units) return;
#ifdef BITS16
  const uint word = (p.y_offset >> 1) + unit, end = p.y_offset + p.count;
  uint live = 0u, bits = 0u;
  [[unroll]] for (uint s = 0u; s < 2u; ++s) {
    const uint at = 2u * word + s;
    if (at >= p.y_offset && at < end) {
      live |= 0xffffu << (16u * s);
      bits |= resized(at - p.y_offset) << (16u * s);
    }
  }
  y_words[word] = live == 0xffffffffu ? bits : (bits | (y_words[word] & ~live));
#else
  y_words[p.y_offset + unit] = resized(unit);
#endif
}
