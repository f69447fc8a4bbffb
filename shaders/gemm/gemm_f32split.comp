#version 450
// Float32 products on float16 hardware, the passes before the float16 product (one per STEP):
//   STEP 0  clears the exponent words (items of them from exp_offset).
//   STEP 1  the largest biased exponent of each line (row of op(A), column of op(B)) by atomic
//           maximum over workgroups of 64 lines x 4 k lanes (lines adjacent in memory) or 4 lines x
//           64 k lanes (k adjacent); exact and independent of the order. Grid: groups of lines in
//           x (folded into group_rows rows), ranges of k in y, batch x group_rows in z.
//   STEP 2  splits op(A): a' = a 2^e_i, hi = half(a'), lo = half(a' - hi), into
//           A' = [hi | hi | lo] (batch x lines x 3 k_pad halves), one word (two k) per invocation.
//   STEP 3  splits op(B) likewise into B' = [hi ; lo ; hi] (batch x 3 k_pad x lines_pad halves), one
//           word (two columns) per invocation.
// Padding (k >= K, columns >= N) is written as zeros.
#extension GL_GOOGLE_include_directive : require
#include "gemm/gemm_push.h"
#include "common/grid.glsl"
#include "common/half.glsl"
#include "gemm/f32split.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmSplitPush, p);

#if STEP == 0
layout(std430, binding = 0) writeonly buffer BufExp { uint exps[]; };
void main() {
  const uint i = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (i < p.items) exps[p.exp_offset + i] = 0u;
}
#elif STEP == 1
layout(std430, binding = 0) readonly buffer BufX { float x_data[]; };
layout(std430, binding = 1) buffer BufExp { uint exps[]; };
shared uint partial[256];
void main() {
  const uint lid = gl_LocalInvocationIndex;
  const bool adjacent_lines = p.line_step == 1u;
  const uint lines_per_group = adjacent_lines ? 64u : 4u, lanes = 256u / lines_per_group;
  const uint local_line = adjacent_lines ? lid % 64u : lid / 64u;
  const uint lane = adjacent_lines ? lid / 64u : lid % 64u;
  const uint group = gl_WorkGroupID.x + (gl_WorkGroupID.z % p.group_rows) * gl_NumWorkGroups.x;
  const uint line = group * lines_per_group + local_line, b = gl_WorkGroupID.z / p.group_rows;
  const uint k_begin = gl_WorkGroupID.y * p.k_chunk, k_end = min(p.k, k_begin + p.k_chunk);
  uint biased = 0u;
  if (line < p.lines) {
    const uint base = p.offset + b * p.stride + line * p.line_step;
    for (uint k = k_begin + lane; k < k_end; k += lanes)
      biased = max(biased, (floatBitsToUint(x_data[base + k * p.k_step]) >> 23) & 0xffu);
  }
  partial[lid] = biased;
  barrier();
  if (lane == 0u && line < p.lines) {
    for (uint l = 1u; l < lanes; ++l)
      biased = max(biased, partial[adjacent_lines ? local_line + 64u * l : local_line * 64u + l]);
    if (biased != 0u) atomicMax(exps[p.exp_offset + b * p.lines + line], biased);
  }
}
#else
layout(std430, binding = 0) readonly buffer BufX { float x_data[]; };
layout(std430, binding = 1) readonly buffer BufExp { uint exps[]; };
layout(std430, binding = 2) writeonly buffer BufParts { uint parts[]; };

// The hi and lo halves of element (line, k) of matrix b, scaled by 2^e.
uvec2 split(uint b, uint line, uint k, int e) {
  if (line >= p.lines || k >= p.k) return uvec2(0u);
  precise float v = og_scale_pow2(x_data[p.offset + b * p.stride + line * p.line_step + k * p.k_step], e);
  const uint hi = og_f32_to_f16(v);
  precise float rest = v - unpackHalf2x16(hi).x;
  return uvec2(hi, og_f32_to_f16(rest));
}

int exponent_of(uint b, uint line) {
  return line < p.lines ? og_split_exponent(exps[p.exp_offset + b * p.lines + line]) : 0;
}

void main() {
  const uint i = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (i >= p.items) return;
#if STEP == 2
  const uint pairs = p.k_pad / 2u;
  const uint q = i % pairs, row = i / pairs;  // row = b lines + line
  const uint b = row / p.lines, line = row % p.lines;
  const int e = exponent_of(b, line);
  const uvec2 x0 = split(b, line, 2u * q, e), x1 = split(b, line, 2u * q + 1u, e);
  const uint hi = x0.x | (x1.x << 16), lo = x0.y | (x1.y << 16);
  const uint base = row * 3u * pairs + q;
  parts[base] = hi;
  parts[base + pairs] = hi;
  parts[base + 2u * pairs] = lo;
#else
  const uint pairs = p.lines_pad / 2u;
  const uint q = i % pairs, k = (i / pairs) % p.k_pad, b = i / (pairs * p.k_pad);
  const uint line = 2u * q;
  const uvec2 x0 = split(b, line, k, exponent_of(b, line)), x1 = split(b, line + 1u, k, exponent_of(b, line + 1u));
  const uint hi = x0.x | (x1.x << 16), lo = x0.y | (x1.y << 16);
  const uint base = (b * 3u * p.k_pad + k) * pairs + q;
  parts[base] = hi;
  parts[base + p.k_pad * pairs] = lo;
  parts[base + 2u * p.k_pad * pairs] = hi;
#endif
}
#endif
