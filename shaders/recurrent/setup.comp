#version 450
// The state before the first step: the hidden state (first buffer) and the cell state from
// initial_h and initial_c, or zeros, and the counters of the one-dispatch schedule. One invocation
// per (direction, batch row, unit).
#extension GL_GOOGLE_include_directive : require
#include "recurrent/recurrent_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(RecurrentPush, p);
layout(std430, binding = 0) readonly buffer InitialH { uint h_words[]; };
layout(std430, binding = 1) readonly buffer InitialC { uint c_words[]; };
layout(std430, binding = 2) buffer State { float state[]; };

#include "recurrent/common.glsl"

void main() {
  const uint H = p.hidden, B = p.batch, dbh = p.dirs * B * H;
  const uint e = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
  if (e < 3u && (p.flags & OG_RNN_SEQUENCE) != 0u) state[p.sync_offset + e] = 0.0;  // the counters: 0u
  if (e >= dbh) return;
  const uint unit = e % H, b = (e / H) % B, d = e / (H * B);
  // initial_h and initial_c are [dirs][batch][hidden], or [batch][dirs][hidden] in layout 1.
  const uint src = (p.flags & OG_RNN_LAYOUT1) != 0u ? (b * p.dirs + d) * H + unit : e;
  state[p.state_offset + e] = (p.flags & OG_RNN_INITIAL_H) != 0u ? OG_RNN_LOAD(h_words, p.r_offset + src) : 0.0;
  if ((p.flags & OG_RNN_CELL_STATE) != 0u)
    state[p.state_offset + 2u * dbh + e] = (p.flags & OG_RNN_INITIAL_C) != 0u ? OG_RNN_LOAD(c_words, p.b_offset + src) : 0.0;
}
