// Row access for softmax and normalisation: float32 elements, or half pairs as units when the
// row is contiguous. Expects `p` (RowsPush), in_words[] and out_words[].
#include "common/half.glsl"
#define OG_NAN OG_FLOAT_BITS(0x7fc00000u)
#define OG_INF OG_FLOAT_BITS(0x7f800000u)

bool rows_half() { return (p.flags & OG_ROWS_HALF) != 0u; }

// Element index of the row's first element.
uint row_base(uint row) { return (row / p.inner) * p.len * p.inner + (row % p.inner); }

// Units of a row: elements (float32) or pairs (half).
uint row_units() { return rows_half() ? p.len / 2u : p.len; }

vec2 load_unit(uint base, uint u) {
  if (rows_half()) {
    const uint w = in_words[(p.in_offset + base) / 2u + u];
    return unpackHalf2x16(w);
  }
  return vec2(uintBitsToFloat(in_words[p.in_offset + base + u * p.inner]), 0.0);
}

void store_unit(uint base, uint u, vec2 v) {
  if (rows_half()) out_words[(p.out_offset + base) / 2u + u] = og_pack_half2(v.x, v.y);
  else out_words[p.out_offset + base + u * p.inner] = floatBitsToUint(v.x);
}

float nanmax(float a, float b) { return (og_isnan(a) || og_isnan(b)) ? OG_NAN : max(a, b); }
