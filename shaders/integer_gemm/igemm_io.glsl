// What every 8-bit product kernel shares: the bindings, byte reads, zero points and the store of
// one finished sum in the int32 or float-scaled form.
#include "common/rounded.glsl"
layout(std430, binding = 0) readonly buffer BufA { uint a_words[]; };
layout(std430, binding = 1) readonly buffer BufB { uint b_words[]; };
layout(std430, binding = 2) buffer BufC { uint c_words[]; };
layout(std430, binding = 3) readonly buffer BufZa { uint za_words[]; };
layout(std430, binding = 4) readonly buffer BufZb { uint zb_words[]; };
layout(std430, binding = 5) readonly buffer BufScale { float scale_data[]; };
layout(std430, binding = 6) readonly buffer BufIntBias { int int_bias_data[]; };
layout(std430, binding = 7) readonly buffer BufBias { float bias_data[]; };

uint raw_byte(uint word, uint i) { return bitfieldExtract(word, int((i & 3u) * 8u), 8); }
int to_value(uint byte, bool is_signed) { return is_signed ? bitfieldExtract(int(byte), 0, 8) : int(byte); }

int load_a(uint i) { return to_value(raw_byte(a_words[i >> 2], i), (p.flags & OG_IG_A_SIGNED) != 0u); }
int load_b(uint i) { return to_value(raw_byte(b_words[i >> 2], i), (p.flags & OG_IG_B_SIGNED) != 0u); }

// Zero point of row `row` of op(A) / column `col` of op(B).
int zero_a(uint row) {
  const uint mode = (p.flags >> OG_IG_ZA_SHIFT) & OG_IG_ZP_MASK;
  if (mode == OG_IG_ZP_VALUE) return int(p.zero_a);
  const uint i = p.zero_a_offset + (mode == OG_IG_ZP_PER_CHANNEL ? row : 0u);
  return to_value(raw_byte(za_words[i >> 2], i), (p.flags & OG_IG_A_SIGNED) != 0u);
}
int zero_b(uint col) {
  const uint mode = (p.flags >> OG_IG_ZB_SHIFT) & OG_IG_ZP_MASK;
  if (mode == OG_IG_ZP_VALUE) return int(p.zero_b);
  const uint i = p.zero_b_offset + (mode == OG_IG_ZP_PER_CHANNEL ? col : 0u);
  return to_value(raw_byte(zb_words[i >> 2], i), (p.flags & OG_IG_B_SIGNED) != 0u);
}

// Stores sum (a - za)(b - zb) of output (bz, row, col): plus the int32 bias; in the float form
// converted, scaled and then biased, two separate roundings (precise, og_mul_rounded in the WebGPU
// dialect: never one fused operation). C is declared without writeonly, which WGSL lacks.
void store_output(uint bz, uint row, uint col, int sum) {
  const uint ci = p.offset_c + bz * p.stride_c + row * p.ldc + col;
  int v = sum;
  if ((p.flags & OG_IG_INT_BIAS) != 0u) v += int_bias_data[p.int_bias_offset + col];
  if ((p.flags & OG_IG_OUT_FLOAT) == 0u) {
    c_words[ci] = uint(v);
    return;
  }
  float s = p.scale;
  if ((p.flags & OG_IG_SCALE_BUFFER) != 0u)
    s = scale_data[p.scale_offset + ((p.flags & OG_IG_SCALE_PER_COL) != 0u ? col : 0u)];
  precise float f = og_mul_rounded(float(v), s);
  if ((p.flags & OG_IG_FLOAT_BIAS) != 0u) f = f + bias_data[p.bias_offset + col];
  c_words[ci] = floatBitsToUint(f);
}
