#version 450
// One output of a layer (Y, Y_h or Y_c) from the state: its layout, zeros past each sequence's
// length, rounding to half. An invocation owns one output word, so a half output that starts or
// ends inside a word keeps the neighbouring half.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "recurrent/recurrent_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RecurrentPush, p);
layout(std430, binding = 0) readonly buffer State { float state[]; };
layout(std430, binding = 1) readonly buffer Lengths { int lens[]; };
layout(std430, binding = 2) buffer Out { uint out_words[]; };

#include "recurrent/common.glsl"

// Element e of the output.
float value(uint e) {
  const uint H = p.hidden, B = p.batch, D = p.dirs, unit = e % H;
  const bool layout1 = (p.flags & OG_RNN_LAYOUT1) != 0u;
  uint d, b;
  if (p.kind == OG_RNN_OUT_Y) {
    // [seq][dirs][batch][hidden], or [batch][seq][dirs][hidden] in layout 1.
    uint t;
    if (layout1) {
      d = (e / H) % D;
      t = (e / (H * D)) % p.seq;
      b = e / (H * D * p.seq);
    } else {
      b = (e / H) % B;
      d = (e / (H * B)) % D;
      t = e / (H * B * D);
    }
    if (t >= OG_RNN_LENGTH(b) || t >= p.step) return 0.0;
    return state[p.state_offset + p.y_base + ((t * D + d) * B + b) * H + unit];
  }
  // [dirs][batch][hidden], or [batch][dirs][hidden] in layout 1.
  if (layout1) {
    d = (e / H) % D;
    b = e / (H * D);
  } else {
    b = (e / H) % B;
    d = e / (H * B);
  }
  if ((p.flags & OG_RNN_ZERO_EMPTY) != 0u && OG_RNN_LENGTH(b) == 0u) return 0.0;
  const uint dbh = D * B * H;
  const uint base = p.kind == OG_RNN_OUT_YH ? (p.step & 1u) * dbh : 2u * dbh;
  return state[p.state_offset + base + (d * B + b) * H + unit];
}

void main() {
  const uint count = p.kind == OG_RNN_OUT_Y ? p.seq * p.dirs * p.batch * p.hidden : p.dirs * p.batch * p.hidden;
  const uint i = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
#ifdef F16
  const uint first = p.out_offset >> 1u, words = ((p.out_offset + count + 1u) >> 1u) - first;
  if (i >= words) return;
  const uint w = first + i;
  uint bits = out_words[w];
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    const uint element = 2u * w + h;
    if (element < p.out_offset || element >= p.out_offset + count) continue;
    const uint shift = 16u * h;
    bits = (bits & ~(0xffffu << shift)) | (og_f32_to_f16(value(element - p.out_offset)) << shift);
  }
  out_words[w] = bits;
#else
  if (i >= count) return;
  out_words[p.out_offset + i] = floatBitsToUint(value(i));
#endif
}
