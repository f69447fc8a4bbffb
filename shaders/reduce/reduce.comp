#version 450
// Reductions. One source, built per path (PATH) and per result kind (ARG), with subgroup
// arithmetic (SUBGROUPS) for the fast workgroup combine:
//   PATH 0  one invocation per output, elements in index order
//   PATH 1  one workgroup per output: invocation t folds elements t, t + 256, ... in runs of 32,
//           then the 256 partials are combined
//   PATH 2  two passes, first: one workgroup per (output, chunk) writes a partial to the scratch
//   PATH 3  two passes, second: one workgroup per output combines its chunks' partials (up to 4096)
//   PATH 4  columns, first: one invocation per (output, chunk) folds its chunk in order
//   PATH 5  columns, second: one invocation per output adds its chunks' partials in order
//   PATH 6  columns, first, four neighbouring outputs per invocation
// The combine is the fixed halving tree (t with t + s, s = 128 ... 1) unless SUBGROUPS.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "reduce/reduce_push.h"
#include "common/grid.glsl"
#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ReducePush, p);
layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
#ifdef OG_WEBGPU
// WebGPU binds a buffer once per dispatch: the vec4 view reads four words of the one binding.
vec4 in4_at(uint i) {
  return uintBitsToFloat(uvec4(in_words[4u * i], in_words[4u * i + 1u], in_words[4u * i + 2u], in_words[4u * i + 3u]));
}
#else
layout(std430, binding = 0) readonly buffer In4 { vec4 in4[]; };
vec4 in4_at(uint i) { return in4[i]; }
#endif
layout(std430, binding = 1) buffer Out { uint out_words[]; };
layout(std430, binding = 2) buffer ScratchValues { float scratch_values[]; };
#ifdef ARG
layout(std430, binding = 3) buffer ScratchIndices { uint scratch_indices[]; };
#endif
#include "reduce/reduce_common.glsl"

void write_value(uint o, float v) {
  const uint e = p.out_offset + o;
  if ((p.flags & OG_RED_HALF) != 0u) {
    // Two outputs share a word and may come from different workgroups: disjoint bits, integer atomics.
    const uint shift = (e & 1u) * 16u;
    atomicAnd(out_words[e >> 1], ~(0xffffu << shift));
    atomicOr(out_words[e >> 1], og_f32_to_f16(v) << shift);
  } else {
    out_words[e] = floatBitsToUint(v);
  }
}

void write_index(uint o, uint i) {  // int64, little-endian words
  const uint e = p.out_offset + o;
  out_words[2u * e] = i;
  out_words[2u * e + 1u] = 0u;
}

#if PATH == 1 || PATH == 2 || PATH == 3
shared float sv[256];
#ifdef ARG
shared uint si[256];
#endif

#ifdef ARG
// Leaves the workgroup's best pair in sv[0], si[0].
void combine_arg(float v, uint i) {
  const uint t = gl_LocalInvocationIndex;
  sv[t] = v;
  si[t] = i;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s && arg_better(p.op, sv[t + s], si[t + s], sv[t], si[t])) {
      sv[t] = sv[t + s];
      si[t] = si[t + s];
    }
    barrier();
  }
}
#else
// Returns the combined value in invocation 0.
float combine_all(float v) {
  const uint t = gl_LocalInvocationIndex;
#ifdef SUBGROUPS
  const uint op = p.op;
  float s;
  if (op == OG_RED_MAX || op == OG_RED_MIN) {
    const bool any_nan = subgroupAny(og_isnan(v));
    s = any_nan ? OG_NAN : (op == OG_RED_MAX ? subgroupMax(v) : subgroupMin(v));
  } else if (op == OG_RED_PROD) {
    s = subgroupMul(v);
  } else {
    s = subgroupAdd(v);
  }
  if (gl_SubgroupInvocationID == 0u) sv[og_subgroup_id] = s;
  barrier();
  float r = sv[0];
  if (t == 0u)
    for (uint i = 1u; i < og_num_subgroups; ++i) r = red_combine(op, r, sv[i]);
  return r;
#else
  sv[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) sv[t] = red_combine(p.op, sv[t], sv[t + s]);
    barrier();
  }
  return sv[0];
#endif
}
#endif
#endif

#ifndef ARG
// Invocation `lane` of a group folds reduced elements group_begin + lane, + 256, ... below `end`
// in runs of 32 terms; a sequential fold (lane 0, step 1) serves the one-invocation paths. With
// OG_RED_VEC4 the group folds units of four neighbouring elements instead, in element order.
float fold(uint base, uint group_begin, uint end, uint lane, uint step) {
  const uint op = p.op;
  float acc = red_identity(op);
  if ((p.flags & OG_RED_VEC4) != 0u && step == 256u) {
    uint u = group_begin / 4u + lane;
    const uint stop = end / 4u;
    while (u < stop) {
      float run = red_identity(op);
      for (uint i = 0u; i < 32u && u < stop; ++i, u += 256u) {
        const vec4 v = in4_at(base / 4u + u);
        run = red_combine(op, run, red_map(op, v.x));
        run = red_combine(op, run, red_map(op, v.y));
        run = red_combine(op, run, red_map(op, v.z));
        run = red_combine(op, run, red_map(op, v.w));
      }
      acc = red_combine(op, acc, run);
    }
    return acc;
  }
  uint r = group_begin + lane;
  while (r < end) {
    float run = red_identity(op);
    for (uint i = 0u; i < 32u && r < end; ++i, r += step) run = red_combine(op, run, red_map(op, red_load(base + red_offset(r))));
    acc = red_combine(op, acc, run);
  }
  return acc;
}
#else
void fold_arg(uint base, uint group_begin, uint end, uint lane, uint step, inout float best, inout uint best_i) {
  if ((p.flags & OG_RED_VEC4) != 0u && step == 256u) {
    for (uint u = group_begin / 4u + lane; u < end / 4u; u += 256u) {
      const vec4 v = in4_at(base / 4u + u);
      for (uint j = 0u; j < 4u; ++j)
        if (arg_better(p.op, v[j], 4u * u + j, best, best_i)) { best = v[j]; best_i = 4u * u + j; }
    }
    return;
  }
  for (uint r = group_begin + lane; r < end; r += step) {
    const float v = red_load(base + red_offset(r));
    if (arg_better(p.op, v, r, best, best_i)) { best = v; best_i = r; }
  }
}
#endif

void main() {
  const uint t = gl_LocalInvocationIndex;
#if PATH == 0
  const uint o = og_workgroup_index() * 256u + t;
  if (o >= p.outputs) return;
#ifdef ARG
  float best = red_load(red_kept_base(o));
  uint best_i = 0u;
  fold_arg(red_kept_base(o), 1u, p.count, 0u, 1u, best, best_i);
  write_index(o, best_i);
#else
  write_value(o, red_finish(p.op, fold(red_kept_base(o), 0u, p.count, 0u, 1u)));
#endif

#elif PATH == 1
  const uint o = og_workgroup_index();
  if (o >= p.outputs) return;  // uniform: before any barrier
  const uint base = red_kept_base(o);
#ifdef ARG
  float best = p.op == OG_RED_ARG_MAX ? -OG_INF : OG_INF;
  uint best_i = 0xffffffffu;
  fold_arg(base, 0u, p.count, t, 256u, best, best_i);
  combine_arg(best, best_i);
  if (t == 0u) write_index(o, si[0]);
#else
  const float r = combine_all(fold(base, 0u, p.count, t, 256u));
  if (t == 0u) write_value(o, red_finish(p.op, r));
#endif

#elif PATH == 2
  const uint w = og_workgroup_index();
  if (w >= p.outputs * p.chunks) return;
  const uint o = w / p.chunks, c = w % p.chunks;
  const uint base = red_kept_base(o);
  const uint begin = c * p.chunk, end = min(p.count, begin + p.chunk);
#ifdef ARG
  float best = p.op == OG_RED_ARG_MAX ? -OG_INF : OG_INF;
  uint best_i = 0xffffffffu;
  fold_arg(base, begin, end, t, 256u, best, best_i);
  combine_arg(best, best_i);
  if (t == 0u) {
    scratch_values[o * p.scratch_stride + c] = sv[0];
    scratch_indices[o * p.scratch_stride + c] = si[0];
  }
#else
  const float r = combine_all(fold(base, begin, end, t, 256u));
  if (t == 0u) scratch_values[o * p.scratch_stride + c] = r;
#endif

#elif PATH == 3
  const uint o = og_workgroup_index();
  if (o >= p.outputs) return;
#ifdef ARG
  float best = p.op == OG_RED_ARG_MAX ? -OG_INF : OG_INF;
  uint best_i = 0xffffffffu;
  for (uint c = t; c < p.chunks; c += 256u) {
    const float v = scratch_values[o * p.scratch_stride + c];
    const uint i = scratch_indices[o * p.scratch_stride + c];
    if (arg_better(p.op, v, i, best, best_i)) { best = v; best_i = i; }
  }
  combine_arg(best, best_i);
  if (t == 0u) write_index(o, si[0]);
#else
  // Invocation t adds the partials of chunks t, t + 256, ... in order, then the workgroup combines.
  float v = red_identity(p.op);
  for (uint c = t; c < p.chunks; c += 256u) v = red_combine(p.op, v, scratch_values[o * p.scratch_stride + c]);
  const float r = combine_all(v);
  if (t == 0u) write_value(o, red_finish(p.op, r));
#endif

#elif PATH == 4
  const uint w = og_workgroup_index() * 256u + t;
  if (w >= p.outputs * p.chunks) return;
  const uint c = w / p.outputs, o = w % p.outputs;  // neighbouring invocations: neighbouring outputs
  const uint begin = c * p.chunk, end = min(p.count, begin + p.chunk);
#ifdef ARG
  float best = p.op == OG_RED_ARG_MAX ? -OG_INF : OG_INF;
  uint best_i = 0xffffffffu;
  fold_arg(red_kept_base(o), begin, end, 0u, 1u, best, best_i);
  scratch_values[c * p.outputs + o] = best;
  scratch_indices[c * p.outputs + o] = best_i;
#else
  scratch_values[c * p.outputs + o] = fold(red_kept_base(o), begin, end, 0u, 1u);
#endif
#elif PATH == 6
  // Columns with four neighbouring outputs per invocation (OG_RED_COLS4): the same order per output
  // as PATH 4, read as vec4.
  const uint quads = p.outputs / 4u;
  const uint w = og_workgroup_index() * 256u + t;
  if (w >= quads * p.chunks) return;
  const uint c = w / quads, q = w % quads;
  const uint begin = c * p.chunk, end = min(p.count, begin + p.chunk);
  const uint op = p.op;
  const uint base = red_kept_base(4u * q);
  vec4 acc = vec4(red_identity(op));
  uint r = begin;
  while (r < end) {
    vec4 run = vec4(red_identity(op));
    const uint stop = min(end, r + 32u);
    // Eight loads in flight, then their terms in order.
    for (; r + 8u <= stop; r += 8u) {
      vec4 v[8];
      [[unroll]] for (uint k = 0u; k < 8u; ++k) v[k] = in4_at((base + red_offset(r + k)) / 4u);
      [[unroll]] for (uint k = 0u; k < 8u; ++k)
        [[unroll]] for (uint j = 0u; j < 4u; ++j) run[j] = red_combine(op, run[j], red_map(op, v[k][j]));
    }
    for (; r < stop; ++r) {
      const vec4 v = in4_at((base + red_offset(r)) / 4u);
      for (uint j = 0u; j < 4u; ++j) run[j] = red_combine(op, run[j], red_map(op, v[j]));
    }
    for (uint j = 0u; j < 4u; ++j) acc[j] = red_combine(op, acc[j], run[j]);
  }
  for (uint j = 0u; j < 4u; ++j) scratch_values[c * p.outputs + 4u * q + j] = acc[j];

#elif PATH == 5
  const uint o = og_workgroup_index() * 256u + t;
  if (o >= p.outputs) return;
#ifdef ARG
  float best = scratch_values[o];
  uint best_i = scratch_indices[o];
  for (uint c = 1u; c < p.chunks; ++c) {
    const float v = scratch_values[c * p.outputs + o];
    const uint i = scratch_indices[c * p.outputs + o];
    if (arg_better(p.op, v, i, best, best_i)) { best = v; best_i = i; }
  }
  write_index(o, best_i);
#else
  float r = scratch_values[o];
  for (uint c = 1u; c < p.chunks; ++c) r = red_combine(p.op, r, scratch_values[c * p.outputs + o]);
  write_value(o, red_finish(p.op, r));
#endif
#endif
}
