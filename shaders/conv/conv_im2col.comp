#version 450
// Unfold: the column matrix of a chunk of images, [group][k][n] with k = (input channel of the
// group, kernel row, kernel column) and n = image * pixels + pixel, rows t_chan elements apart (a
// multiple of 8; the columns past the last pixel hold zeros), padded taps zero. Elements of the
// input type (float16 two to a word). An invocation per word, linear grid.
#extension GL_GOOGLE_include_directive : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { ConvPush p; };
#ifndef ELEM
#define ELEM 0
#endif
#include "common/half.glsl"
#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufX { float x_data[]; };
layout(std430, binding = 5) writeonly buffer BufT { float t_data[]; };
float load_x(uint i) { return x_data[i]; }
#else
layout(std430, binding = 0) readonly buffer BufX { uint x_words[]; };
layout(std430, binding = 5) writeonly buffer BufT { uint t_words[]; };
float load_x(uint i) { return og_half_at(x_words[i >> 1], i); }
#endif

float column(uint e) {
  const uint n = e % p.t_chan, gk = e / p.t_chan;
  const uint pix_count = p.oh * p.ow;
  if (n >= p.images * pix_count) return 0.0;
  const uint taps = p.kh * p.kw, k_count = p.cin_g * taps;
  const uint k = gk % k_count, g = gk / k_count;
  const uint ci = k / taps, t = k % taps;
  const uint u = t / p.kw, v = t % p.kw;
  const uint b = n / pix_count, pix = n % pix_count;
  const int iy = int((pix / p.ow) * p.sh + u * p.dh) - int(p.ph);
  const int ix = int((pix % p.ow) * p.sw + v * p.dw) - int(p.pw);
  if (iy < 0 || iy >= int(p.ih) || ix < 0 || ix >= int(p.iw)) return 0.0;
  return load_x(p.x_off + ((b * p.groups + g) * p.cin_g + ci) * p.ih * p.iw + uint(iy) * p.iw + uint(ix));
}

void main() {
  const uint w = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  // splits holds the number of words to write (the host's count, below 2^32).
  if (w >= p.splits) return;
#if ELEM == 0
  t_data[p.t_off + w] = column(w);
#else
  // t_off and t_chan are even: a word holds two columns of one row.
  t_words[(p.t_off >> 1) + w] = og_pack_half2(column(2u * w), column(2u * w + 1u));
#endif
}
