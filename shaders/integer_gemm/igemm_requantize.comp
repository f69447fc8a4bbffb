#version 450
// The requantized form's second pass: int32 sums (bias included) from the scratch buffer to 8-bit
// Y, clamp(round_half_even(float(sum) * multiplier) + zero_point). One invocation per word a row
// of Y can touch; a word wholly inside the row is stored, a partial one changes only its own bytes
// (atomic AND, then OR), so neighbouring elements outside Y, or of the next row in the same word,
// keep their values.
#extension GL_GOOGLE_include_directive : require
#include "integer_gemm/igemm_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RequantizePush, p);
layout(std430, binding = 0) readonly buffer BufSums { int sums[]; };
layout(std430, binding = 1) buffer BufY { uint y_words[]; };
layout(std430, binding = 2) readonly buffer BufMul { float mul_data[]; };

uint quantize(int sum, uint col) {
  float mul = p.multiplier;
  if ((p.flags & OG_IG_MUL_BUFFER) != 0u) mul = mul_data[p.multiplier_offset + ((p.flags & OG_IG_MUL_PER_COL) != 0u ? col : 0u)];
  precise float scaled = float(sum) * mul;
  const bool is_signed = (p.flags & OG_IG_Y_SIGNED) != 0u;
  const float lo = is_signed ? -128.0 : 0.0, hi = is_signed ? 127.0 : 255.0;
  // Rounded first, then the zero point: both exact in float once clamped to a small range.
  const float r = clamp(roundEven(scaled), -1024.0, 1024.0) + float(int(p.zero_point));
  return uint(int(clamp(r, lo, hi))) & 0xffu;
}

void main() {
  const uint t = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (t >= p.threads) return;
  const uint line = t / p.words_per_row, w = t % p.words_per_row;
  const uint bz = line / p.m, row = line % p.m;
  const uint start = p.offset_y + bz * p.stride_y + row * p.ldy;  // byte of column 0
  const uint word = (start >> 2) + w;
  uint bits = 0u, mask = 0u;
  for (uint q = 0u; q < 4u; ++q) {
    const uint byte = word * 4u + q;
    if (byte < start || byte >= start + p.n) continue;
    const uint col = byte - start;
    bits |= quantize(sums[line * p.n + col], col) << (8u * q);
    mask |= 0xffu << (8u * q);
  }
  if (mask == 0xffffffffu) {
    y_words[word] = bits;
  } else if (mask != 0u) {
    atomicAnd(y_words[word], ~mask);
    atomicOr(y_words[word], bits);
  }
}
