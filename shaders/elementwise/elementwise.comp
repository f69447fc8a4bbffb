#version 450
// Element-wise operations with ONNX broadcasting. One invocation owns one word of the output
// (1 float32 / int32 element, 2 halves, 4 bools, or the 2 words of one int64), so neighbouring
// elements of a partly written word are kept and no atomics are needed. BCAST 0: every operand
// walks the output's elements in order (no index arithmetic); 1: two dimensions from the grid
// (bias-style broadcasts, no division); 2: up to six dimensions. GROUP selects the operations a
// variant compiles (see compute()).
#extension GL_GOOGLE_include_directive : require
#include "elementwise/elementwise_push.h"
#include "common/grid.glsl"
#include "common/activation.glsl"
#include "common/half.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { EltPush p; };
layout(std430, binding = 0) readonly buffer A { uint a_words[]; };
layout(std430, binding = 1) readonly buffer B { uint b_words[]; };
layout(std430, binding = 2) readonly buffer C { uint c_words[]; };
layout(std430, binding = 3) buffer Out { uint out_words[]; };

#define OG_NAN uintBitsToFloat(0x7fc00000u)

uint op() { return p.codes & 0xffu; }
uint kind() { return (p.codes >> 8) & 15u; }
uint in_type() { return (p.codes >> 12) & 7u; }
uint out_type() { return (p.codes >> 15) & 7u; }
uint act() { return (p.codes >> 18) & 31u; }
uint rank() { return (p.codes >> 23) & 7u; }

// Raw bits of element i of a buffer of type t (int64: both words).
uvec2 raw(uint which, uint t, uint i) {
  uint w0, w1 = 0u;
  const uint wi = t == OG_T_F16 ? i >> 1 : t == OG_T_BOOL ? i >> 2 : t == OG_T_I64 ? 2u * i : i;
  if (which == 0u) { w0 = a_words[wi]; if (t == OG_T_I64) w1 = a_words[wi + 1u]; }
  else if (which == 1u) { w0 = b_words[wi]; if (t == OG_T_I64) w1 = b_words[wi + 1u]; }
  else { w0 = c_words[wi]; if (t == OG_T_I64) w1 = c_words[wi + 1u]; }
  if (t == OG_T_F16) return uvec2((w0 >> ((i & 1u) * 16u)) & 0xffffu, 0u);
  if (t == OG_T_BOOL) return uvec2((w0 >> ((i & 3u) * 8u)) & 0xffu, 0u);
  return uvec2(w0, w1);
}

float as_float(uint t, uvec2 r) {
  if (t == OG_T_F16) return unpackHalf2x16(r.x).x;
  return uintBitsToFloat(r.x);
}

// int64 (two's complement in two words) of an integer-typed raw value.
uvec2 as_i64(uint t, uvec2 r) {
  if (t == OG_T_I64) return r;
  if (t == OG_T_I32) return uvec2(r.x, (r.x & 0x80000000u) != 0u ? 0xffffffffu : 0u);
  if (t == OG_T_BOOL) return uvec2(r.x != 0u ? 1u : 0u, 0u);
  return uvec2(r.x, 0u);  // uint32
}

uvec2 neg64(uvec2 v) {
  uint borrow;
  const uint lo = usubBorrow(0u, v.x, borrow);
  return uvec2(lo, 0u - v.y - borrow);
}

// float -> int64, truncating toward zero (values beyond the range are undefined, as in ONNX).
uvec2 float_to_i64(float x) {
  const float a = trunc(abs(x));
  const float hi = floor(a * (1.0 / 4294967296.0));
  const uvec2 m = uvec2(uint(a - hi * 4294967296.0), uint(hi));
  return x < 0.0 ? neg64(m) : m;
}

// int64 -> float32, correctly rounded (nearest even).
float i64_to_float(uvec2 v) {
  const bool negative = (v.y & 0x80000000u) != 0u;
  const uvec2 m = negative ? neg64(v) : v;
  float f;
  if (m.y == 0u) {
    f = float(m.x);
  } else {
    const int top = findMSB(m.y) + 32;  // position of the leading bit
    const int shift = top - 23;         // bits below the 24-bit mantissa (9..40)
    uint mant, rest_hi, half_bit;       // mantissa, and whether the dropped bits are > = < half
    bool above = false, exact_half = false;
    // Dropped bits: [0, shift). Compare them with 1 << (shift - 1).
    if (shift < 32) {
      mant = (m.x >> shift) | (m.y << (32 - shift));
      const uint dropped = m.x & ((1u << shift) - 1u);
      const uint halfway = 1u << (shift - 1);
      above = dropped > halfway;
      exact_half = dropped == halfway;
    } else {
      mant = m.y >> (shift - 32);
      const uint s2 = uint(shift - 32);
      const uint dropped_hi = s2 == 0u ? 0u : m.y & ((1u << s2) - 1u);
      if (s2 == 0u) {
        above = m.x > 0x80000000u;
        exact_half = m.x == 0x80000000u;
      } else {
        const uint halfway_hi = 1u << (s2 - 1u);
        above = dropped_hi > halfway_hi || (dropped_hi == halfway_hi && m.x != 0u);
        exact_half = dropped_hi == halfway_hi && m.x == 0u;
      }
    }
    if (above || (exact_half && (mant & 1u) != 0u)) mant += 1u;
    f = ldexp(float(mant), shift);  // mant <= 2^24: exact
  }
  return negative ? -f : f;
}

// ---- 64-bit integers in two 32-bit words (low, high), two's complement ----
uvec2 add64(uvec2 a, uvec2 b) {
  uint carry;
  const uint lo = uaddCarry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
uvec2 sub64(uvec2 a, uvec2 b) { return add64(a, neg64(b)); }
uvec2 mul64(uvec2 a, uvec2 b) {
  uint hi, lo;
  umulExtended(a.x, b.x, hi, lo);
  return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}
bool negative64(uvec2 a) { return (a.y & 0x80000000u) != 0u; }
bool less64(uvec2 a, uvec2 b) {  // signed
  if (a.y != b.y) return int(a.y) < int(b.y);
  return a.x < b.x;
}
bool ult64(uvec2 a, uvec2 b) { return a.y != b.y ? a.y < b.y : a.x < b.x; }
// Unsigned quotient and remainder; a shift-and-subtract loop only when an operand needs 64 bits.
void udivmod64(uvec2 a, uvec2 b, out uvec2 q, out uvec2 r) {
  if (a.y == 0u && b.y == 0u) {
    q = uvec2(a.x / b.x, 0u);
    r = uvec2(a.x % b.x, 0u);
    return;
  }
  q = uvec2(0u);
  r = uvec2(0u);
  for (int i = 63; i >= 0; --i) {
    r = uvec2(r.x << 1, (r.y << 1) | (r.x >> 31));
    const uint bit = i >= 32 ? (a.y >> uint(i - 32)) & 1u : (a.x >> uint(i)) & 1u;
    r.x |= bit;
    if (!ult64(r, b)) {
      r = sub64(r, b);
      if (i >= 32) q.y |= 1u << uint(i - 32); else q.x |= 1u << uint(i);
    }
  }
}
const uvec2 ZERO64 = uvec2(0u);

// Div truncates toward zero and is 0 for a zero divisor; the minimum divided by -1 is itself.
// Fmod takes the dividend's sign, Mod the divisor's; both are 0 for a divisor of 0 or -1.
uvec2 int_binary(uint o, uvec2 a, uvec2 b) {
  if (o == OG_INT_ADD) return add64(a, b);
  if (o == OG_INT_SUB) return sub64(a, b);
  if (o == OG_INT_MUL) return mul64(a, b);
  if (o == OG_INT_MIN) return less64(b, a) ? b : a;
  if (o == OG_INT_MAX) return less64(a, b) ? b : a;
  if (o == OG_INT_AND) return a & b;
  if (o == OG_INT_OR) return a | b;
  if (o == OG_INT_XOR) return a ^ b;
  const bool minus_one = b.x == 0xffffffffu && b.y == 0xffffffffu;
  if (b == ZERO64) return ZERO64;
  if (minus_one) return o == OG_INT_DIV ? neg64(a) : ZERO64;
  const bool na = negative64(a), nb = negative64(b);
  uvec2 q, r;
  udivmod64(na ? neg64(a) : a, nb ? neg64(b) : b, q, r);
  if (o == OG_INT_DIV) return na != nb ? neg64(q) : q;
  const uvec2 fm = na ? neg64(r) : r;  // the dividend's sign
  if (o == OG_INT_FMOD || fm == ZERO64 || na == nb) return fm;
  return add64(fm, b);  // Mod: move into the divisor's sign
}

// int32 results are the low word of the int64 result (two's complement wraps the same way).
uvec2 sign_extend(uint t, uvec2 v) { return t == OG_T_I32 ? uvec2(v.x, (v.x & 0x80000000u) != 0u ? 0xffffffffu : 0u) : v; }

// The output value's bits for element e of the output. Each GROUP variant compiles only its own
// kinds: 0 float binary, unary and compare; 1 where; 2 cast; 3 integer; 4 fill and range.
uvec2 compute(uint ia, uint ib, uint ic) {
  const uint k = kind(), o = op(), ti = in_type(), to = out_type();
#if GROUP == 4
  return uvec2(p.stride_a[0], p.stride_a[1]);
#elif GROUP == 3
  {
    uvec2 a = as_i64(ti, raw(0u, ti, ia));
    if (ti == OG_T_BOOL) a = uvec2(a.x != 0u ? 1u : 0u, 0u);
    if (k == OG_ELT_INT_UNARY) {
      if (o == OG_INT_NOT) return uvec2(a.x == 0u ? 1u : 0u, 0u);
      if (o == OG_INT_NEG) return neg64(a);
      return negative64(a) ? neg64(a) : a;
    }
    uvec2 b = as_i64(ti, raw(1u, ti, ib));
    if (ti == OG_T_BOOL) b = uvec2(b.x != 0u ? 1u : 0u, 0u);
    if (k == OG_ELT_INT_COMPARE) {
      bool r;
      if (o == OG_CMP_EQUAL) r = a == b;
      else if (o == OG_CMP_LESS) r = less64(a, b);
      else if (o == OG_CMP_GREATER) r = less64(b, a);
      else if (o == OG_CMP_LESS_EQUAL) r = !less64(b, a);
      else r = !less64(a, b);
      return uvec2(r ? 1u : 0u, 0u);
    }
    if (ti == OG_T_I32 && (o == OG_INT_DIV || o == OG_INT_MOD || o == OG_INT_FMOD)) {
      // Work on the sign-extended values, so int32's minimum over -1 stays itself.
      return int_binary(o, sign_extend(ti, a), sign_extend(ti, b));
    }
    return int_binary(o, a, b);
  }
#elif GROUP == 1
  {
    const bool cond = raw(2u, OG_T_BOOL, ic).x != 0u;
    return cond ? raw(0u, ti, ia) : raw(1u, ti, ib);
  }
#elif GROUP == 2
  {
    const uvec2 r = raw(0u, ti, ia);
    const bool src_float = ti == OG_T_F32 || ti == OG_T_F16;
    if (to == OG_T_BOOL) {
      if (src_float) return uvec2(as_float(ti, r) != 0.0 ? 1u : 0u, 0u);
      const uvec2 v = as_i64(ti, r);
      return uvec2((v.x | v.y) != 0u ? 1u : 0u, 0u);
    }
    if (to == OG_T_F32 || to == OG_T_F16) {
      const float f = src_float ? as_float(ti, r) : i64_to_float(as_i64(ti, r));
      return to == OG_T_F16 ? uvec2(og_f32_to_f16(f), 0u) : uvec2(floatBitsToUint(f), 0u);
    }
    const uvec2 v = src_float ? float_to_i64(as_float(ti, r)) : as_i64(ti, r);
    return v;  // int32 and uint32 keep the low word
  }
#else
  const float a = as_float(ti, raw(0u, ti, ia));
  if (k == OG_ELT_UNARY) {
    const float y = og_unary(o, a, p.alpha, p.beta);
    return to == OG_T_F16 ? uvec2(og_f32_to_f16(y), 0u) : uvec2(floatBitsToUint(y), 0u);
  }
  const float b = as_float(ti, raw(1u, ti, ib));
  if (k == OG_ELT_COMPARE) {
    bool r = false;
    if (o == OG_CMP_EQUAL) r = a == b;
    else if (o == OG_CMP_LESS) r = a < b;
    else if (o == OG_CMP_GREATER) r = a > b;
    else if (o == OG_CMP_LESS_EQUAL) r = a <= b;
    else r = a >= b;
    return uvec2(r ? 1u : 0u, 0u);
  }
  float y;
  if (o == OG_BIN_ADD) y = a + b;
  else if (o == OG_BIN_SUB) y = a - b;
  else if (o == OG_BIN_MUL) y = a * b;
  else if (o == OG_BIN_DIV) y = a / b;
  else if (o == OG_BIN_MIN) y = (isnan(a) || isnan(b)) ? OG_NAN : min(a, b);
  else if (o == OG_BIN_MAX) y = (isnan(a) || isnan(b)) ? OG_NAN : max(a, b);
  else {  // Pow
    if (b == 0.0) y = 1.0;
    else if (isnan(a) || isnan(b)) y = OG_NAN;
    else if (a == 0.0) y = b > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    else {
      const float m = exp2(b * log2(abs(a)));
      if (a > 0.0) y = m;
      else if (trunc(b) != b) y = OG_NAN;
      else y = mod(abs(b), 2.0) == 1.0 ? -m : m;
    }
  }
  // A fused activation sees the value the separate operation would read back: rounded to half.
  if (act() != OG_ACT_NONE) {
    if (to == OG_T_F16) y = unpackHalf2x16(og_f32_to_f16(y)).x;
    y = og_unary(act(), y, p.alpha, p.beta);
  }
  return to == OG_T_F16 ? uvec2(og_f32_to_f16(y), 0u) : uvec2(floatBitsToUint(y), 0u);
#endif
}

uvec2 range_value(uint e) {
  const uint to = out_type();
  if (to == OG_T_F32 || to == OG_T_F16) {
    precise float step = float(e) * p.beta;  // two separately rounded operations
    precise float v = p.alpha + step;
    return to == OG_T_F16 ? uvec2(og_f32_to_f16(v), 0u) : uvec2(floatBitsToUint(v), 0u);
  }
  return add64(uvec2(p.stride_a[0], p.stride_a[1]), mul64(uvec2(e, 0u), uvec2(p.stride_a[2], p.stride_a[3])));
}

uint elements_per_word(uint t) { return t == OG_T_F16 ? 2u : t == OG_T_BOOL ? 4u : 1u; }

void main() {
  const uint to = out_type();
  const uint per = elements_per_word(to);
  const uint first = p.out_offset / per;  // first output word (int64: element)
  uint word;
  uint row = 0u, col_word = 0u;
#if BCAST == 1
  // 2-D: x is the word within the row, y the row. Rows hold whole words (checked on the host).
  col_word = gl_GlobalInvocationID.x;
  row = gl_WorkGroupID.y;
  const uint words_per_row = p.shape[1] / per;
  if (col_word >= words_per_row || row >= p.shape[0]) return;
  word = row * words_per_row + col_word;
#else
  word = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  const uint last = (p.out_offset + p.count - 1u) / per;
  if (word > last - first) return;
#endif
  const uint g0 = (first + word) * per;  // global index of the word's first element
  uint bits = 0u;
  uvec2 v64 = uvec2(0u);
  const uint old = (to == OG_T_F16 || to == OG_T_BOOL) ? out_words[first + word] : 0u;
  for (uint j = 0u; j < per; ++j) {
    const uint g = g0 + j;
    const uint shift = j * (32u / per);
    const uint mask = per == 1u ? 0xffffffffu : ((1u << (32u / per)) - 1u) << shift;
    if (g < p.out_offset || g >= p.out_offset + p.count) {
      bits |= old & mask;
      continue;
    }
    const uint e = g - p.out_offset;
    uint ia, ib, ic;
#if BCAST == 0
    ia = p.offset_a + e; ib = p.offset_b + e; ic = p.offset_c + e;
#elif BCAST == 1
    const uint c = col_word * per + j;
    ia = p.offset_a + row * p.stride_a[0] + c * p.stride_a[1];
    ib = p.offset_b + row * p.stride_b[0] + c * p.stride_b[1];
    ic = p.offset_c + row * p.stride_c[0] + c * p.stride_c[1];
#else
    ia = p.offset_a; ib = p.offset_b; ic = p.offset_c;
    uint q = e;
    for (int d = int(rank()) - 1; d >= 0; --d) {
      const uint x = q % p.shape[d];
      q /= p.shape[d];
      ia += x * p.stride_a[d];
      ib += x * p.stride_b[d];
      ic += x * p.stride_c[d];
    }
#endif
#if GROUP == 4
    const uvec2 r = kind() == OG_ELT_RANGE ? range_value(e) : compute(ia, ib, ic);
#else
    const uvec2 r = compute(ia, ib, ic);
#endif
    if (to == OG_T_I64) v64 = r;
    else bits |= (r.x << shift) & mask;
  }
  if (to == OG_T_I64) {
    out_words[2u * (first + word)] = v64.x;
    out_words[2u * (first + word) + 1u] = v64.y;
  } else {
    out_words[first + word] = bits;
  }
}
