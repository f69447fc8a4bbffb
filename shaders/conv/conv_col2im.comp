#version 450
// ConvTranspose, second pass: each output element gathers the products of the taps that reach it
// (row-major tap order, one chain; no atomics) from the column matrix the product wrote
// ([image][group][out channel of group, tap][input pixel]), then the epilogue. Here ih/iw are the
// input extents, oh/ow the output's, ph/pw the pads at the beginning. Linear grid.
#extension GL_GOOGLE_include_directive : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#define CONV_NO_XW
#include "conv/conv_io.glsl"
layout(std430, binding = 5) readonly buffer BufT { float t_data[]; };

float conv_value(uint e) {
  const uint pix_count = p.oh * p.ow, cout = p.cout_g * p.groups;
  const uint pix = e % pix_count, bc = e / pix_count;
  const uint c = bc % cout, b = bc / cout;
  const uint oy = pix / p.ow, ox = pix % p.ow;
  const uint g = c / p.cout_g, cl = c % p.cout_g;
  const uint taps = p.kh * p.kw;
  const uint base = p.t_off + b * p.t_image + (g * p.cout_g + cl) * taps * p.t_chan;
  float sum = 0.0;
  for (uint u = 0u; u < p.kh; ++u) {
    const int ty = int(oy + p.ph) - int(u * p.dh);
    if (ty < 0 || ty % int(p.sh) != 0) continue;
    const uint iy = uint(ty) / p.sh;
    if (iy >= p.ih) continue;
    for (uint v = 0u; v < p.kw; ++v) {
      const int tx = int(ox + p.pw) - int(v * p.dw);
      if (tx < 0 || tx % int(p.sw) != 0) continue;
      const uint ix = uint(tx) / p.sw;
      if (ix >= p.iw) continue;
      sum = sum + t_data[base + (u * p.kw + v) * p.t_chan + iy * p.iw + ix];
    }
  }
  return conv_finish(sum, b, c, pix);
}

void main() {
  const uint w = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (w < conv_output_words()) conv_store_word(w);
}
