#version 450
// Steps of a recurrent layer, both directions and every batch row: a workgroup owns
// OG_RNN_ROWS_PER_GROUP rows of R (the units of the pass times its gates) for ROWS batch rows
// (step_pass.glsl). The hidden state is read from one buffer and written to the other (they swap
// every step), so no workgroup reads what another writes in the same pass.
//
// Without SEQUENCE the dispatch is one pass of one step (p.step). With SEQUENCE it is the whole
// layer: workgroups take work items in order from a ticket counter (item = step, pass, workgroup
// of the pass), and before an item a workgroup waits until every item of the previous pass is
// done (a second counter). A workgroup only ever waits on items that running workgroups have
// already taken, so the wait needs no assumption about how many workgroups are resident.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "recurrent/recurrent_push.h"
#ifndef GRU_PASS
#define GRU_PASS 0
#endif
#include "common/grid.glsl"

#ifdef SEQUENCE
#define OG_RNN_STATE_ACCESS coherent  // written by other workgroups of the same dispatch
#else
#define OG_RNN_STATE_ACCESS
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RecurrentPush, p);
layout(std430, binding = 0) readonly buffer Xw { float xw[]; };
layout(std430, binding = 1) readonly buffer R { uint r_words[]; };
layout(std430, binding = 2) readonly buffer Bias { uint b_words[]; };
layout(std430, binding = 3) readonly buffer Peephole { uint p_words[]; };
layout(std430, binding = 4) readonly buffer Lengths { int lens[]; };
layout(std430, binding = 5) OG_RNN_STATE_ACCESS buffer State { float state[]; };
// The same buffers as R and State, four elements at a time (OG_RNN_VECTOR). In the WebGPU dialect
// (the passes only: WGSL cannot order one workgroup's writes before another's reads within a
// dispatch, so the one-dispatch schedule has no WGSL) both views stay declared as words, unread,
// so both modules have one layout: WebGPU refuses a buffer bound writable and bound again, and the
// host binds a buffer of its own to binding 7 there. The four elements are read through R and State.
#ifdef OG_WEBGPU
layout(std430, binding = 6) readonly buffer RVec { uint r_vec_words[]; };
layout(std430, binding = 7) readonly buffer StateVec { uint state_vec_words[]; };
#ifdef F16
#define OG_RNN_R4(i) vec4(unpackHalf2x16(r_words[2u * (i)]), unpackHalf2x16(r_words[2u * (i) + 1u]))
#else
#define OG_RNN_R4(i) uintBitsToFloat(uvec4(r_words[4u * (i)], r_words[4u * (i) + 1u], r_words[4u * (i) + 2u], r_words[4u * (i) + 3u]))
#endif
#define OG_RNN_STATE4(i) vec4(state[4u * (i)], state[4u * (i) + 1u], state[4u * (i) + 2u], state[4u * (i) + 3u])
#else
#ifdef F16
layout(std430, binding = 6) readonly buffer RVec { uvec2 r_vec[]; };
#define OG_RNN_R4(i) vec4(unpackHalf2x16(r_vec[i].x), unpackHalf2x16(r_vec[i].y))
#else
layout(std430, binding = 6) readonly buffer RVec { vec4 r_vec[]; };
#define OG_RNN_R4(i) r_vec[i]
#endif
layout(std430, binding = 7) OG_RNN_STATE_ACCESS readonly buffer StateVec { vec4 state_vec[]; };
#define OG_RNN_STATE4(i) state_vec[i]
#endif
#ifdef SEQUENCE
// The state buffer as words: the ticket and done counters at p.sync_offset (zeroed by setup.comp).
layout(std430, binding = 5) volatile coherent buffer Sync { uint sync_words[]; };
#endif

#include "recurrent/common.glsl"
#include "recurrent/activations.glsl"

shared float partial[OG_RNN_ROWS_PER_GROUP * OG_RNN_LANES * ROWS];

// The recurrent product of pass row (g, unit) for batch row j, the pass having `units` units per
// workgroup: the lanes' sums in tree order.
float product(uint units, uint g, uint ul, uint j) {
  const uint base = ((g * units + ul) * OG_RNN_LANES) * ROWS + j;
  const float p0 = partial[base], p1 = partial[base + ROWS], p2 = partial[base + 2u * ROWS],
              p3 = partial[base + 3u * ROWS], p4 = partial[base + 4u * ROWS], p5 = partial[base + 5u * ROWS],
              p6 = partial[base + 6u * ROWS], p7 = partial[base + 7u * ROWS];
  return ((p0 + p4) + (p2 + p6)) + ((p1 + p5) + (p3 + p7));
}

float clipped(float x) {
  if ((p.flags & OG_RNN_CLIP) == 0u) return x;
  return x > p.clip ? p.clip : (x < -p.clip ? -p.clip : x);
}

// Gates of the first pass of a step, and whether a step has a second (GRU, linear_before_reset = 0).
#if CELL == OG_RNN_CELL_LSTM
#define FIRST_PASS_GATES 4u
#elif CELL == OG_RNN_CELL_GRU && GRU_PASS == OG_RNN_GRU_LINEAR
#define FIRST_PASS_GATES 3u
#elif CELL == OG_RNN_CELL_GRU
#define FIRST_PASS_GATES 2u
#else
#define FIRST_PASS_GATES 1u
#endif

#if defined(SEQUENCE) && CELL == OG_RNN_CELL_GRU && GRU_PASS != OG_RNN_GRU_LINEAR
#define TWO_PASSES 1
#undef GRU_PASS
#define GRU_PASS OG_RNN_GRU_GATES
#define STEP_FUNCTION first_pass
#include "recurrent/step_pass.glsl"
#undef GRU_PASS
#undef STEP_FUNCTION
#define GRU_PASS OG_RNN_GRU_CANDIDATE
#define STEP_FUNCTION second_pass
#include "recurrent/step_pass.glsl"
#else
#define TWO_PASSES 0
#define STEP_FUNCTION first_pass
#include "recurrent/step_pass.glsl"
#endif

#ifdef SEQUENCE
shared uint ticket;

// Workgroups of a pass whose workgroups own `units` units each.
uint pass_items(uint units) { return p.dirs * ((p.hidden + units - 1u) / units) * ((p.batch + ROWS - 1u) / ROWS); }

void main() {
  const uint first = pass_items(OG_RNN_ROWS_PER_GROUP / FIRST_PASS_GATES);
  const uint per_step = TWO_PASSES != 0 ? first + pass_items(OG_RNN_ROWS_PER_GROUP) : first;
  const uint total = p.step * per_step;  // p.step: the steps of the layer
  const uint tickets = p.sync_offset, done = p.sync_offset + 1u;
  for (;;) {
    if (gl_LocalInvocationIndex == 0u) ticket = atomicAdd(sync_words[tickets], 1u);
    barrier();
    const uint t = ticket;
    if (t >= total) break;
    const uint step = t / per_step, item = t % per_step;
    const bool second = TWO_PASSES != 0 && item >= first;
    // Every item taken before this pass's first one must be done: they were all taken (by
    // running workgroups) before this one, and an item is only started once the pass before it
    // is complete, so the done count reaches this only when those items are all done.
    const uint need = t - item + (second ? first : 0u);
    if (gl_LocalInvocationIndex == 0u) {
      // Polls unrolled: a software driver may end a loop after a fixed number of iterations.
      while (sync_words[done] < need) {
        [[unroll]] for (uint i = 0u; i < 15u; ++i)
          if (sync_words[done] >= need) break;
      }
    }
    memoryBarrierBuffer();
    barrier();
    memoryBarrierBuffer();
#if TWO_PASSES
    if (second) second_pass(item - first, step);
    else first_pass(item, step);
#else
    first_pass(item, step);
#endif
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicAdd(sync_words[done], 1u);
  }
}
#else
void main() { first_pass(og_workgroup_index(), p.step); }
#endif
