// A float product rounded on its own, whatever the add that follows it. On Vulkan the caller's
// `precise` keeps the product and the add apart; WGSL has no `precise`, and drivers fuse a product
// and a sum into one FMA (one rounding instead of two), so the WebGPU dialect computes the
// round-to-nearest-even product from the operands' bits: no multiply is left to fuse.
#ifndef ONEGPU_ROUNDED_GLSL
#define ONEGPU_ROUNDED_GLSL
#ifdef OG_WEBGPU
#include "common/carry.glsl"
// Significand and unbiased exponent of a finite nonzero float, the significand in [2^23, 2^24).
uint og_significand(uint bits, out int exponent) {
  const uint e = (bits >> 23) & 0xffu;
  uint m = bits & 0x7fffffu;
  if (e != 0u) {
    exponent = int(e) - 127;
    return m | 0x800000u;
  }
  // A subnormal's leading bit, from the exponent of its exact conversion (naga mistypes findMSB).
  const uint shift = 150u - (floatBitsToUint(float(m)) >> 23);
  exponent = -126 - int(shift);
  return m << shift;
}
float og_mul_rounded(float a, float b) {
  const uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
  const uint sign = (ua ^ ub) & 0x80000000u;
  // Zeros, infinities and NaN: the product is exact, so fusing it changes nothing.
  if ((ua & 0x7fffffffu) == 0u || (ub & 0x7fffffffu) == 0u || ((ua >> 23) & 0xffu) == 0xffu ||
      ((ub >> 23) & 0xffu) == 0xffu) {
    return a * b;
  }
  int ea, eb;
  const uint ma = og_significand(ua, ea), mb = og_significand(ub, eb);
  uint hi, lo;
  og_umul_extended(ma, mb, hi, lo);  // in [2^46, 2^48)
  const int top = (hi >> 15) != 0u ? 47 : 46;
  int exponent = ea + eb + (top - 46) + 127;  // biased exponent of the result
  // Keep 24 bits (fewer below the normal range), rounding the rest to nearest even.
  int shift = top - 23;
  if (exponent < 1) {
    shift += 1 - exponent;
    exponent = 1;
  }
  if (shift > 49) return uintBitsToFloat(sign);  // below half the smallest subnormal
  const uint r = uint(shift - 1);                 // position of the rounding bit, 22 .. 48
  uint kept;                                      // the product >> r
  bool sticky;                                    // any bit below r
  if (r < 32u) {
    kept = (lo >> r) | (hi << (32u - r));
    sticky = (lo & ((1u << r) - 1u)) != 0u;
  } else {
    kept = hi >> (r - 32u);
    sticky = lo != 0u || (hi & ((1u << (r - 32u)) - 1u)) != 0u;
  }
  uint m = kept >> 1;
  if ((kept & 1u) != 0u && (sticky || (m & 1u) != 0u)) m += 1u;
  // The significand's leading bit carries into the exponent field (and a rounded-up subnormal
  // becomes the smallest normal).
  const uint magnitude = (uint(exponent - 1) << 23) + m;
  return uintBitsToFloat(sign | min(magnitude, 0x7f800000u));
}
#else
#define og_mul_rounded(a, b) ((a) * (b))
#endif
#endif
