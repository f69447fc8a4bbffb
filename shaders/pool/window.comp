#version 450
// MaxPool / AveragePool: one invocation per output (float32) or per output word of two halves
// (float16, so a half whose neighbour lies outside y keeps that neighbour's bits). Taps are visited
// in row-major window order; the sum and the maximum are float32.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "pool/pool_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(PoolWindowPush, p);
layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
layout(std430, binding = 1) buffer Y { uint y_words[]; };

#ifdef IN_F16
const float kLowest = -65504.0;
float x_at(uint a) { return og_half_at(x_words[a >> 1], a); }
#else
// The lowest float32 from its bits: naga writes -3.4028235e38 as a literal past float32's range,
// which WGSL refuses.
#define kLowest OG_FLOAT_BITS(0xff7fffffu)
float x_at(uint a) { return uintBitsToFloat(x_words[a]); }
#endif

// The pooled value of output element e (0 <= e < count).
float pooled(uint e) {
  const uint plane_out = p.out_h * p.out_w;
  const uint plane = e / plane_out, r = e - plane * plane_out;
  const uint oh = r / p.out_w, ow = r - oh * p.out_w;
  const uint n = plane / p.channels;
  const uint base = p.x_offset + n * p.x_stride_n + (plane - n * p.channels) * p.x_stride_c;
#ifdef MAX
  float best = 0.0;
  bool any = false, nan_tap = false;
#else
  float sum = 0.0;
  uint real = 0u, padded = 0u;
#endif
  // Positions in the padded input; below padded_h / padded_w (< 2^31) before they are used.
  for (uint kh = 0u; kh < p.kernel_h; ++kh) {
    const uint ph = oh * p.stride_h + kh * p.dilation_h;
    if (ph >= p.padded_h) break;  // ceil-mode overhang: never counts
    const int h = int(ph) - int(p.pad_top);
    const bool row_in = h >= 0 && h < int(p.in_h);
    for (uint kw = 0u; kw < p.kernel_w; ++kw) {
      const uint pw = ow * p.stride_w + kw * p.dilation_w;
      if (pw >= p.padded_w) break;
      const int w = int(pw) - int(p.pad_left);
      if (!row_in || w < 0 || w >= int(p.in_w)) {
#ifndef MAX
        padded += 1u;
#endif
        continue;
      }
      const float v = x_at(base + uint(h) * p.x_stride_h + uint(w) * p.x_stride_w);
#ifdef MAX
      if (og_isnan(v)) {
        nan_tap = true;
      } else if (!any || v > best) {
        best = v;
        any = true;
      }
#else
      sum += v;
      real += 1u;
#endif
    }
  }
#ifdef MAX
  return any ? best : (nan_tap ? OG_FLOAT_BITS(0x7fc00000u) : kLowest);
#else
  const uint divisor = (p.flags & OG_POOL_COUNT_PAD) != 0u ? real + padded : real;
  return divisor == 0u ? OG_FLOAT_BITS(0x7fc00000u) : sum / float(divisor);
#endif
}

void main() {
  const uint unit = og_workgroup_index() * OG_POOL_WORKGROUP + gl_LocalInvocationID.x;
  if (unit >= p.units) return;
#ifdef IN_F16
  const uint word = (p.y_offset >> 1) + unit, end = p.y_offset + p.count;
  uint live = 0u, bits = 0u;
  [[unroll]] for (uint s = 0u; s < 2u; ++s) {
    const uint at = 2u * word + s;
    if (at >= p.y_offset && at < end) {
      live |= 0xffffu << (16u * s);
      bits |= og_f32_to_f16(pooled(at - p.y_offset)) << (16u * s);
    }
  }
  y_words[word] = live == 0xffffffffu ? bits : (bits | (y_words[word] & ~live));
#else
  y_words[p.y_offset + unit] = floatBitsToUint(pooled(unit));
#endif
}
