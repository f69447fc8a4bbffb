// Element access for the convolution kernels: ELEM 0 float32, 1 float16 (pairs in 32-bit words,
// no 16-bit storage feature needed). Bindings: 0 x, 1 w (unless CONV_NO_XW), 2 bias, 3 residual,
// 4 y. With CONV_PHASE_W_IN_T (the WebGPU dialect of conv_implicit.comp, whose scratch binding 5
// is declared before) ConvTranspose phases read their weights from the scratch binding rather than
// from w: WebGPU refuses one buffer bound read-only and writable in a dispatch, so the host binds
// w there and the kernel reads the rearranged weights at w_off of the scratch. The epilogue: sum,
// bias, residual, activation, each step rounded to float32.
#ifndef ELEM
#define ELEM 0
#endif
#include "common/activation.glsl"
#include "common/half.glsl"
#if ELEM == 0
#ifndef CONV_NO_XW
layout(std430, binding = 0) readonly buffer BufX { float x_data[]; };
layout(std430, binding = 1) readonly buffer BufW { float w_data[]; };
float load_x(uint i) { return x_data[i]; }
#ifdef CONV_PHASE_W_IN_T
float load_w(uint i) {
  if ((p.flags & OG_CONV_PHASES) != 0u) return t_data[i];
  return w_data[i];
}
#else
float load_w(uint i) { return w_data[i]; }
#endif
#endif
layout(std430, binding = 2) readonly buffer BufBias { float bias_data[]; };
layout(std430, binding = 3) readonly buffer BufRes { float res_data[]; };
layout(std430, binding = 4) buffer BufY { float y_data[]; };
float load_bias(uint i) { return bias_data[i]; }
float load_res(uint i) { return res_data[i]; }
#else
#ifndef CONV_NO_XW
layout(std430, binding = 0) readonly buffer BufX { uint x_words[]; };
layout(std430, binding = 1) readonly buffer BufW { uint w_words[]; };
float load_x(uint i) { return og_half_at(x_words[i >> 1], i); }
#ifdef CONV_PHASE_W_IN_T
float load_w(uint i) {
  if ((p.flags & OG_CONV_PHASES) != 0u) return og_half_at(floatBitsToUint(t_data[i >> 1]), i);
  return og_half_at(w_words[i >> 1], i);
}
#else
float load_w(uint i) { return og_half_at(w_words[i >> 1], i); }
#endif
#endif
layout(std430, binding = 2) readonly buffer BufBias { uint bias_words[]; };
layout(std430, binding = 3) readonly buffer BufRes { uint res_words[]; };
layout(std430, binding = 4) buffer BufY { uint y_words[]; };
float load_bias(uint i) { return og_half_at(bias_words[i >> 1], i); }
float load_res(uint i) { return og_half_at(res_words[i >> 1], i); }
#endif

// Output element (image b of the call, channel c, pixel pix) from its raw sum.
float conv_finish(float sum, uint b, uint c, uint pix) {
  precise float v = sum;
  if ((p.flags & OG_CONV_BIAS) != 0u) v = v + load_bias(p.b_off + c);
  if ((p.flags & OG_CONV_RESIDUAL) != 0u)
    v = v + load_res(p.r_off + (b * p.cout_g * p.groups + c) * (p.oh * p.ow) + pix);
  return og_unary((p.flags >> OG_CONV_ACT_SHIFT) & OG_CONV_ACT_MASK, v, p.act_alpha, p.act_beta);
}

// The output is written a 32-bit word per invocation: `conv_value(e)` gives element e of y (0-based
// in the tensor); float16 words the tensor shares with a neighbour keep the neighbour's half.
float conv_value(uint e);
void conv_store_word(uint word_index) {
#if ELEM == 0
  y_data[p.y_off + word_index] = conv_value(word_index);
#else
  const uint total = p.images * p.cout_g * p.groups * p.oh * p.ow;
  const uint first = p.y_off & 1u;  // the tensor's element 0 is the high half of its first word
  const uint word = (p.y_off >> 1) + word_index;
  const uint e0 = word_index * 2u - first;  // element in the low half (wraps below 0)
  uint bits = y_words[word];
  if (e0 < total) bits = (bits & 0xffff0000u) | og_f32_to_f16(conv_value(e0));
  if (e0 + 1u < total) bits = (bits & 0x0000ffffu) | (og_f32_to_f16(conv_value(e0 + 1u)) << 16);
  y_words[word] = bits;
#endif
}
// Words a call's output spans.
uint conv_output_words() {
  const uint total = p.images * p.cout_g * p.groups * p.oh * p.ow;
#if ELEM == 0
  return total;
#else
  return ((p.y_off & 1u) + total + 1u) >> 1;
#endif
}
