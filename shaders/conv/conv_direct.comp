#version 450
// Depthwise convolution (one input channel per group, any channel multiplier): an invocation per
// output word, each output element summing its window in row-major tap order, one chain; then the
// epilogue (conv_io.glsl). Linear grid.
#extension GL_GOOGLE_include_directive : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#include "conv/conv_io.glsl"

float conv_value(uint e) {
  const uint pix_count = p.oh * p.ow, cout = p.cout_g * p.groups;
  const uint pix = e % pix_count, bc = e / pix_count;
  const uint c = bc % cout, b = bc / cout;
  const uint oy = pix / p.ow, ox = pix % p.ow;
  const uint g = c / p.cout_g;  // its input channel
  const uint x_base = p.x_off + (b * p.groups + g) * p.ih * p.iw;
  const uint w_base = p.w_off + c * p.kh * p.kw;
  float sum = 0.0;
  for (uint u = 0u; u < p.kh; ++u) {
    const int iy = int(oy * p.sh + u * p.dh) - int(p.ph);
    if (iy < 0 || iy >= int(p.ih)) continue;
    for (uint v = 0u; v < p.kw; ++v) {
      const int ix = int(ox * p.sw + v * p.dw) - int(p.pw);
      if (ix < 0 || ix >= int(p.iw)) continue;
      sum = fma(load_x(x_base + uint(iy) * p.iw + uint(ix)), load_w(w_base + u * p.kw + v), sum);
    }
  }
  return conv_finish(sum, b, c, pix);
}

void main() {
  const uint w = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (w < conv_output_words()) conv_store_word(w);
}
