// What the recurrent kernels share: weights stored as float32 or half, the state layout.
#ifndef ONEGPU_RECURRENT_COMMON_GLSL
#define ONEGPU_RECURRENT_COMMON_GLSL
#ifdef F16
#define OG_RNN_LOAD(words, i) unpackHalf2x16(words[(i) >> 1])[(i) & 1u]
#else
#define OG_RNN_LOAD(words, i) uintBitsToFloat(words[i])
#endif
// A sequence's length, at most seq (negative: 0).
#define OG_RNN_LENGTH(b) ((p.flags & OG_RNN_LENGTHS) != 0u ? uint(clamp(lens[p.lens_offset + (b)], 0, int(p.seq))) : p.seq)
#endif
