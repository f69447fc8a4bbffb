// IEEE binary32 arithmetic in integer operations, rounded to nearest even, with subnormal operands
// and results: a GPU's own division is not promised to be correctly rounded, and a device may
// flush subnormals. Values travel as their bits.
#ifndef ONEGPU_EXACT_FLOAT_GLSL
#define ONEGPU_EXACT_FLOAT_GLSL

#include "common/carry.glsl"

#define OG_F32_NAN 0x7fc00000u
#define OG_F32_INF 0x7f800000u

// The highest set bit of a nonzero uint (findMSB), and the lowest (findLSB). In the WebGPU dialect
// through their signed forms: naga types SPIR-V's FindUMsb and FindILsb of a uint as uint where
// GLSL's result is an int, and refuses the module.
#ifdef OG_WEBGPU
int og_find_msb(uint v) { return v >= 0x80000000u ? 31 : findMSB(int(v)); }
int og_find_lsb(uint v) { return findLSB(int(v)); }
#else
#define og_find_msb findMSB
#define og_find_lsb findLSB
#endif

// The binary32 bits of a binary16 value, exactly (subnormal halves are normal floats).
uint og_f16_bits_to_f32(uint h) {
  const uint sign = (h & 0x8000u) << 16;
  const uint e = (h >> 10) & 31u, m = h & 1023u;
  if (e == 31u) return sign | OG_F32_INF | (m << 13);
  if (e != 0u) return sign | ((e + 112u) << 23) | (m << 13);
  if (m == 0u) return sign;
  const int msb = og_find_msb(m);
  return sign | (uint(msb + 103) << 23) | ((m << uint(23 - msb)) & 0x7fffffu);
}

// A finite nonzero magnitude as m * 2^k with m in [2^23, 2^24).
void og_unpack_f32(uint a, out uint m, out int k) {
  const uint e = a >> 23;
  if (e != 0u) {
    m = (a & 0x7fffffu) | 0x800000u;
    k = int(e) - 150;
  } else {
    const int s = 23 - og_find_msb(a);
    m = a << uint(s);
    k = -149 - s;
  }
}

// The binary32 nearest to (m + t) * 2^k, 0 < m < 2^32, where t in [0, 1) is nonzero exactly when
// `sticky` (then m has at least 25 significant bits), ties to even; overflow gives infinity.
uint og_round_pack(uint sign, uint m, bool sticky, int k) {
  const int msb = og_find_msb(m);
  int e = msb + k + 127;  // biased exponent of the leading bit
  if (e >= 255) return sign | OG_F32_INF;
  const int drop = e >= 1 ? msb - 23 : msb - 23 + (1 - e);
  if (drop <= 0) return sign | (uint(e >= 1 ? e : 0) << 23) | ((m << uint(-drop)) & (e >= 1 ? 0x7fffffu : 0xffffffffu));
  if (drop > 32) return sign;
  const uint keep = drop == 32 ? 0u : m >> uint(drop);
  const uint rem = drop == 32 ? m : m & ((1u << uint(drop)) - 1u);
  const uint half_unit = 1u << uint(drop - 1);
  uint r = keep;
  if (rem > half_unit || (rem == half_unit && (sticky || (keep & 1u) != 0u))) r += 1u;
  if (e < 1) return sign | r;  // a subnormal (a carry into bit 23 is the smallest normal's bits)
  if (r == 0x1000000u) {
    r = 0x800000u;
    e += 1;
    if (e >= 255) return sign | OG_F32_INF;
  }
  return sign | (uint(e) << 23) | (r & 0x7fffffu);
}

// a / b, correctly rounded.
uint og_div_f32(uint a, uint b) {
  const uint sign = (a ^ b) & 0x80000000u;
  const uint aa = a & 0x7fffffffu, bb = b & 0x7fffffffu;
  if (aa > OG_F32_INF || bb > OG_F32_INF) return OG_F32_NAN;
  if (aa == OG_F32_INF) return bb == OG_F32_INF ? OG_F32_NAN : sign | OG_F32_INF;
  if (bb == OG_F32_INF) return sign;
  if (bb == 0u) return aa == 0u ? OG_F32_NAN : sign | OG_F32_INF;
  if (aa == 0u) return sign;
  uint ma, mb;
  int ka, kb;
  og_unpack_f32(aa, ma, ka);
  og_unpack_f32(bb, mb, kb);
  const uint shift = ma >= mb ? 25u : 26u;
  // q = floor(ma * 2^shift / mb), in [2^25, 2^26): a float estimate within a few units, corrected
  // with the remainder, whose true value is small enough for 32-bit wrapping arithmetic.
  uint q = uint(float(ma) / float(mb) * float(1u << shift));
  int r = int((ma << shift) - q * mb);
  for (int i = 0; i < 64 && r < 0; ++i) {
    q -= 1u;
    r += int(mb);
  }
  for (int i = 0; i < 64 && r >= int(mb); ++i) {
    q += 1u;
    r -= int(mb);
  }
  return og_round_pack(sign, q, r != 0, ka - kb - int(shift));
}

// a * b, correctly rounded.
uint og_mul_f32(uint a, uint b) {
  const uint sign = (a ^ b) & 0x80000000u;
  const uint aa = a & 0x7fffffffu, bb = b & 0x7fffffffu;
  if (aa > OG_F32_INF || bb > OG_F32_INF) return OG_F32_NAN;
  if (aa == OG_F32_INF || bb == OG_F32_INF) return (aa == 0u || bb == 0u) ? OG_F32_NAN : sign | OG_F32_INF;
  if (aa == 0u || bb == 0u) return sign;
  uint ma, mb, hi, lo;
  int ka, kb;
  og_unpack_f32(aa, ma, ka);
  og_unpack_f32(bb, mb, kb);
  og_umul_extended(ma, mb, hi, lo);  // a product of 47 or 48 bits
  return og_round_pack(sign, (hi << 16) | (lo >> 16), (lo & 0xffffu) != 0u, ka + kb + 16);
}

// a + b for magnitudes (sign bit clear, not NaN), correctly rounded.
uint og_add_magnitudes_f32(uint a, uint b) {
  if (a == OG_F32_INF || b == OG_F32_INF) return OG_F32_INF;
  if (a == 0u) return b;
  if (b == 0u) return a;
  if (a < b) {
    const uint t = a;
    a = b;
    b = t;
  }
  uint ma, mb;
  int ka, kb;
  og_unpack_f32(a, ma, ka);
  og_unpack_f32(b, mb, kb);
  const int d = ka - kb;  // >= 0 (bits of magnitudes order like the values)
  const uint wide = mb << 6;
  const uint part = d >= 30 ? 0u : wide >> uint(d);
  const bool sticky = d >= 30 ? true : (wide & ((1u << uint(d)) - 1u)) != 0u;
  return og_round_pack(0u, (ma << 6) + part, sticky, ka - 6);
}

// The binary32 bits of a 32-bit integer, rounded to nearest even.
uint og_i32_to_f32(int v) {
  if (v == 0) return 0u;
  const uint sign = v < 0 ? 0x80000000u : 0u;
  const uint m = v < 0 ? 0u - uint(v) : uint(v);
  return og_round_pack(sign, m, false, 0);
}

// saturate(round_half_even(v) + zero) in [lo, hi] for the binary32 bits v; NaN gives lo. Zero
// points lie in -128..255, so |v| >= 1024 saturates and the sum is exact in float32 too.
int og_quantize_bits(uint v, int zero, int lo, int hi) {
  const uint av = v & 0x7fffffffu;
  if (av > OG_F32_INF) return lo;
  const bool negative = (v >> 31) != 0u;
  if (av >= (137u << 23)) return negative ? lo : hi;
  if (av < (126u << 23)) return clamp(zero, lo, hi);
  const uint m = (av & 0x7fffffu) | 0x800000u;
  const uint drop = 150u - (av >> 23);  // 14 to 24 bits below the binary point
  uint n = m >> drop;
  const uint rem = m & ((1u << drop) - 1u), half_unit = 1u << (drop - 1u);
  if (rem > half_unit || (rem == half_unit && (n & 1u) != 0u)) n += 1u;
  return clamp((negative ? -int(n) : int(n)) + zero, lo, hi);
}

// og_quantize_bits(x / s) for binary32 bits x and s, where inv is the device's 1 / s, when it can
// be known without dividing exactly (`decided`): x and s normal and x * inv clearly inside one
// rounding interval, so the correctly rounded quotient lies there too (x * inv is within 4 ulp of
// x / s; the interval test keeps 2^-16 of the value away from every half-integer).
int og_quantize_fast(uint x, uint s, float inv, int zero, int lo, int hi, out bool decided) {
  const uint ax = x & 0x7fffffffu, e = (s >> 23) & 0xffu;
  decided = false;
  if (e < 1u || e > 252u || ax >= OG_F32_INF || (ax < 0x800000u && ax != 0u)) return 0;
  // Clamped where every result saturates (so the integer conversion is exact), then the nearest
  // integer and the distance of |y - r| from 1/2.
  const float y = clamp(uintBitsToFloat(x) * inv, -1100.0, 1100.0);
  const float r = roundEven(y);
  decided = abs(abs(y - r) - 0.5) > abs(y) * (1.0 / 65536.0);
  return clamp(int(r) + zero, lo, hi);
}

// og_quantize_bits(x / s): the fast decision where it holds, else the exact quotient.
int og_quantize_div(uint x, uint s, float inv, int zero, int lo, int hi) {
  bool decided;
  const int q = og_quantize_fast(x, s, inv, zero, lo, hi, decided);
  return decided ? q : og_quantize_bits(og_div_f32(x, s), zero, lo, hi);
}

#endif
