// Power-of-two scaling for the float32 products on float16 hardware.
#ifndef ONEGPU_GEMM_F32SPLIT_GLSL
#define ONEGPU_GEMM_F32SPLIT_GLSL

// The exponent e that brings a line whose largest biased float32 exponent is `biased` to
// [2^14, 2^15): 141 - biased. Lines of zeros (and of float32 subnormals, which GPUs may flush) and
// lines holding infinity or NaN are not scaled.
int og_split_exponent(uint biased) { return biased == 0u || biased == 255u ? 0 : 141 - int(biased); }

// 2^e for e in [-126, 127].
float og_pow2(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// x 2^e for e in [-378, 381], in steps that each stay within a float's exponents: exact unless
// the result leaves the normal range.
float og_scale_pow2(float x, int e) {
  precise float r = x;
  for (int i = 0; i < 3 && e != 0; ++i) {
    const int step = clamp(e, -126, 127);
    r = r * og_pow2(step);
    e -= step;
  }
  return r;
}
#endif
