// onegpu/numeric.h - 16-bit floating-point storage types and their conversions.
//
// float16 (IEEE binary16) and bfloat16 are stored as their 16 bits, two to a 32-bit word in a
// Buffer<float16> or Buffer<bfloat16>. Conversions from float round to nearest even; NaN stays
// NaN.
#pragma once

#include <bit>
#include <cstdint>

namespace onegpu {

struct float16 {
  uint16_t bits = 0;
  friend bool operator==(float16, float16) = default;
};
struct bfloat16 {
  uint16_t bits = 0;
  friend bool operator==(bfloat16, bfloat16) = default;
};

inline float to_float(bfloat16 v) { return std::bit_cast<float>(uint32_t(v.bits) << 16); }

inline bfloat16 to_bfloat16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {uint16_t((u >> 16) | 0x40u)};  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return {uint16_t(u >> 16)};
}

inline float to_float(float16 v) {
  const uint32_t sign = uint32_t(v.bits & 0x8000u) << 16;
  const uint32_t exp = (v.bits >> 10) & 0x1fu, man = v.bits & 0x3ffu;
  if (exp == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
  // Subnormal: man * 2^-24, exact in float.
  float f = float(man) * 5.9604644775390625e-08f;
  return sign ? -f : f;
}

inline float16 to_float16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return {uint16_t(sign | 0x7e00u)};  // NaN
  if (a >= 0x477ff000u) return {uint16_t(sign | 0x7c00u)};  // rounds to infinity (>= 65520)
  if (a < 0x38800000u) {                                    // below the smallest normal half
    // value * 2^24 rounded to nearest even gives the subnormal's mantissa.
    const uint32_t exp = a >> 23;
    if (exp < 102) return {sign};  // below half the smallest subnormal
    const uint32_t man = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t q = man >> shift;
    const uint32_t rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return {uint16_t(sign | q)};
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - (112u << 23);
  return {uint16_t(sign | (r >> 13))};
}

}  // namespace onegpu
