#version 450
// Unfold: the column matrix of a chunk of images, [group][k][n] with k = (input channel of the
// group, kernel row, kernel column) and n = image * pixels + pixel, rows t_chan elements apart (a
// multiple of 8; columns past the last pixel and rows past the group's depth, up to t_image rows
// per group, hold zeros), padded taps zero. Elements of the input type. An invocation writes up to
// RUNS runs of eight consecutive columns of one row: the row's tap is decoded once and the pixel
// advances by steps. Linear grid; `splits` holds the number of invocations (rows times
// ceil(runs per row / RUNS)).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#ifndef ELEM
#define ELEM 0
#endif
#include "common/half.glsl"
#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufX { float x_data[]; };
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { float t_data[]; };
float load_x(uint i) { return x_data[i]; }
#else
layout(std430, binding = 0) readonly buffer BufX { uint x_words[]; };
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { uint t_words[]; };
float load_x(uint i) { return og_half_at(x_words[i >> 1], i); }
#endif

// Runs of eight columns an invocation writes (consecutive in one row). One measured fastest on an
// H200: four per invocation spread each warp's stores and ran 1.5x slower.
#define RUNS 1u

void main() {
  const uint group_index = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint runs_per_row = p.t_chan / 8u, slots_per_row = (runs_per_row + RUNS - 1u) / RUNS;
  if (group_index >= p.splits) return;
  const uint gk = group_index / slots_per_row, first_run = (group_index % slots_per_row) * RUNS;
  const uint k = gk % p.t_image, g = gk / p.t_image;
  const uint taps = p.kh * p.kw, pix_count = p.oh * p.ow, n_count = p.images * pix_count;
  const bool live_row = k < p.cin_g * taps;
  const uint ci = k / taps, tap = k % taps;
  const int dy = int((tap / p.kw) * p.dh) - int(p.ph), dx = int((tap % p.kw) * p.dw) - int(p.pw);
  uint n = first_run * 8u;
  uint b = n / pix_count, pix = n % pix_count;
  uint oy = pix / p.ow, ox = pix % p.ow;
  const uint last_run = min(first_run + RUNS, runs_per_row);
  for (uint r = first_run; r < last_run; ++r) {
    float v[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
      v[j] = 0.0;
      if (live_row && n < n_count) {
        const int iy = int(oy * p.sh) + dy, ix = int(ox * p.sw) + dx;
        if (iy >= 0 && iy < int(p.ih) && ix >= 0 && ix < int(p.iw))
          v[j] = load_x(p.x_off + ((b * p.groups + g) * p.cin_g + ci) * p.ih * p.iw + uint(iy) * p.iw + uint(ix));
      }
      // The next column's pixel.
      ++n;
      if (++ox == p.ow) {
        ox = 0u;
        if (++oy == p.oh) { oy = 0u; ++b; }
      }
    }
    const uint first = gk * p.t_chan + r * 8u;  // element of the run's first column
#if ELEM == 0
    [[unroll]] for (uint j = 0u; j < 8u; ++j) t_data[p.t_off + first + j] = v[j];
#else
    // t_off and t_chan are even: the run is four whole words.
    const uint w = (p.t_off + first) >> 1;
    [[unroll]] for (uint j = 0u; j < 4u; ++j) t_words[w + j] = og_pack_half2(v[2u * j], v[2u * j + 1u]);
#endif
  }
}
