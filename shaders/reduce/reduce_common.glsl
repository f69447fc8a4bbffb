// Element access and the operations' algebra for the reduction kernels. Expects `p` (ReducePush),
// in_words[] and, unless ARG, nothing else.
#include "common/half.glsl"

float red_load(uint e) {
  if ((p.flags & OG_RED_HALF) != 0u) return og_half_at(in_words[e >> 1], e);
  return uintBitsToFloat(in_words[e]);
}

// Input element index of kept element o (without the reduced part).
uint red_kept_base(uint o) {
  uint off = p.in_offset;
  for (int i = int(p.kept_runs) - 1; i >= 0; --i) {
    off += (o % p.kept_size[i]) * p.kept_stride[i];
    o /= p.kept_size[i];
  }
  return off;
}

// Offset of reduced element r; a single run needs no division.
uint red_offset(uint r) {
  if (p.red_runs == 1u) return r * p.red_stride[0];
  uint off = 0u;
  for (int i = int(p.red_runs) - 1; i >= 0; --i) {
    off += (r % p.red_size[i]) * p.red_stride[i];
    r /= p.red_size[i];
  }
  return off;
}

#define OG_NAN OG_FLOAT_BITS(0x7fc00000u)
#define OG_INF OG_FLOAT_BITS(0x7f800000u)

float red_identity(uint op) {
  if (op == OG_RED_MAX) return -OG_INF;
  if (op == OG_RED_MIN) return OG_INF;
  if (op == OG_RED_PROD) return 1.0;
  return 0.0;
}

float red_map(uint op, float x) {
  if (op == OG_RED_L1) return abs(x);
  if (op == OG_RED_L2 || op == OG_RED_SUM_SQUARE) return x * x;
  return x;
}

// Max and Min propagate NaN.
float red_combine(uint op, float a, float b) {
  if (op == OG_RED_MAX) return (og_isnan(a) || og_isnan(b)) ? OG_NAN : max(a, b);
  if (op == OG_RED_MIN) return (og_isnan(a) || og_isnan(b)) ? OG_NAN : min(a, b);
  if (op == OG_RED_PROD) return a * b;
  return a + b;
}

float red_finish(uint op, float s) {
  if (op == OG_RED_MEAN) return s / float(p.count);
  if (op == OG_RED_L2) return sqrt(s);
  if (op == OG_RED_LOG_SUM) return log(s);
  return s;
}

// (value, index) pairs for ArgMax/ArgMin: NaN is the extreme, the first occurrence wins.
bool arg_better(uint op, float v, uint i, float w, uint j) {
  const bool vn = og_isnan(v), wn = og_isnan(w);
  if (vn || wn) return vn && (!wn || i < j);
  if (v == w) return i < j;
  return op == OG_RED_ARG_MAX ? v > w : v < w;
}
