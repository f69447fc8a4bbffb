#version 450
// GlobalAveragePool / GlobalMaxPool: `threads` invocations per plane fold strided slices of the
// plane in index order, then a fixed halving tree in workgroup memory combines them. A workgroup
// takes `group_planes` consecutive positions of y from y_base, so it owns whole words of y.
#extension GL_GOOGLE_include_directive : require
#include "pool/pool_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(PoolGlobalPush, p);
layout(std430, binding = 0) readonly buffer X { uint x_words[]; };
layout(std430, binding = 1) buffer Y { uint y_words[]; };

shared float partial[OG_POOL_WORKGROUP];

#ifdef IN_F16
float x_at(uint a) { return og_half_at(x_words[a >> 1], a); }
#else
float x_at(uint a) { return uintBitsToFloat(x_words[a]); }
#endif

#ifdef MAX
// NaN is "nothing yet": the result is NaN only when every element is.
float combine(float a, float b) {
  if (og_isnan(a)) return b;
  if (og_isnan(b)) return a;
  return b > a ? b : a;
}
#define kIdentity OG_FLOAT_BITS(0x7fc00000u)
#else
float combine(float a, float b) { return a + b; }
const float kIdentity = 0.0;
#endif

// Whether y position `at` (an element index of y's buffer) holds an output.
bool live(uint at) { return at >= p.y_offset && at - p.y_offset < p.planes; }

void main() {
  const uint wg = og_workgroup_index();
  if (wg >= p.workgroups) return;
  const uint t = gl_LocalInvocationID.x;
  const uint slot = t / p.threads, lane = t - slot * p.threads;
  const uint at = p.y_base + wg * p.group_planes + slot;
  float acc = kIdentity;
  if (slot < p.group_planes && live(at)) {
    const uint plane = at - p.y_offset, n = plane / p.channels;
    const uint base = p.x_offset + n * p.x_stride_n + (plane - n * p.channels) * p.x_stride_c;
    if (p.x_stride_w == 1u && p.x_stride_h == p.width) {  // a contiguous plane
      for (uint i = lane; i < p.plane_size; i += p.threads) acc = combine(acc, x_at(base + i));
    } else {
      for (uint i = lane; i < p.plane_size; i += p.threads) {
        const uint h = i / p.width;
        acc = combine(acc, x_at(base + h * p.x_stride_h + (i - h * p.width) * p.x_stride_w));
      }
    }
  }
  partial[t] = acc;
  for (uint s = p.threads >> 1; s > 0u; s >>= 1) {
    barrier();
    if (lane < s) partial[t] = combine(partial[t], partial[t + s]);
  }
  barrier();
  if (lane != 0u || slot >= p.group_planes) return;
#ifdef IN_F16
  if ((at & 1u) != 0u) return;  // the even position writes the word
  uint bits = 0u, mask = 0u;
  for (uint s = 0u; s < 2u; ++s) {
    if (!live(at + s)) continue;
    float r = partial[(slot + s) * p.threads];
#ifndef MAX
    r = r / float(p.plane_size);
#endif
    bits |= og_f32_to_f16(r) << (16u * s);
    mask |= 0xffffu << (16u * s);
  }
  if (mask != 0u) y_words[at >> 1] = mask == 0xffffffffu ? bits : (bits | (y_words[at >> 1] & ~mask));
#else
  if (!live(at)) return;
  float r = partial[t];
#ifndef MAX
  r = r / float(p.plane_size);
#endif
  y_words[at] = floatBitsToUint(r);
#endif
}
