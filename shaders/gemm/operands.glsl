// A and B bindings for an element type: ELEM 0 float32, 1 float16, 2 bfloat16. 16-bit values
// are read as pairs from 32-bit words, so no 16-bit storage feature is needed.
#ifndef ELEM
#define ELEM 0
#endif
#if ELEM == 0
layout(std430, binding = 0) readonly buffer BufA { float a_data[]; };
layout(std430, binding = 1) readonly buffer BufB { float b_data[]; };
float load_a(uint i) { return a_data[i]; }
float load_b(uint i) { return b_data[i]; }
#else
layout(std430, binding = 0) readonly buffer BufA { uint a_words[]; };
layout(std430, binding = 1) readonly buffer BufB { uint b_words[]; };
float og_decode16(uint word, uint i) {
#if ELEM == 1
  return unpackHalf2x16(word)[i & 1u];
#else
  return uintBitsToFloat((i & 1u) == 0u ? word << 16 : word & 0xffff0000u);
#endif
}
float load_a(uint i) { return og_decode16(a_words[i >> 1], i); }
float load_b(uint i) { return og_decode16(b_words[i >> 1], i); }
#endif
