#version 450
// Element-wise operations with ONNX broadcasting. One invocation owns one word of the output
// (1 float32 / int32 element, 2 halves, 4 bools, or the 2 words of one int64), so neighbouring
// elements of a partly written word are kept and no atomics are needed. BCAST (OG_ELT_WALK_* in
// elementwise_push.h): same shape, every operand walks the output's elements in order (no index
// arithmetic); rows, two dimensions from the grid (bias-style broadcasts, no division); broadcast,
// up to six dimensions with any strides. GROUP (OG_ELT_GROUP_*) selects the operations a variant
// compiles (see compute()).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "elementwise/elementwise_push.h"
#include "common/grid.glsl"
#include "common/activation.glsl"
#include "common/half.glsl"
#include "common/carry.glsl"
#include "common/rounded.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(EltPush, p);
layout(std430, binding = 0) readonly buffer A { uint a_words[]; };
layout(std430, binding = 1) readonly buffer B { uint b_words[]; };
layout(std430, binding = 2) readonly buffer C { uint c_words[]; };
layout(std430, binding = 3) buffer Out { uint out_words[]; };

#define OG_NAN OG_FLOAT_BITS(0x7fc00000u)

uint op() { return OG_ELT_FIELD(p.codes, OG_ELT_OP_SHIFT, OG_ELT_OP_WIDTH); }
uint kind() { return OG_ELT_FIELD(p.codes, OG_ELT_KIND_SHIFT, OG_ELT_KIND_WIDTH); }
// FIXED word32 and i64 fix the operand and output types at compile time (the host picks these
// variants only for such types), which removes the per-element type dispatch: word32 is float32
// (float group), int32 (integer group) or any 32-bit word moved as is (Where); i64 is int64.
#if FIXED == OG_ELT_FIXED_WORD32 && GROUP == OG_ELT_GROUP_FLOAT
uint in_type() { return OG_T_F32; }
uint out_type() { return OG_T_F32; }
#elif FIXED == OG_ELT_FIXED_WORD32 && GROUP == OG_ELT_GROUP_INTEGER
uint in_type() { return OG_T_I32; }
uint out_type() { return OG_T_I32; }
#elif FIXED == OG_ELT_FIXED_WORD32
uint in_type() { return OG_T_U32; }
uint out_type() { return OG_T_U32; }
#elif FIXED == OG_ELT_FIXED_I64
uint in_type() { return OG_T_I64; }
uint out_type() { return OG_T_I64; }
#else
uint in_type() { return OG_ELT_FIELD(p.codes, OG_ELT_IN_TYPE_SHIFT, OG_ELT_IN_TYPE_WIDTH); }
uint out_type() { return OG_ELT_FIELD(p.codes, OG_ELT_OUT_TYPE_SHIFT, OG_ELT_OUT_TYPE_WIDTH); }
#endif
uint act() { return OG_ELT_FIELD(p.codes, OG_ELT_ACT_SHIFT, OG_ELT_ACT_WIDTH); }
uint rank() { return OG_ELT_FIELD(p.codes, OG_ELT_RANK_SHIFT, OG_ELT_RANK_WIDTH); }

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
  const uint lo = og_usub_borrow(0u, v.x, borrow);
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
    const int top = int(uint(findMSB(m.y))) + 32;  // position of the leading bit (via uint: naga types it so)
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
  const uint lo = og_uadd_carry(a.x, b.x, carry);
  return uvec2(lo, a.y + b.y + carry);
}
uvec2 sub64(uvec2 a, uvec2 b) { return add64(a, neg64(b)); }
uvec2 mul64(uvec2 a, uvec2 b) {
  uint hi, lo;
  og_umul_extended(a.x, b.x, hi, lo);
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

// Whether the operation reads b (and c: Where only).
bool reads_b() {
  const uint k = kind();
  return k == OG_ELT_BINARY || k == OG_ELT_COMPARE || k == OG_ELT_WHERE || k == OG_ELT_INT_BINARY ||
         k == OG_ELT_INT_COMPARE;
}

// The output value's bits from the raw bits of the operands (c: Where's condition). Each GROUP
// variant compiles only its own kinds: 0 float binary, unary and compare; 1 where; 2 cast;
// 3 integer; 4 fill and range.
uvec2 compute(uvec2 ra, uvec2 rb, uvec2 rc) {
  const uint k = kind(), o = op(), ti = in_type(), to = out_type();
#if GROUP == OG_ELT_GROUP_FILL
  return uvec2(p.stride_a[0], p.stride_a[1]);
#elif GROUP == OG_ELT_GROUP_INTEGER
  {
    uvec2 a = as_i64(ti, ra);
    if (ti == OG_T_BOOL) a = uvec2(a.x != 0u ? 1u : 0u, 0u);
    if (k == OG_ELT_INT_UNARY) {
      if (o == OG_INT_NOT) return uvec2(a.x == 0u ? 1u : 0u, 0u);
      if (o == OG_INT_NEG) return neg64(a);
      return negative64(a) ? neg64(a) : a;
    }
    uvec2 b = as_i64(ti, rb);
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
#elif GROUP == OG_ELT_GROUP_WHERE
  {
    return rc.x != 0u ? ra : rb;
  }
#elif GROUP == OG_ELT_GROUP_CAST
  {
    const uvec2 r = ra;
    const bool src_float = ti == OG_T_F32 || ti == OG_T_F16;
    if (to == OG_T_BOOL) {
      if (src_float) return uvec2(og_nonzero(as_float(ti, r)) ? 1u : 0u, 0u);
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
  const float a = as_float(ti, ra);
  if (k == OG_ELT_UNARY) {
    const float y = og_unary(o, a, p.alpha, p.beta);
    return to == OG_T_F16 ? uvec2(og_f32_to_f16(y), 0u) : uvec2(floatBitsToUint(y), 0u);
  }
  const float b = as_float(ti, rb);
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
  else if (o == OG_BIN_MIN) y = (og_isnan(a) || og_isnan(b)) ? OG_NAN : min(a, b);
  else if (o == OG_BIN_MAX) y = (og_isnan(a) || og_isnan(b)) ? OG_NAN : max(a, b);
  else {  // Pow
    if (b == 0.0) y = 1.0;
    else if (og_isnan(a) || og_isnan(b)) y = OG_NAN;
    else if (a == 0.0) y = b > 0.0 ? 0.0 : OG_FLOAT_BITS(0x7f800000u);
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
    precise float step = og_mul_rounded(float(e), p.beta);  // two separate roundings
    precise float v = p.alpha + step;
    return to == OG_T_F16 ? uvec2(og_f32_to_f16(v), 0u) : uvec2(floatBitsToUint(v), 0u);
  }
  return add64(uvec2(p.stride_a[0], p.stride_a[1]), mul64(uvec2(e, 0u), uvec2(p.stride_a[2], p.stride_a[3])));
}

uint elements_per_word(uint t) { return t == OG_T_F16 ? 2u : t == OG_T_BOOL ? 4u : 1u; }

// Element indices of the three operands for output element e (relative to the output's offset).
// The rows walk passes the row and the column; the others pass e alone.
uvec3 operand_index(uint e, uint row, uint col) {
#if BCAST == OG_ELT_WALK_SAME_SHAPE
  return uvec3(p.offset_a + e, p.offset_b + e, p.offset_c + e);
#elif BCAST == OG_ELT_WALK_ROWS
  return uvec3(p.offset_a + row * p.stride_a[0] + col * p.stride_a[1], p.offset_b + row * p.stride_b[0] + col * p.stride_b[1],
               p.offset_c + row * p.stride_c[0] + col * p.stride_c[1]);
#else
  uvec3 i = uvec3(p.offset_a, p.offset_b, p.offset_c);
  uint q = e;
  for (int d = int(rank()) - 1; d >= 0; --d) {
    const uint x = q % p.shape[d];
    q /= p.shape[d];
    i += x * uvec3(p.stride_a[d], p.stride_b[d], p.stride_c[d]);
  }
  return i;
#endif
}

// The value of output element e.
uvec2 element(uint e, uint row, uint col) {
#if GROUP == OG_ELT_GROUP_FILL
  if (kind() == OG_ELT_RANGE) return range_value(e);
  return compute(uvec2(0u), uvec2(0u), uvec2(0u));
#else
  const uint ti = in_type();
  const uvec3 i = operand_index(e, row, col);
  const uvec2 ra = raw(0u, ti, i.x);
  const uvec2 rb = GROUP == OG_ELT_GROUP_WHERE || (GROUP != OG_ELT_GROUP_CAST && reads_b()) ? raw(1u, ti, i.y) : uvec2(0u);
  const uvec2 rc = GROUP == OG_ELT_GROUP_WHERE ? raw(2u, OG_T_BOOL, i.z) : uvec2(0u);
  return compute(ra, rb, rc);
#endif
}

// Each workgroup owns WORDS x 256 output words (int64: elements); invocation t takes words t,
// t + 256, ... Within a word, elements outside [out_offset, out_offset + count) keep their bits.
// Results are stored after all are computed, so the loads of all words are in flight together.
#define WORDS OG_ELT_WORDS(GROUP, BCAST, FIXED)

void main() {
  const uint to = out_type();
  const uint per = elements_per_word(to);
  const uint first = p.out_offset / per;  // first output word (int64: element)
  const uint t = gl_LocalInvocationIndex;
#if BCAST == OG_ELT_WALK_ROWS
  // 2-D: x counts WORDS x 256 words within a row, y and z the row. Rows hold whole words (checked
  // on the host).
  const uint row = gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z;
  const uint words_per_row = p.shape[1] / per;
  const uint row_first = gl_WorkGroupID.x * (256u * WORDS) + t;  // word within the row
  if (row >= p.shape[0]) return;
  const uint limit = words_per_row, start = row * words_per_row;
#else
  const uint row = 0u;
  const uint row_first = og_workgroup_index() * (256u * WORDS) + t;
  const uint limit = (p.out_offset + p.count - 1u) / per - first + 1u, start = 0u;
#endif
  uvec2 result[WORDS];
  if (per == 1u) {
    // One element per word: no merging with the old contents. Every operand word is loaded before
    // any is used, so all loads are in flight together (the operations branch on the push constants,
    // and loads are not moved across branches).
#if GROUP == OG_ELT_GROUP_FILL
    [[unroll]] for (uint u = 0u; u < WORDS; ++u) {
      const uint w = row_first + 256u * u;
      result[u] = w < limit ? element(start + w, row, w) : uvec2(0u);
    }
#else
    const uint ti = in_type();
    uvec2 ra[WORDS], rb[WORDS], rc[WORDS];
    uvec3 idx[WORDS];
    [[unroll]] for (uint u = 0u; u < WORDS; ++u) {
      const uint w = row_first + 256u * u;
      idx[u] = operand_index(start + w, row, w);
      ra[u] = w < limit ? raw(0u, ti, idx[u].x) : uvec2(0u);
    }
    const bool with_b = GROUP == OG_ELT_GROUP_WHERE || (GROUP != OG_ELT_GROUP_CAST && reads_b());
    [[unroll]] for (uint u = 0u; u < WORDS; ++u)
      rb[u] = with_b && row_first + 256u * u < limit ? raw(1u, ti, idx[u].y) : uvec2(0u);
    [[unroll]] for (uint u = 0u; u < WORDS; ++u)
      rc[u] = GROUP == OG_ELT_GROUP_WHERE && row_first + 256u * u < limit ? raw(2u, OG_T_BOOL, idx[u].z) : uvec2(0u);
#if GROUP == OG_ELT_GROUP_FLOAT
    if (kind() == OG_ELT_UNARY && ti == OG_T_F32) {  // the operation chosen once for all words
      float v[WORDS];
      [[unroll]] for (uint u = 0u; u < WORDS; ++u) v[u] = uintBitsToFloat(ra[u].x);
#define OG_EACH_WORD(code, value)                                \
  case code:                                                     \
    [[unroll]] for (uint u = 0u; u < WORDS; ++u) {               \
      const float x = v[u];                                      \
      v[u] = value;                                              \
    }                                                            \
    break;
      switch (op()) { OG_UNARY_CASES(OG_EACH_WORD, x, p.alpha, p.beta) }
#undef OG_EACH_WORD
      [[unroll]] for (uint u = 0u; u < WORDS; ++u) result[u] = uvec2(floatBitsToUint(v[u]), 0u);
    } else
#endif
    [[unroll]] for (uint u = 0u; u < WORDS; ++u) result[u] = compute(ra[u], rb[u], rc[u]);
#endif
  } else {
    [[unroll]] for (uint u = 0u; u < WORDS; ++u) {
      const uint w = row_first + 256u * u;
      if (w >= limit) continue;
      const uint g0 = (first + start + w) * per;  // global index of the word's first element
      const uint old = out_words[first + start + w];
      uint bits = 0u;
      for (uint j = 0u; j < per; ++j) {
        const uint g = g0 + j;
        const uint shift = j * (32u / per);
        const uint mask = ((1u << (32u / per)) - 1u) << shift;
        if (g < p.out_offset || g >= p.out_offset + p.count) {
          bits |= old & mask;
        } else {
          const uint e = g - p.out_offset;
          bits |= (element(e, row, (w * per + j)).x << shift) & mask;
        }
      }
      result[u] = uvec2(bits, 0u);
    }
  }
  [[unroll]] for (uint u = 0u; u < WORDS; ++u) {
    const uint w = row_first + 256u * u;
    if (w >= limit) continue;
    const uint word = first + start + w;
    if (to == OG_T_I64) {
      out_words[2u * word] = result[u].x;
      out_words[2u * word + 1u] = result[u].y;
    } else {
      out_words[word] = result[u].x;
    }
  }
}
