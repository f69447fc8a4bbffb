#version 450
// Softmax and LogSoftmax along one axis. PATH 0: one invocation per row (rows shorter than 16);
// PATH 1: the fixed halving tree over a power-of-two group of lanes per row (lane l folds units
// l, l + group, ...), each of the row's min(group, 32) invocations holding LANES lanes; PATH 2:
// one workgroup per row (rows over 1024), merged by the tree or, with SUBGROUPS, by subgroup
// arithmetic; PATH 3 (fast mode, SUBGROUPS): one subgroup per row of 16 to 1024, merged by subgroup
// arithmetic, no barrier. A row with NaN, +inf or only -inf gives NaN; -inf beside finite values
// gives 0.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "reduce/rows_push.h"
#include "common/grid.glsl"
#include "common/activation.glsl"
#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RowsPush, p);
layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
layout(std430, binding = 1) buffer Out { uint out_words[]; };
#include "reduce/rows_common.glsl"


// e^x for x <= 0 (or NaN): 0 below the smallest normal float.
float sm_exp(float x) {
  if (og_isnan(x)) return x;
  return x < -87.0 ? 0.0 : og_exp(x);
}

// Component indices stay constant throughout: a register array indexed by a runtime value would
// be moved to memory.
float finish1(float x, float m, float s) {
  const float d = x - m;
  return (p.flags & OG_ROWS_LOG) != 0u ? d - log(s) : sm_exp(d) / s;
}

vec2 finish(vec2 x, float m, float s, uint n) {
  return vec2(finish1(x.x, m, s), n == 2u ? finish1(x.y, m, s) : 0.0);
}

// The two statistics' combining step (the trees of PATH 1 and 2).
float combine(bool is_max, float a, float b) { return is_max ? nanmax(a, b) : a + b; }

#if PATH == 2
shared float red[256];

// The fixed halving tree over red[first .. first + g) (g a power of two): level s combines node j
// with node j + s, s = g / 2 ... 1, and the root ends in red[first]. A lane computes its node three
// levels down from the eight values it needs, in the same nesting and argument order, so the bits
// are those of one level per barrier with a third of the barriers. Lane j writes only red[first + j],
// which no other lane reads in that round.
void halving_tree(uint lane, uint first, uint g, bool is_max) {
  uint s = g / 2u;
  while (s > 0u) {
    const uint q = s >= 4u ? s / 4u : 1u;  // nodes computed this round
    if (lane < q) {
      float r;
      if (s >= 4u) {
        float l[4];  // level s at lane, lane + q, lane + 2q, lane + 3q
        [[unroll]] for (uint y = 0u; y < 4u; ++y)
          l[y] = combine(is_max, red[first + lane + y * q], red[first + lane + y * q + s]);
        r = combine(is_max, combine(is_max, l[0], l[2]), combine(is_max, l[1], l[3]));
      } else if (s == 2u) {
        r = combine(is_max, combine(is_max, red[first], red[first + 2u]), combine(is_max, red[first + 1u], red[first + 3u]));
      } else {
        r = combine(is_max, red[first], red[first + 1u]);
      }
      red[first + lane] = r;
    }
    barrier();
    s = s >= 4u ? s / 8u : 0u;
  }
}
#endif

// A lane's elements of a float32 row (lane, lane + step, ...) stay in registers when they fit, so
// the row is read once; half rows and longer rows are read again for each statistic. The sums run
// in the same order either way.
#define CACHE 16u
float xs[CACHE];

bool cache_row(uint base, uint lane, uint step, uint units, bool valid) {
  if (rows_half() || units > CACHE * step) return false;
  [[unroll]] for (uint i = 0u; i < CACHE; ++i) {
    const uint u = lane + step * i;
    xs[i] = valid && u < units ? load_unit(base, u).x : 0.0;
  }
  return true;
}

float lane_max(bool cached, uint base, uint lane, uint step, uint units, uint per_unit, bool valid) {
  float m = -OG_INF;
  if (cached) {
    [[unroll]] for (uint i = 0u; i < CACHE; ++i)
      if (lane + step * i < units) m = nanmax(m, xs[i]);
  } else if (valid) {
    for (uint u = lane; u < units; u += step) {
      const vec2 x = load_unit(base, u);
      for (uint j = 0u; j < per_unit; ++j) m = nanmax(m, x[j]);
    }
  }
  return m;
}

float lane_sum(bool cached, uint base, uint lane, uint step, uint units, uint per_unit, bool valid, float m) {
  float sum = 0.0;
  if (cached) {
    [[unroll]] for (uint i = 0u; i < CACHE; ++i)
      if (lane + step * i < units) {
        const float e = sm_exp(xs[i] - m);
        sum += e;
        if ((p.flags & OG_ROWS_LOG) == 0u) xs[i] = e;  // kept for the output
      }
  } else if (valid) {
    for (uint u = lane; u < units; u += step) {
      const vec2 x = load_unit(base, u);
      for (uint j = 0u; j < per_unit; ++j) sum += sm_exp(x[j] - m);
    }
  }
  return sum;
}

void write_row(bool cached, uint base, uint lane, uint step, uint units, uint per_unit, bool valid, float m, float sum) {
  if (!valid) return;
  if (cached) {
#if PATH == 1 || PATH == 3
    const float inv = 1.0 / sum;  // one rounding more than a division, within the tolerance
#endif
    [[unroll]] for (uint i = 0u; i < CACHE; ++i) {
      const uint u = lane + step * i;
      if (u < units) {
#if PATH == 1 || PATH == 3
        const float y = (p.flags & OG_ROWS_LOG) != 0u ? finish1(xs[i], m, sum) : xs[i] * inv;
#else
        const float y = (p.flags & OG_ROWS_LOG) != 0u ? finish1(xs[i], m, sum) : xs[i] / sum;
#endif
        store_unit(base, u, vec2(y, 0.0));
      }
    }
  } else {
    for (uint u = lane; u < units; u += step) store_unit(base, u, finish(load_unit(base, u), m, sum, per_unit));
  }
}

#if PATH == 1
// The group's lanes l = j + w a (a < LANES) belong to invocation j of the row's w invocations, so
// the invocation's units are j + w k with lane a folding k = a, a + LANES, ... in order, and tree
// levels s >= w combine lanes of one invocation. The last log2(w) levels are computed by every
// invocation of the row from the w values in workgroup memory, in the tree's order: one barrier
// per statistic and the same bits as one level per barrier.
shared float red_max[256];
shared float red_sum[256];

// Levels s = LANES / 2 ... 1 of the lanes an invocation holds.
float fold_lanes(bool is_max, float l[LANES]) {
  [[unroll]] for (uint s = LANES / 2u; s > 0u; s /= 2u)
    [[unroll]] for (uint a = 0u; a < s; ++a) l[a] = combine(is_max, l[a], l[a + s]);
  return l[0];
}

// Levels s = w / 2 ... 1 over the w nodes at red[first ..] (w from 2 to 32).
float fold_shared(bool is_max, uint first, uint w) {
  const uint h = w / 2u;
  float v[16];
  [[unroll]] for (uint n = 0u; n < 16u; ++n)
    v[n] = n < h ? (is_max ? nanmax(red_max[first + n], red_max[first + n + h])
                           : red_sum[first + n] + red_sum[first + n + h])
                 : 0.0;
  [[unroll]] for (uint s = 8u; s > 0u; s /= 2u)
    if (s < h) [[unroll]] for (uint n = 0u; n < s; ++n) v[n] = combine(is_max, v[n], v[n + s]);
  return v[0];
}

// The invocation's lanes for max (m unused) or for the sum of exponentials, which replace the
// cached values for the output.
float group_lanes(bool is_max, bool cached, uint base, uint j, uint w, uint units, uint per_unit, bool valid,
                  float m) {
  float l[LANES];
  [[unroll]] for (uint a = 0u; a < LANES; ++a) l[a] = is_max ? -OG_INF : 0.0;
  if (cached) {
    [[unroll]] for (uint k = 0u; k < CACHE; ++k)
      if (j + w * k < units) {
        if (is_max) {
          l[k % LANES] = nanmax(l[k % LANES], xs[k]);
        } else {
          const float e = sm_exp(xs[k] - m);
          l[k % LANES] += e;
          if ((p.flags & OG_ROWS_LOG) == 0u) xs[k] = e;
        }
      }
  } else if (valid) {
    for (uint k0 = 0u; j + w * k0 < units; k0 += LANES)
      [[unroll]] for (uint a = 0u; a < LANES; ++a) {
        const uint u = j + w * (k0 + a);
        if (u < units) {
          const vec2 x = load_unit(base, u);
          for (uint i = 0u; i < per_unit; ++i)
            l[a] = is_max ? nanmax(l[a], x[i]) : l[a] + sm_exp(x[i] - m);
        }
      }
  }
  return fold_lanes(is_max, l);
}
#endif

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint per_unit = rows_half() ? 2u : 1u;
  const uint units = row_units();
#if PATH == 3
  // Rows are handed out per subgroup; the host sizes the grid for the widest subgroup the device
  // has, so narrower subgroups only leave trailing workgroups without rows.
  const uint row = og_workgroup_index() * og_num_subgroups + og_subgroup_id;
  const bool valid = row < p.rows;
  const uint base = valid ? row_base(row) : 0u;
  const uint lane = gl_SubgroupInvocationID, width = gl_SubgroupSize;
  const bool cached = cache_row(base, lane, width, units, valid);
  float m = lane_max(cached, base, lane, width, units, per_unit, valid);
  m = subgroupAny(og_isnan(m)) ? OG_NAN : subgroupMax(m);
  const float sum = subgroupAdd(lane_sum(cached, base, lane, width, units, per_unit, valid, m));
  write_row(cached, base, lane, width, units, per_unit, valid, m, sum);
#elif PATH == 0
  const uint row = og_workgroup_index() * 256u + t;
  if (row >= p.rows) return;
  const uint base = row_base(row);
  float m = -OG_INF;
  for (uint u = 0u; u < units; ++u) {
    const vec2 x = load_unit(base, u);
    for (uint i = 0u; i < per_unit; ++i) m = nanmax(m, x[i]);
  }
  float s = 0.0;
  for (uint u = 0u; u < units; ++u) {
    const vec2 x = load_unit(base, u);
    for (uint i = 0u; i < per_unit; ++i) s += sm_exp(x[i] - m);
  }
  for (uint u = 0u; u < units; ++u) store_unit(base, u, finish(load_unit(base, u), m, s, per_unit));
#elif PATH == 1
  // Invocations per row: 32 as a compile-time constant when LANES > 1, which the H200 ran 15%
  // faster than the same value from the push constants (SoftmaxPlan: min(group, 32)).
  const uint w = LANES > 1u ? 32u : p.group;
  const uint j = t % w, first = t - j;
  const uint row = og_workgroup_index() * (256u / w) + t / w;
  const bool valid = row < p.rows;  // per invocation: rows differ within a workgroup
  const uint base = valid ? row_base(row) : 0u;
  const bool cached = cache_row(base, j, w, units, valid);
  red_max[t] = group_lanes(true, cached, base, j, w, units, per_unit, valid, 0.0);
  barrier();
  const float m = fold_shared(true, first, w);
  red_sum[t] = group_lanes(false, cached, base, j, w, units, per_unit, valid, m);
  barrier();
  const float sum = fold_shared(false, first, w);
  write_row(cached, base, j, w, units, per_unit, valid, m, sum);
#else
  const uint g = 256u;
  const uint lane = t, first = 0u;
  const uint row = og_workgroup_index();
  if (row >= p.rows) return;  // uniform
  const bool valid = true;
  const uint base = row_base(row);
  const bool cached = cache_row(base, lane, g, units, valid);

  float m = lane_max(cached, base, lane, g, units, per_unit, valid);
#if PATH == 2 && defined(SUBGROUPS)
  {
    const bool any_nan = subgroupAny(og_isnan(m));
    const float sm = any_nan ? OG_NAN : subgroupMax(m);
    if (gl_SubgroupInvocationID == 0u) red[og_subgroup_id] = sm;
    barrier();
    m = red[0];
    for (uint i = 1u; i < og_num_subgroups; ++i) m = nanmax(m, red[i]);
    barrier();
  }
#else
  red[t] = m;
  barrier();
  halving_tree(lane, first, g, true);
  m = red[first];
  barrier();
#endif

  float sum = lane_sum(cached, base, lane, g, units, per_unit, valid, m);
#if PATH == 2 && defined(SUBGROUPS)
  {
    const float ss = subgroupAdd(sum);
    if (gl_SubgroupInvocationID == 0u) red[og_subgroup_id] = ss;
    barrier();
    sum = red[0];
    for (uint i = 1u; i < og_num_subgroups; ++i) sum += red[i];
  }
#else
  red[t] = sum;
  barrier();
  halving_tree(lane, first, g, false);
  sum = red[first];
#endif
  write_row(cached, base, lane, g, units, per_unit, valid, m, sum);
#endif
}
