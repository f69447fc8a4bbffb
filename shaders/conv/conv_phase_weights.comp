#version 450
// ConvTranspose phases: the weights ([in channel][out channel of group][kh][kw]) copied per phase
// (row phase, column phase in order) as an ordinary convolution's, [out channel][in channel of the
// group][sub-kernel row][column] with the phase's taps flipped (conv_view.glsl). An invocation per
// 32-bit word of the copy (t_off: its first element), linear grid; `splits` holds the words.
#extension GL_GOOGLE_include_directive : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#ifndef ELEM
#define ELEM 0
#endif
#include "common/half.glsl"
#include "conv/conv_view.glsl"
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
  const uint cout = p.cout_g * p.groups, per_tap = cout * p.cin_g;
  if (e >= per_tap * p.kh * p.kw) return 0.0;
  uint rest = e, rh = 0u, rw = 0u, th = 0u, tw = 0u;
  for (; rh < p.sh; ++rh) {
    th = conv_phase_taps(rh, p.sh, p.kh);
    if (rest < per_tap * th * p.kw) break;
    rest -= per_tap * th * p.kw;
  }
  for (; rw < p.sw; ++rw) {
    tw = conv_phase_taps(rw, p.sw, p.kw);
    if (rest < per_tap * th * tw) break;
    rest -= per_tap * th * tw;
  }
  const uint jw = rest % tw, jh = (rest / tw) % th, ci = (rest / (tw * th)) % p.cin_g;
  const uint c = rest / (tw * th * p.cin_g);
  const uint g = c / p.cout_g, col = c % p.cout_g;
  const uint u = rh + p.sh * (th - 1u - jh), v = rw + p.sw * (tw - 1u - jw);
  return load_w(p.w_off + (((g * p.cin_g + ci) * p.cout_g + col) * p.kh + u) * p.kw + v);
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
