#version 450
// Every step of an LSTM layer in one dispatch, each workgroup keeping its slice of R on chip
// (docs/recurrent.md, "Schedules": persistent).
//
// A role is a block of OG_RNN_PERSISTENT_UNITS hidden units of one direction: 32 rows of R (the
// four gates of 8 units) and every batch row. Workgroups first join: each adds one to a door word;
// the first closes it (a high bit) once the count reaches the dispatch or after a bounded wait, and
// publishes how many joined. Only those run, so every workgroup waited on is known to be running;
// a late one sees the closed door and leaves. Participant i takes roles i, i + P, i + 2P, ...
// Before step t a workgroup waits until the done counter reaches t x roles (every role of every
// earlier step; an increment of step t comes only after that), runs its roles and adds their
// number. The hidden state is two buffers that swap every step, so a step writes what no one still
// reads.
//
// The product, per role and block of 16 batch rows: with COOPMAT, cooperative matrices (f16 x f16
// -> f32): eight subgroups of 32 (sixteen with WIDE) each take the 16-wide blocks of k,
// kb = subgroup + PARTS i, holding R's blocks as matrices across the whole layer (a participant of
// one role; with several, it reloads them per role), the state split h = hi + lo into two halves
// (exact to ~22 bits) and multiplied as hi then lo into one float32 accumulator; the subgroups'
// sums are added in a fixed tree.
// Without COOPMAT, each invocation sums its (batch row, row of R) over k in increasing order
// (portable; what a device without matrix hardware, and every test of the scheduling, runs).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#ifdef COOPMAT
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#include "recurrent/recurrent_push.h"
#include "common/grid.glsl"
#define CELL OG_RNN_CELL_LSTM
#define GATES 4u

#if defined(COOPMAT) && defined(WIDE)
layout(local_size_x = 512) in;  // sixteen subgroups
#else
layout(local_size_x = 256) in;
#endif
layout(push_constant) uniform Push { RecurrentPush p; };
layout(std430, binding = 0) readonly buffer Xw { float xw[]; };
layout(std430, binding = 1) readonly buffer R { uint r_words[]; };
layout(std430, binding = 2) readonly buffer Bias { uint b_words[]; };
layout(std430, binding = 3) readonly buffer Peephole { uint p_words[]; };
layout(std430, binding = 4) readonly buffer Lengths { int lens[]; };
layout(std430, binding = 5) coherent buffer State { float state[]; };
layout(std430, binding = 5) volatile coherent buffer Sync { uint sync_words[]; };
layout(std430, binding = 6) coherent readonly buffer StateVec { vec4 state_vec[]; };

#include "recurrent/common.glsl"
#include "recurrent/activations.glsl"

#define UNITS OG_RNN_PERSISTENT_UNITS  // 8 units: 32 rows of R, two blocks of 16
#define BATCH_BLOCK 16u
#define CLOSED 0x80000000u
#ifdef COOPMAT
#ifdef WIDE
#define PARTS 16u  // subgroups of 32, one partial sum each
#else
#define PARTS 8u
#endif
#define KPER (OG_RNN_PERSISTENT_MAX_HIDDEN / (16u * PARTS))  // k blocks per subgroup
#else
#define PARTS 1u
#endif

// Sums of the product: [part][row block][batch row][row], each block 16 x 16.
shared float partial[PARTS * 2u * 256u];

#ifdef COOPMAT
// Per subgroup: the hi and lo halves of a 16 x 16 block of the state, or a block of R on its way to
// a matrix, 16 halves (two uvec4) a row; an invocation writes eight halves of one row.
shared uvec4 stage[PARTS * 64u];
#define BROADCAST(i) stage[0][i]  // before the first use of the staging (48 KiB in all when WIDE)
#define RMAT coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

uvec4 pack8(f16vec4 a, f16vec4 b) {
  return uvec4(packFloat2x16(a.xy), packFloat2x16(a.zw), packFloat2x16(b.xy), packFloat2x16(b.zw));
}

// R's blocks of `role` as matrices: block (row block rb, k block sg + 8 i) is R^T, k x 16 rows.
void load_r(uint d, uint ub, inout RMAT rf[2 * KPER]) {
  const uint H = p.hidden, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint n = lane >> 1u, kq = (lane & 1u) * 8u, at = sg * 64u;
  [[unroll]] for (uint rb = 0u; rb < 2u; ++rb) {
    const uint rr = rb * 16u + n, g = rr / UNITS, unit = ub * UNITS + rr % UNITS;
    const uint base = p.r_offset + ((d * GATES + g) * H + min(unit, H - 1u)) * H;
    [[unroll]] for (uint i = 0u; i < KPER; ++i) {
      const uint k0 = (sg + PARTS * i) * 16u;
      if (k0 >= H) break;
      float v[8];
      [[unroll]] for (uint c = 0u; c < 8u; ++c) {
        const uint k = k0 + kq + c;
        v[c] = unit < H && k < H ? OG_RNN_LOAD(r_words, base + k) : 0.0;
      }
      subgroupBarrier();
      stage[at + n * 2u + (lane & 1u)] = pack8(f16vec4(v[0], v[1], v[2], v[3]), f16vec4(v[4], v[5], v[6], v[7]));
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      coopMatLoad(rf[rb * KPER + i], stage, at, 2u, gl_CooperativeMatrixLayoutColumnMajor);
    }
  }
  subgroupBarrier();
}

// The product of rows b0 .. b0 + 15 into partial[sg][rb].
void product(uint d, uint ub, uint b0, uint h_in, in RMAT rf[2 * KPER]) {
  const uint H = p.hidden, B = p.batch, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint m = lane >> 1u, kq = (lane & 1u) * 8u, at = sg * 64u;
  const uint b = b0 + m, row = h_in + (d * B + min(b, B - 1u)) * H;
  const bool vec = H % 8u == 0u && p.state_offset % 4u == 0u;
  // Every load first, then the blocks one at a time through the subgroup's staging.
  vec4 hv[KPER][2];
  [[unroll]] for (uint i = 0u; i < KPER; ++i) {
    const uint k0 = (sg + PARTS * i) * 16u + kq;
    if (vec) {
      const bool inside = b < B && k0 < H;
      hv[i][0] = inside ? state_vec[(row + k0) >> 2] : vec4(0.0);
      hv[i][1] = inside ? state_vec[(row + k0 + 4u) >> 2] : vec4(0.0);
    } else {
      [[unroll]] for (uint c = 0u; c < 8u; ++c) {
        const uint k = k0 + c;
        hv[i][c >> 2][c & 3u] = b < B && k < H ? state[row + k] : 0.0;
      }
    }
  }
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc0 =
      coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc1 = acc0;
  [[unroll]] for (uint i = 0u; i < KPER; ++i) {
    if ((sg + PARTS * i) * 16u >= H) break;
    const f16vec4 hi0 = f16vec4(hv[i][0]), hi1 = f16vec4(hv[i][1]);
    const f16vec4 lo0 = f16vec4(hv[i][0] - vec4(hi0)), lo1 = f16vec4(hv[i][1] - vec4(hi1));
    stage[at + m * 2u + (lane & 1u)] = pack8(hi0, hi1);
    stage[at + 32u + m * 2u + (lane & 1u)] = pack8(lo0, lo1);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ahi, alo;
    coopMatLoad(ahi, stage, at, 2u, gl_CooperativeMatrixLayoutRowMajor);
    coopMatLoad(alo, stage, at + 32u, 2u, gl_CooperativeMatrixLayoutRowMajor);
    acc0 = coopMatMulAdd(ahi, rf[i], acc0);
    acc0 = coopMatMulAdd(alo, rf[i], acc0);
    acc1 = coopMatMulAdd(ahi, rf[KPER + i], acc1);
    acc1 = coopMatMulAdd(alo, rf[KPER + i], acc1);
    subgroupBarrier();
  }
  coopMatStore(acc0, partial, (sg * 2u) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(acc1, partial, (sg * 2u + 1u) * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}

// Row rr (of 32) of batch row j: the subgroups' sums in a fixed tree.
float sum_parts(uint rr, uint j) {
  const uint e = (rr / 16u) * 256u + j * 16u + rr % 16u;
  float s[PARTS];
  [[unroll]] for (uint q = 0u; q < PARTS; ++q) s[q] = partial[q * 512u + e];
  const float low = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
#ifdef WIDE
  return low + (((s[8] + s[9]) + (s[10] + s[11])) + ((s[12] + s[13]) + (s[14] + s[15])));
#else
  return low;
#endif
}
#else
shared uint broadcast[2];
#define BROADCAST(i) broadcast[i]
#define RMAT float  // no matrices: R is read from memory every step
void load_r(uint d, uint ub, inout RMAT rf[1]) {}

// Invocation (batch row m, row n of each block) sums over k in increasing order.
void product(uint d, uint ub, uint b0, uint h_in, in RMAT rf[1]) {
  const uint H = p.hidden, B = p.batch, tid = gl_LocalInvocationIndex, m = tid / 16u, n = tid % 16u;
  const uint b = b0 + m, row = h_in + (d * B + min(b, B - 1u)) * H;
  [[unroll]] for (uint rb = 0u; rb < 2u; ++rb) {
    const uint rr = rb * 16u + n, g = rr / UNITS, unit = ub * UNITS + rr % UNITS;
    const uint base = p.r_offset + ((d * GATES + g) * H + min(unit, H - 1u)) * H;
    precise float acc = 0.0;
    if (unit < H && b < B)
      for (uint k = 0u; k < H; ++k) acc += OG_RNN_LOAD(r_words, base + k) * state[row + k];
    partial[rb * 256u + m * 16u + n] = acc;
  }
}

float sum_parts(uint rr, uint j) { return partial[(rr / 16u) * 256u + j * 16u + rr % 16u]; }
#endif

float clipped(float x) {
  if ((p.flags & OG_RNN_CLIP) == 0u) return x;
  return x > p.clip ? p.clip : (x < -p.clip ? -p.clip : x);
}

// What the gates of unit (ub, tid % 8) and batch row b0 + tid / 8 (invocations 0..127) need
// besides the product, read before the step's wait where they can be: the projection and both
// biases summed ((xw + Wb) + Rb, the product added last), the cell state, the peepholes.
struct GateInputs {
  float xb[4];
  float c_prev, pi, po, pf;
  uint len, t;
};

GateInputs gate_inputs(uint d, uint ub, uint b0, uint step, uint extra) {
  GateInputs g;
  const uint H = p.hidden, B = p.batch, tid = gl_LocalInvocationIndex;
  const uint unit = min(ub * UNITS + tid % UNITS, H - 1u), b = min(b0 + tid / UNITS, B - 1u);
  g.len = OG_RNN_LENGTH(b);
  const bool reverse = p.dirs == 2u ? d == 1u : (p.flags & OG_RNN_REVERSE) != 0u;
  const uint step_t = min(step, max(g.len, 1u) - 1u);  // rows past their length read nothing used
  g.t = reverse ? g.len - 1u - step_t : step_t;
  if (g.len == 0u) g.t = 0u;
  const uint x_row = (p.flags & OG_RNN_LAYOUT1) != 0u ? b * p.seq + g.t : g.t * B + b;
  const uint xw_base = p.xw_offset + d * p.xw_dir_stride + x_row * (GATES * H) + unit;
  const bool bias = (p.flags & OG_RNN_BIAS) != 0u;
  const uint wb = p.b_offset + d * 2u * GATES * H + unit, rb = wb + GATES * H;
  [[unroll]] for (uint q = 0u; q < GATES; ++q) {
    const float x = xw[xw_base + q * H];
    g.xb[q] = bias ? (x + OG_RNN_LOAD(b_words, wb + q * H)) + OG_RNN_LOAD(b_words, rb + q * H) : x;
  }
  g.c_prev = state[extra + (d * B + b) * H + unit];
  const bool peephole = (p.flags & OG_RNN_PEEPHOLE) != 0u;
  const uint pp = p.p_offset + d * 3u * H + unit;
  g.pi = peephole ? OG_RNN_LOAD(p_words, pp) : 0.0;
  g.po = peephole ? OG_RNN_LOAD(p_words, pp + H) : 0.0;
  g.pf = peephole ? OG_RNN_LOAD(p_words, pp + 2u * H) : 0.0;
  return g;
}

// The gates of that unit and row after the product (the ONNX arithmetic of the passes, but for
// the order of the pre-activation's sum).
void gates(uint d, uint ub, uint b0, uint step, uint h_in, uint h_out, uint extra, GateInputs g) {
  const uint H = p.hidden, B = p.batch, tid = gl_LocalInvocationIndex;
  const uint ul = tid % UNITS, j = tid / UNITS, unit = ub * UNITS + ul, b = b0 + j;
  if (j >= BATCH_BLOCK || unit >= H || b >= B) return;
  const uint s = (d * B + b) * H + unit;
  if (step >= g.len) {
    state[h_out + s] = state[h_in + s];
    return;
  }
  float pi = g.xb[0] + sum_parts(0u * UNITS + ul, j), po = g.xb[1] + sum_parts(1u * UNITS + ul, j);
  float pf = g.xb[2] + sum_parts(2u * UNITS + ul, j), pc = g.xb[3] + sum_parts(3u * UNITS + ul, j);
  const bool peephole = (p.flags & OG_RNN_PEEPHOLE) != 0u;
  if (peephole) {
    pi += g.pi * g.c_prev;
    pf += g.pf * g.c_prev;
  }
  const float i = activation(d, 0u, clipped(pi));
  const float f = (p.flags & OG_RNN_INPUT_FORGET) != 0u ? 1.0 - i : activation(d, 0u, clipped(pf));
  const float c = f * g.c_prev + i * activation(d, 1u, clipped(pc));
  if (peephole) po += g.po * c;
  const float h = activation(d, 0u, clipped(po)) * activation(d, 2u, c);
  state[extra + s] = c;
  state[h_out + s] = h;
  if ((p.flags & OG_RNN_WRITE_Y) != 0u) state[p.state_offset + p.y_base + ((g.t * p.dirs + d) * B + b) * H + unit] = h;
}

// Polls `word` until it is at least `need` (invocation 0 only). Unrolled polls: a software driver
// may end a loop after a fixed number of iterations.
void wait_for(uint word, uint need) {
  while (sync_words[word] < need) {
    [[unroll]] for (uint i = 0u; i < 15u; ++i)
      if (sync_words[word] >= need) break;
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint door = p.sync_offset, joined = door + 1u, done = door + 2u;
  // The workgroups launched (the grid may be padded past them when it is folded).
  const uint wanted = p.kind;
  if (og_workgroup_index() >= wanted) return;
  if (tid == 0u) {
    const uint v = atomicAdd(sync_words[door], 1u);
    uint me = ~0u, count = 0u;
    if ((v & CLOSED) == 0u) {
      me = v;
      if (v == 0u) {
        // The first waits a bounded time for the others, then closes the door.
        for (uint i = 0u; i < OG_RNN_PERSISTENT_DOOR_POLLS && (sync_words[door] & ~CLOSED) < wanted; ++i) {
          [[unroll]] for (uint q = 0u; q < 15u; ++q)
            if ((sync_words[door] & ~CLOSED) >= wanted) break;
        }
        count = atomicOr(sync_words[door], CLOSED) & ~CLOSED;
        atomicExchange(sync_words[joined], count);
      } else {
        wait_for(joined, 1u);  // the first joined before this one and is running
        count = sync_words[joined];
      }
    }
    BROADCAST(0) = me;
    BROADCAST(1) = count;
  }
  barrier();
  const uint me = BROADCAST(0), participants = BROADCAST(1);
  if (me >= participants) return;  // the door was closed: others run the layer
  barrier();  // read before the staging is written

  const uint H = p.hidden, B = p.batch, dbh = p.dirs * B * H;
  const uint unit_blocks = (H + UNITS - 1u) / UNITS, roles = p.dirs * unit_blocks;
  const uint mine = (roles - me + participants - 1u) / participants;
  const bool resident = mine == 1u;
#ifdef COOPMAT
  RMAT rf[2 * KPER];
#else
  RMAT rf[1];
#endif
  if (resident) load_r(me / unit_blocks, me % unit_blocks, rf);
  const uint extra = p.state_offset + 2u * dbh;
  // One role and one block of batch rows: the gates' inputs are read before the wait.
  const bool early = resident && B <= BATCH_BLOCK;
  for (uint step = 0u; step < p.step; ++step) {
    GateInputs g;
    if (early) g = gate_inputs(me / unit_blocks, me % unit_blocks, 0u, step, extra);
    if (tid == 0u) wait_for(done, step * roles);
    memoryBarrierBuffer();
    barrier();
    memoryBarrierBuffer();
    const uint h_in = p.state_offset + (step & 1u) * dbh, h_out = p.state_offset + ((step + 1u) & 1u) * dbh;
    for (uint role = me; role < roles; role += participants) {
      const uint d = role / unit_blocks, ub = role % unit_blocks;
      if (!resident) load_r(d, ub, rf);
      for (uint b0 = 0u; b0 < B; b0 += BATCH_BLOCK) {
        product(d, ub, b0, h_in, rf);
        if (!early) g = gate_inputs(d, ub, b0, step, extra);
        barrier();
        gates(d, ub, b0, step, h_in, h_out, extra, g);
        barrier();
      }
    }
    memoryBarrierBuffer();
    barrier();
    if (tid == 0u) atomicAdd(sync_words[done], mine);
  }
}
