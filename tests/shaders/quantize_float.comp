#version 450
// The quantize family's integer float32 arithmetic (shaders/quantize/exact_float.glsl), one
// operation per dispatch over pairs of bit patterns: out[i] = op(a[2i], a[2i + 1]).
#extension GL_GOOGLE_include_directive : require
#include "common/layout.h"
#include "quantize/exact_float.glsl"
layout(local_size_x = 64) in;
struct QuantizeFloatPush {
  uint op;
  uint count;
};
OG_PUSH_BLOCK(QuantizeFloatPush, p);
layout(std430, binding = 0) readonly buffer In { uint pairs[]; };
layout(std430, binding = 1) buffer Out { uint results[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint a = pairs[2u * i], b = pairs[2u * i + 1u];
  uint r = 0u;
  if (p.op == 0u) r = og_div_f32(a, b);
  else if (p.op == 1u) r = og_mul_f32(a, b);
  else if (p.op == 2u) r = og_add_magnitudes_f32(a, b);
  else if (p.op == 3u) r = og_i32_to_f32(int(a));
  else if (p.op == 4u) r = og_f16_bits_to_f32(a & 0xffffu);
  else r = uint(og_quantize_div(a, b, 1.0 / uintBitsToFloat(b), 0, -1023, 1023));
  results[i] = r;
}
