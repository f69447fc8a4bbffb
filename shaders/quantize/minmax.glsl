// DynamicQuantizeLinear's minimum and maximum: as order-preserving integer keys of the float bits
// (exact for subnormals, and the same whatever order the partial results combine in). NaN is left
// out. The range starts at zero, as ONNX's includes it.
#ifndef ONEGPU_MINMAX_GLSL
#define ONEGPU_MINMAX_GLSL

#define OG_KEY_ZERO 0x80000000u  // the key of +0.0

uint og_key(uint bits) { return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u; }
uint og_unkey(uint key) { return (key & 0x80000000u) != 0u ? key & 0x7fffffffu : ~key; }
bool og_is_nan(uint bits) { return (bits & 0x7fffffffu) > OG_F32_INF; }

shared uint og_min_keys[OG_QUANT_WORKGROUP];
shared uint og_max_keys[OG_QUANT_WORKGROUP];

// Combines each invocation's (minimum, maximum) keys over the workgroup; every invocation gets the
// result.
uvec2 og_workgroup_minmax(uint lo, uint hi) {
  const uint t = gl_LocalInvocationID.x;
  og_min_keys[t] = lo;
  og_max_keys[t] = hi;
  barrier();
  for (uint s = OG_QUANT_WORKGROUP / 2u; s > 0u; s >>= 1) {
    if (t < s) {
      og_min_keys[t] = min(og_min_keys[t], og_min_keys[t + s]);
      og_max_keys[t] = max(og_max_keys[t], og_max_keys[t + s]);
    }
    barrier();
  }
  const uvec2 r = uvec2(og_min_keys[0], og_max_keys[0]);
  barrier();
  return r;
}

#ifdef DYNAMIC
// Scale and zero point from `count` partial pairs, as ONNX runtimes compute them in float32:
// min = min(x, 0), max = max(x, 0); scale = max == min ? 1 : (max - min) / 255;
// zero = round_half_even(max(0, min(255, 0 - min / scale))) where min(255, NaN) is 255.
uvec2 og_dynamic_parameters(uint count) {
  uint lo = OG_KEY_ZERO, hi = OG_KEY_ZERO;
  for (uint i = gl_LocalInvocationID.x; i < count; i += OG_QUANT_WORKGROUP) {
    lo = min(lo, partials[2u * i]);
    hi = max(hi, partials[2u * i + 1u]);
  }
  const uvec2 k = og_workgroup_minmax(lo, hi);
  const uint min_bits = og_unkey(k.x), max_bits = og_unkey(k.y);
  // max >= 0 >= min, so max - min adds the magnitudes; max == min only when both are zero.
  const bool equal = (min_bits & 0x7fffffffu) == 0u && (max_bits & 0x7fffffffu) == 0u;
  const uint scale =
      equal ? 0x3f800000u : og_div_f32(og_add_magnitudes_f32(max_bits, min_bits & 0x7fffffffu), 0x437f0000u);
  const uint z = og_div_f32(min_bits, scale) ^ 0x80000000u;  // 0 - v is -v, and +0 for v = -0
  const uint zero_bits = (z & 0x7fffffffu) == 0u ? 0u : z;
  uint zero;
  if ((zero_bits & 0x7fffffffu) > OG_F32_INF) {
    zero = 255u;
  } else {
    zero = uint(og_quantize_bits(zero_bits, 0, 0, 255));
  }
  return uvec2(scale, zero);
}
#endif

#endif
