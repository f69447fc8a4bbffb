#version 450
// Layer and RMS normalisation over the last axis, one workgroup per row. Invocation t folds units
// t, t + 256, ... in runs of 32; the partials are merged by the fixed halving tree or, with
// SUBGROUPS, by subgroup arithmetic. Layer: y = (x - mean) / sqrt(var + eps) * scale + bias with
// var the mean of (x - mean)^2; RMS: y = x / sqrt(mean(x^2) + eps) * scale + bias.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "reduce/rows_push.h"
#include "common/grid.glsl"
#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RowsPush, p);
layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
layout(std430, binding = 1) buffer Out { uint out_words[]; };
layout(std430, binding = 2) readonly buffer Scale { float scale_data[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias_data[]; };
#include "reduce/rows_common.glsl"

shared float red[256];

float sum_all(float v) {
  const uint t = gl_LocalInvocationIndex;
#ifdef SUBGROUPS
  const float s = subgroupAdd(v);
  if (gl_SubgroupInvocationID == 0u) red[og_subgroup_id] = s;
  barrier();
  float r = red[0];
  for (uint i = 1u; i < og_num_subgroups; ++i) r += red[i];
  barrier();
  return r;
#else
  red[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) red[t] = red[t] + red[t + s];
    barrier();
  }
  const float r = red[0];
  barrier();
  return r;
#endif
}

// Elements t, t + 256, ... of a float32 row stay in registers when they fit (rows of up to 4096), so
// the row is read once.
#define CACHE 16u
float xs[CACHE];

// Sum over the row of (x - shift)^2 (square) or of x - shift, in runs of 32 units. Rows that fit the
// cache are one run per invocation: the same order from registers.
float fold(bool cached, uint base, uint units, uint per_unit, float shift, bool square) {
  float acc = 0.0;
  if (cached) {
    float run = 0.0;
    [[unroll]] for (uint i = 0u; i < CACHE; ++i)
      if (gl_LocalInvocationIndex + 256u * i < units) {
        const float d = xs[i] - shift;
        run += square ? d * d : d;
      }
    acc += run;
    return acc;
  }
  uint u = gl_LocalInvocationIndex;
  while (u < units) {
    float run = 0.0;
    for (uint i = 0u; i < 32u && u < units; ++i, u += 256u) {
      const vec2 x = load_unit(base, u);
      for (uint j = 0u; j < per_unit; ++j) {
        const float d = x[j] - shift;
        run += square ? d * d : d;
      }
    }
    acc += run;
  }
  return acc;
}

float normalised1(uint col, float x, float mean, float inv) {
  float v = (x - mean) * inv;
  if ((p.flags & OG_ROWS_SCALE) != 0u) v = v * scale_data[p.scale_offset + col];
  if ((p.flags & OG_ROWS_BIAS) != 0u) v = v + bias_data[p.bias_offset + col];
  return v;
}

vec2 normalised(uint u, vec2 x, uint per_unit, float mean, float inv) {
  return vec2(normalised1(u * per_unit, x.x, mean, inv), per_unit == 2u ? normalised1(u * 2u + 1u, x.y, mean, inv) : 0.0);
}

void main() {
  const uint row = og_workgroup_index();
  if (row >= p.rows) return;  // uniform
  const uint t = gl_LocalInvocationIndex;
  const uint per_unit = rows_half() ? 2u : 1u;
  const uint units = row_units();
  const uint base = row * p.len;
  const float n = float(p.len);
  const bool rms = (p.flags & OG_ROWS_RMS) != 0u;
  const bool cached = !rows_half() && units <= CACHE * 256u;
  if (cached)
    [[unroll]] for (uint i = 0u; i < CACHE; ++i) {
      const uint u = t + 256u * i;
      xs[i] = u < units ? load_unit(base, u).x : 0.0;
    }
  float mean = 0.0;
  if (!rms) mean = sum_all(fold(cached, base, units, per_unit, 0.0, false)) / n;
  const float var = sum_all(fold(cached, base, units, per_unit, mean, true)) / n;
  const float inv = 1.0 / sqrt(var + p.epsilon);
  if (cached) {
    [[unroll]] for (uint i = 0u; i < CACHE; ++i) {
      const uint u = t + 256u * i;
      if (u < units) store_unit(base, u, vec2(normalised1(u, xs[i], mean, inv), 0.0));
    }
  } else {
    for (uint u = t; u < units; u += 256u) store_unit(base, u, normalised(u, load_unit(base, u), per_unit, mean, inv));
  }
}
