// Half values stored two to a 32-bit word: reading, and rounding float to half to nearest even
// written out here (drivers do not promise a rounding mode for packHalf2x16).
#ifndef ONEGPU_HALF_GLSL
#define ONEGPU_HALF_GLSL

float og_half_lo(uint word) { return unpackHalf2x16(word).x; }
float og_half_hi(uint word) { return unpackHalf2x16(word).y; }
float og_half_at(uint word, uint i) { return unpackHalf2x16(word)[i & 1u]; }

// IEEE binary16 bits of v, rounded to nearest even; NaN stays NaN, overflow gives infinity.
uint og_f32_to_f16(float v) {
  const uint u = floatBitsToUint(v);
  const uint sign = (u >> 16) & 0x8000u;
  const uint a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;
  if (a >= 0x477ff000u) return sign | 0x7c00u;
  if (a < 0x38800000u) {
    const uint e = a >> 23;
    if (e < 102u) return sign;
    const uint man = (a & 0x7fffffu) | 0x800000u;
    const uint shift = 126u - e;
    uint q = man >> shift;
    const uint rem = man & ((1u << shift) - 1u), half_ulp = 1u << (shift - 1u);
    if (rem > half_ulp || (rem == half_ulp && (q & 1u) != 0u)) q += 1u;
    return sign | q;
  }
  return sign | ((a + 0xfffu + ((a >> 13) & 1u) - (112u << 23)) >> 13);
}

uint og_pack_half2(float lo, float hi) { return og_f32_to_f16(lo) | (og_f32_to_f16(hi) << 16); }
#endif
