#version 450
// The weights of a group as a matrix with rows t_chan elements long (the depth rounded up for the
// matrix kernels' aligned loads), zeros past the depth: [group][out channel][k]. An invocation per
// 32-bit word of the copy, linear grid; `splits` holds the number of words.
#extension GL_GOOGLE_include_directive : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#ifndef ELEM
#define ELEM 0
#endif
#include "common/half.glsl"
#if ELEM == 0
layout(std430, binding = 1) readonly buffer BufW { float w_data[]; };
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { float t_data[]; };
float load_w(uint i) { return w_data[i]; }
#else
layout(std430, binding = 1) readonly buffer BufW { uint w_words[]; };
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { uint t_words[]; };
float load_w(uint i) { return og_half_at(w_words[i >> 1], i); }
#endif

float weight(uint e) {
  const uint k = e % p.t_chan, row = e / p.t_chan;  // row = group * cout_g + channel
  const uint depth = p.cin_g * p.kh * p.kw;
  return k < depth ? load_w(p.w_off + row * depth + k) : 0.0;
}

void main() {
  const uint w = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (w >= p.splits) return;
#if ELEM == 0
  t_data[p.t_off + w] = weight(w);
#else
  t_words[(p.t_off >> 1) + w] = og_pack_half2(weight(2u * w), weight(2u * w + 1u));
#endif
}
