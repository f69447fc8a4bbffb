// og_dot4(a, b): the sum of the products of the four signed bytes of a and b (int32, wrapping),
// one packed dot-product instruction. On Vulkan it is dotPacked4x8EXT
// (GL_EXT_integer_dot_product). naga reads no SPIR-V dot-product instruction, so the WebGPU
// dialect calls og_dot4_i8_packed, written here byte by byte; the translator
// (tools/spirv_to_wgsl/spirv_to_wgsl.mjs) keeps it from being inlined and replaces its body with
// WGSL's dot4I8Packed, and refuses a module where that replacement cannot be made.
#ifndef ONEGPU_PACKED_DOT_GLSL
#define ONEGPU_PACKED_DOT_GLSL
#ifdef OG_WEBGPU
int og_dot4_i8_packed(int a, int b) {
  int s = 0;
  for (int q = 0; q < 32; q += 8) s += bitfieldExtract(a, q, 8) * bitfieldExtract(b, q, 8);
  return s;
}
#define og_dot4(a, b) og_dot4_i8_packed(a, b)
#else
#extension GL_EXT_integer_dot_product : require
#define og_dot4(a, b) dotPacked4x8EXT(a, b)
#endif
#endif
