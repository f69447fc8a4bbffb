#version 450
// DequantizeLinear: y = float(x - zero_point) * scale, the subtraction wrapping in 32 bits, the
// conversion and the product rounded to nearest even (exact_float.glsl where a device's float
// arithmetic could flush a subnormal), then rounded to half for OUT_F16. An invocation owns whole
// groups of four outputs aligned in y's buffer, so a half output's neighbours keep their bits. A
// workgroup takes 1024 consecutive groups at a time, four per invocation 256 apart; with one scale
// and x and y aligned alike, a step wholly inside y reads each group as one word (bytes) or vector
// (int32), the four loads issued before any arithmetic, and stores it as one vector; the others go
// element by element.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "quantize/quantize_push.h"
#include "quantize/exact_float.glsl"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(QuantizePush, p);
layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
#if IN_BITS == 32
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
#endif
layout(std430, binding = 2) readonly buffer Scale { uint scale_words[]; };
layout(std430, binding = 3) readonly buffer Zero { uint zero_words[]; };
layout(std430, binding = 4) buffer Y { uint y_words[]; };
#ifdef OG_WEBGPU
// WebGPU refuses one buffer in two writable bindings of a dispatch: the host binds another buffer
// to YV there (ComputeCapabilities::aliased_writable_bindings), and a group's words go through Y.
// YV is declared as words, unwritten, and read-write (naga has no write-only storage).
layout(std430, binding = 5) buffer YV { uint y_vector_words[]; };
#ifdef OUT_F16
void store_vector(uint g, uvec2 h) {
  y_words[2u * g] = h.x;
  y_words[2u * g + 1u] = h.y;
}
#else
void store_vector(uint g, uvec4 v) {
  [[unroll]] for (uint s = 0u; s < 4u; ++s) y_words[4u * g + s] = v[s];
}
#endif
#else
#ifdef OUT_F16
layout(std430, binding = 5) writeonly buffer YV { uvec2 y_vectors[]; };
void store_vector(uint g, uvec2 h) { y_vectors[g] = h; }
#else
layout(std430, binding = 5) writeonly buffer YV { uvec4 y_vectors[]; };
void store_vector(uint g, uvec4 v) { y_vectors[g] = v; }
#endif
#endif

int byte_value(uint word, uint i) {
  const uint b = (word >> ((i & 3u) * 8u)) & 0xffu;
  return (p.codes & OG_QUANT_SIGNED) != 0u ? int(b << 24) >> 24 : int(b);
}

// Element a of the buffer (x's or the zero point's type).
int x_at(uint a) {
#if IN_BITS == 8
  return byte_value(x_words[a >> 2], a);
#else
  return int(x_words[a]);
#endif
}

int zero_at(uint i) {
  if ((p.codes & OG_QUANT_ZERO) == 0u) return 0;
  const uint a = p.zero_offset + i;
#if IN_BITS == 8
  return byte_value(zero_words[a >> 2], a);
#else
  return int(zero_words[a]);
#endif
}

// Binary32 bits of float(d) * scale.
uint dequantize(int d, uint scale) {
  // Exact in float for |d| <= 2^24 (every 8-bit difference); beyond, rounded by hand.
  const uint f = uint(d + 16777216) <= 33554432u ? floatBitsToUint(float(d)) : og_i32_to_f32(d);
  const uint e = (scale >> 23) & 0xffu;
  if (e >= 1u && e <= 254u) {
    const float v = uintBitsToFloat(f) * uintBitsToFloat(scale);
    if (d == 0 || abs(v) >= 1.17549435e-38) return floatBitsToUint(v);
  }
  return og_mul_f32(f, scale);
}

// Stores group g's four float32 bit patterns (rounded to half for OUT_F16); `whole`: every element
// is y's, else only y's elements are written.
void store_group(uint g, uvec4 v, bool whole) {
  const uint end = p.y_offset + p.count;
  const uint e0 = g * 4u;
#ifdef OUT_F16
  const uvec2 h = uvec2(og_pack_half2(uintBitsToFloat(v.x), uintBitsToFloat(v.y)),
                        og_pack_half2(uintBitsToFloat(v.z), uintBitsToFloat(v.w)));
  if (whole) {
    store_vector(g, h);
  } else {
    [[unroll]] for (uint k = 0u; k < 2u; ++k) {
      uint live = 0u;
      [[unroll]] for (uint s = 0u; s < 2u; ++s)
        if (e0 + 2u * k + s >= p.y_offset && e0 + 2u * k + s < end) live |= 0xffffu << (16u * s);
      if (live != 0u) y_words[2u * g + k] = (h[k] & live) | (y_words[2u * g + k] & ~live);
    }
  }
#else
  if (whole) {
    store_vector(g, v);
  } else {
    [[unroll]] for (uint s = 0u; s < 4u; ++s)
      if (e0 + s >= p.y_offset && e0 + s < end) y_words[e0 + s] = v[s];
  }
#endif
}

// Output group g (elements 4 g .. 4 g + 3 of y's buffer).
void dequantize_group(uint g, uint scale_in, int zero_in, bool per_axis) {
  uint scale = scale_in;
  int zero = zero_in;
  const bool aligned = (p.codes & OG_QUANT_ALIGNED) != 0u;
  const uint end = p.y_offset + p.count;
  const uint e0 = g * 4u;
  const bool whole = e0 >= p.y_offset && e0 + 4u <= end;
  ivec4 x = ivec4(0);
  if (whole && aligned) {
    const uint a = p.x_offset + (e0 - p.y_offset);  // a multiple of 4
#if IN_BITS == 8
    const uint w = x_words[a >> 2];
    x = ivec4(byte_value(w, 0u), byte_value(w, 1u), byte_value(w, 2u), byte_value(w, 3u));
#else
    x = ivec4(x_vector(a >> 2));
#endif
  } else {
    [[unroll]] for (uint s = 0u; s < 4u; ++s)
      if (e0 + s >= p.y_offset && e0 + s < end) x[s] = x_at(p.x_offset + (e0 + s - p.y_offset));
  }
  uvec4 v = uvec4(0u);
  [[unroll]] for (uint s = 0u; s < 4u; ++s) {
    const uint at = e0 + s;
    if (at < p.y_offset || at >= end) continue;
    if (per_axis) {
      const uint c = ((at - p.y_offset) / p.inner) % p.axis_length;
      scale = scale_words[p.scale_offset + c];
      zero = zero_at(c);
    }
    v[s] = dequantize(x[s] - zero, scale);
  }
  store_group(g, v, whole);
}

void main() {
  const uint wg = og_workgroup_index();
  if (wg >= p.workgroups) return;
  const bool per_axis = (p.codes & OG_QUANT_PER_AXIS) != 0u;
  const uint scale = scale_words[p.scale_offset];
  const int zero = zero_at(0u);
  const bool fast = (p.codes & OG_QUANT_ALIGNED) != 0u && !per_axis;
  const uint end = p.y_offset + p.count;
  const uint first = p.y_offset >> 2, last = (end + 3u) >> 2;
  // Workgroup steps of 1024 groups: invocation t takes groups t, t + 256, t + 512, t + 768, so every
  // load and store of a subgroup is contiguous.
  const uint lid = gl_LocalInvocationID.x, chunk = 4u * OG_QUANT_WORKGROUP;
  for (uint c = first / chunk + wg; c * chunk < last; c += p.workgroups) {
    const uint g0 = c * chunk, e0 = g0 * 4u;
    if (fast && e0 >= p.y_offset && e0 + 4u * chunk <= end) {
      const uint a = (p.x_offset + (e0 - p.y_offset)) >> 2;  // x's group of g0
      ivec4 x[4];
#if IN_BITS == 8
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        const uint w = x_words[a + lid + q * 256u];
        x[q] = ivec4(byte_value(w, 0u), byte_value(w, 1u), byte_value(w, 2u), byte_value(w, 3u));
      }
#else
      [[unroll]] for (uint q = 0u; q < 4u; ++q) x[q] = ivec4(x_vector(a + lid + q * 256u));
#endif
      [[unroll]] for (uint q = 0u; q < 4u; ++q)
        store_group(g0 + lid + q * 256u,
                    uvec4(dequantize(x[q].x - zero, scale), dequantize(x[q].y - zero, scale),
                          dequantize(x[q].z - zero, scale), dequantize(x[q].w - zero, scale)),
                    true);
    } else {
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        const uint g = g0 + lid + q * 256u;
        if (g >= first && g < last) dequantize_group(g, scale, zero, per_axis);
      }
    }
  }
}
