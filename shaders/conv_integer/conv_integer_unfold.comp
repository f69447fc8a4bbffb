#version 450
// ConvInteger unfold: the byte column matrix of a chunk of images, rows (image, group, k) with
// k = (input channel of the group, kernel row, kernel column), each row the output pixels of that
// tap as bytes, rounded up to whole words. One invocation per 32-bit word: four consecutive pixels
// of one row packed. Taps in the padding, and the bytes past the last pixel, hold x_zero (the
// product subtracts it, so they add nothing). Bytes are copied as they are: the signedness is the
// product's business. Linear grid; `words` holds the number of invocations.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv_integer/conv_integer_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvIntegerPush, p);
layout(std430, binding = 0) readonly buffer BufX { uint x_words[]; };
layout(std430, binding = 1) buffer BufT { uint t_words[]; };
layout(std430, binding = 2) readonly buffer BufZ { uint z_words[]; };

uint x_byte(uint i) { return (x_words[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }

void main() {
  const uint word = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (word >= p.words) return;
  const uint zero = (p.flags & OG_CI_ZERO_BUFFER) != 0u
                        ? (z_words[p.zero_offset >> 2] >> ((p.zero_offset & 3u) * 8u)) & 0xffu
                        : p.zero & 0xffu;
  const uint r = word / p.row_words, in_row = word % p.row_words;
  const uint k = r % p.depth, plane = r / p.depth;  // plane: image * groups + group
  const uint taps = p.kh * p.kw, ci = k / taps, tap = k % taps;
  const int dy = int((tap / p.kw) * p.dh) - int(p.ph), dx = int((tap % p.kw) * p.dw) - int(p.pw);
  // (image * groups + group) * cin_g + ci is the input channel of the whole batch.
  const uint channel = p.x_off + (plane * p.cin_g + ci) * (p.ih * p.iw);
  const uint pixels = p.oh * p.ow;
  uint pix = in_row * 4u;
  uint oy = pix / p.ow, ox = pix % p.ow;
  uint packed = 0u;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint v = zero;
    if (pix < pixels) {
      const int iy = int(oy * p.sh) + dy, ix = int(ox * p.sw) + dx;
      if (iy >= 0 && iy < int(p.ih) && ix >= 0 && ix < int(p.iw)) v = x_byte(channel + uint(iy) * p.iw + uint(ix));
    }
    packed |= v << (8u * j);
    ++pix;
    if (++ox == p.ow) { ox = 0u; ++oy; }
  }
  t_words[p.t_off + word] = packed;
}
