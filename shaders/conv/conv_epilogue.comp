#version 450
// The epilogue pass: for each output element the raw sums of its split planes (or the product's
// float32 accumulators), added in plane order, then bias, residual and activation, stored as the
// output type. An invocation per output word, linear grid.
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
  const uint i = p.t_off + b * p.t_image + c * p.t_chan + pix;
  float sum = t_data[i];
  for (uint s = 1u; s < p.splits; ++s) sum = sum + t_data[i + s * p.t_plane];
  return conv_finish(sum, b, c, pix);
}

void main() {
  const uint w = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (w < conv_output_words()) conv_store_word(w);
}
