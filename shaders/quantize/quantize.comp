#version 450
// QuantizeLinear (and the second pass of DynamicQuantizeLinear, DYNAMIC): y = saturate(
// round_half_even(x / scale) + zero_point) with the correctly rounded quotient (exact_float.glsl).
// An invocation owns whole output words (four bytes), so elements outside y that share its first or
// last word keep their bytes without atomics. A workgroup takes 1024 consecutive words at a time,
// four per invocation 256 apart; with one scale and x and y aligned alike, a step wholly inside y
// reads each word's four inputs as one vector (the four loads issued before any arithmetic), decides
// the bytes it can without the exact division and divides the rest exactly in one loop; the others
// go element by element.
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
#ifdef IN_F16
uvec2 x_vector(uint g) { return uvec2(x_words[2u * g], x_words[2u * g + 1u]); }
#else
uvec4 x_vector(uint g) { return uvec4(x_words[4u * g], x_words[4u * g + 1u], x_words[4u * g + 2u], x_words[4u * g + 3u]); }
#endif
#else
#ifdef IN_F16
layout(std430, binding = 1) readonly buffer XV { uvec2 x_vectors[]; };
#else
layout(std430, binding = 1) readonly buffer XV { uvec4 x_vectors[]; };
#endif
#define x_vector(g) x_vectors[g]
#endif
#ifdef DYNAMIC
layout(std430, binding = 2) readonly buffer Partials { uint partials[]; };
layout(std430, binding = 3) buffer Y { uint y_words[]; };
layout(std430, binding = 4) buffer YScale { uint y_scale_words[]; };
layout(std430, binding = 5) buffer YZero { uint y_zero_words[]; };
#include "quantize/minmax.glsl"
#else
layout(std430, binding = 2) readonly buffer Scale { uint scale_words[]; };
layout(std430, binding = 3) readonly buffer Zero { uint zero_words[]; };
layout(std430, binding = 4) buffer Y { uint y_words[]; };
#endif

// x's element i (from x_offset) as binary32 bits.
uint x_at(uint i) {
  const uint a = p.x_offset + i;
#ifdef IN_F16
  return og_f16_bits_to_f32((x_words[a >> 1] >> ((a & 1u) * 16u)) & 0xffffu);
#else
  return x_words[a];
#endif
}

// Input elements 4g .. 4g + 3 of the buffer's aligned groups, for an aligned x.
uvec4 x_group(uint g) {
#ifdef IN_F16
  const uvec2 v = x_vector(g);
  return uvec4(og_f16_bits_to_f32(v.x & 0xffffu), og_f16_bits_to_f32(v.x >> 16), og_f16_bits_to_f32(v.y & 0xffffu),
               og_f16_bits_to_f32(v.y >> 16));
#else
  return x_vector(g);
#endif
}

#ifndef DYNAMIC
int zero_at(uint i) {
  if ((p.codes & OG_QUANT_ZERO) == 0u) return 0;
  const uint a = p.zero_offset + i;
  const uint b = (zero_words[a >> 2] >> ((a & 3u) * 8u)) & 0xffu;
  return (p.codes & OG_QUANT_SIGNED) != 0u ? int(b << 24) >> 24 : int(b);
}
#endif

// Output word `word` (elements 4 word .. 4 word + 3 of y's buffer), element by element.
void quantize_word(uint word, uint scale_in, int zero_in, float inv_in, bool per_axis, int lo, int hi) {
  uint scale = scale_in;
  int zero = zero_in;
  float inv = inv_in;
  const bool aligned = (p.codes & OG_QUANT_ALIGNED) != 0u;
  const uint end = p.y_offset + p.count;
  const uint e0 = word * 4u;
  const bool whole = e0 >= p.y_offset && e0 + 4u <= end;
  uvec4 x = uvec4(0u);
  if (whole && aligned) {
    x = x_group((p.x_offset + (e0 - p.y_offset)) >> 2);
  } else {
    [[unroll]] for (uint s = 0u; s < 4u; ++s)
      if (e0 + s >= p.y_offset && e0 + s < end) x[s] = x_at(e0 + s - p.y_offset);
  }
  uint result = 0u, live = 0u;
  [[unroll]] for (uint s = 0u; s < 4u; ++s) {
    const uint at = e0 + s;
    if (at < p.y_offset || at >= end) continue;
    if (per_axis) {
#ifndef DYNAMIC
      const uint c = ((at - p.y_offset) / p.inner) % p.axis_length;
      scale = scale_words[p.scale_offset + c];
      zero = zero_at(c);
      inv = 1.0 / uintBitsToFloat(scale);
#endif
    }
    live |= 0xffu << (s * 8u);
    result |= (uint(og_quantize_div(x[s], scale, inv, zero, lo, hi)) & 0xffu) << (s * 8u);
  }
  if (live != 0xffffffffu) result |= y_words[word] & ~live;
  y_words[word] = result;
}

// Four elements by the fast decision; the bits of those it leaves undecided set in `undecided`
// from bit `first` on.
uint quantize4(uvec4 x, uint scale, float inv, int zero, int lo, int hi, inout uint undecided, uint first) {
  uint r = 0u;
  [[unroll]] for (uint s = 0u; s < 4u; ++s) {
    bool decided;
    r |= (uint(og_quantize_fast(x[s], scale, inv, zero, lo, hi, decided)) & 0xffu) << (8u * s);
    if (!decided) undecided |= 1u << (first + s);
  }
  return r;
}

void main() {
  const uint wg = og_workgroup_index();
  if (wg >= p.workgroups) return;
#ifdef DYNAMIC
  const uvec2 q = og_dynamic_parameters(p.partials);  // scale bits, zero point (every workgroup)
  if (wg == 0u && gl_LocalInvocationID.x == 0u) {
    y_scale_words[p.scale_offset] = q.x;
    const uint a = p.zero_offset, shift = (a & 3u) * 8u;
    y_zero_words[a >> 2] = (y_zero_words[a >> 2] & ~(0xffu << shift)) | (q.y << shift);
  }
  const bool per_axis = false;
  const uint scale = q.x;
  const int zero = int(q.y);
#else
  const bool per_axis = (p.codes & OG_QUANT_PER_AXIS) != 0u;
  const uint scale = scale_words[p.scale_offset];
  const int zero = zero_at(0u);
#endif
  const float inv = 1.0 / uintBitsToFloat(scale);
  const bool is_signed = (p.codes & OG_QUANT_SIGNED) != 0u;
  const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const bool fast = (p.codes & OG_QUANT_ALIGNED) != 0u && !per_axis;
  const uint end = p.y_offset + p.count;
  const uint first = p.y_offset >> 2, last = (end + 3u) >> 2;
  const uint stride = p.workgroups * OG_QUANT_WORKGROUP;
  // Workgroup steps of 1024 output words: invocation t takes words t, t + 256, t + 512, t + 768, so
  // every load and store of a subgroup is contiguous.
  const uint lid = gl_LocalInvocationID.x, chunk = 4u * OG_QUANT_WORKGROUP;
  for (uint c = first / chunk + wg; c * chunk < last; c += p.workgroups) {
    const uint w0 = c * chunk, e0 = w0 * 4u;
    if (fast && e0 >= p.y_offset && e0 + 4u * chunk <= end) {
      const uint g = ((p.x_offset + (e0 - p.y_offset)) >> 2) + lid;
      const uvec4 x0 = x_group(g), x1 = x_group(g + 256u), x2 = x_group(g + 512u), x3 = x_group(g + 768u);
      uint undecided = 0u;
      y_words[w0 + lid] = quantize4(x0, scale, inv, zero, lo, hi, undecided, 0u);
      y_words[w0 + lid + 256u] = quantize4(x1, scale, inv, zero, lo, hi, undecided, 4u);
      y_words[w0 + lid + 512u] = quantize4(x2, scale, inv, zero, lo, hi, undecided, 8u);
      y_words[w0 + lid + 768u] = quantize4(x3, scale, inv, zero, lo, hi, undecided, 12u);
      // The few elements near a half-integer: divided exactly, in one loop (one copy of the
      // division's code), their bytes rewritten in the words this invocation owns.
      while (undecided != 0u) {
        const uint i = uint(og_find_lsb(undecided)), q = i >> 2, s = i & 3u;
        undecided &= undecided - 1u;
        const int v = og_quantize_bits(og_div_f32(x_group(g + q * 256u)[s], scale), zero, lo, hi);
        const uint word = w0 + lid + q * 256u;
        y_words[word] = bitfieldInsert(y_words[word], uint(v) & 0xffu, int(8u * s), 8);
      }
    } else {
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        const uint word = w0 + lid + q * 256u;
        if (word >= first && word < last) quantize_word(word, scale, zero, inv, per_axis, lo, hi);
      }
    }
  }
}
