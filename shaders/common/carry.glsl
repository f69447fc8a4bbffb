// Carrying 32-bit arithmetic for 64-bit integers in two words: GLSL's uaddCarry, usubBorrow and
// umulExtended, or, in the WebGPU dialect (OG_WEBGPU; WGSL has no carry instructions and naga reads
// none), the same results from plain 32-bit operations.
#ifndef ONEGPU_CARRY_GLSL
#define ONEGPU_CARRY_GLSL
#ifdef OG_WEBGPU
uint og_uadd_carry(uint a, uint b, out uint carry) {
  const uint s = a + b;
  carry = s < a ? 1u : 0u;
  return s;
}
uint og_usub_borrow(uint a, uint b, out uint borrow) {
  borrow = a < b ? 1u : 0u;
  return a - b;
}
// The 64-bit product from 16-bit halves: no partial sum exceeds 32 bits.
void og_umul_extended(uint a, uint b, out uint hi, out uint lo) {
  const uint al = a & 0xffffu, ah = a >> 16, bl = b & 0xffffu, bh = b >> 16;
  const uint ll = al * bl, lh = al * bh, hl = ah * bl;
  const uint mid = (ll >> 16) + (lh & 0xffffu) + (hl & 0xffffu);
  hi = ah * bh + (lh >> 16) + (hl >> 16) + (mid >> 16);
  lo = a * b;
}
#else
#define og_uadd_carry uaddCarry
#define og_usub_borrow usubBorrow
#define og_umul_extended umulExtended
#endif
#endif
