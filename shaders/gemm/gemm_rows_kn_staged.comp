#version 450
// Few rows (M <= 4, A not transposed), 16-bit operands (ELEM 1 float16, 2 bfloat16; float32 sums),
// B stored K x N with many columns: streams B once in whole, aligned 16-byte words whatever the
// alignment of its rows (a vocabulary of 51865 columns starts every row at another offset). A
// workgroup owns COLS columns; per stage of KT rows it reads the words that cover its columns in
// each row into workgroup memory (double-buffered: the next stage's reads are in flight while this
// one is summed), and every invocation reads its column's element at the row's offset there. The
// 256 invocations split k into 256 / COLS interleaved slices, each chaining its terms in
// increasing k; one invocation per column adds the slice sums in slice order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"
#ifndef COLS
#define COLS 64u
#endif
#define KT 64u                         // rows of B per stage
#define CHUNKS (COLS / 8u + 1u)        // 16-byte words covering COLS halves at any alignment
#define SLICES (256u / COLS)         // COLS divides 256
#define LOADS ((KT * CHUNKS + 255u) / 256u)

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { GemmPush p; };
#include "gemm/operands.glsl"
layout(std430, binding = 1) readonly buffer BufB8 { uvec4 b8[]; };
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

shared uvec4 stage_b[2][KT * CHUNKS];
shared float stage_a[2][4][KT];
shared float partial[SLICES][COLS][4];

uvec4 rb[LOADS];  // a stage of B on its way to workgroup memory
float ra;         // and one element of A

// The 16-byte word q of B's binding; the binding may end inside the last one (it is bound in whole
// 32-bit words), which is then read a 32-bit word at a time.
uvec4 load_chunk(uint q) {
  if (q < uint(b8.length())) return b8[q];
  uvec4 v = uvec4(0u);
  for (uint i = 0u; i < 4u; ++i)
    if (4u * q + i < uint(b_words.length())) v[i] = b_words[4u * q + i];
  return v;
}

void load_stage(uint k0, uint base_a, uint base_b, uint col0, uint cols) {
  const uint tid = gl_LocalInvocationIndex;
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    const uint idx = tid + 256u * l;
    rb[l] = uvec4(0u);
    if (idx < KT * CHUNKS) {
      const uint k = k0 + idx / CHUNKS, j = idx % CHUNKS;
      if (k < p.k) {
        const uint e = base_b + k * p.ldb + col0;
        const uint q = e / 8u + j;
        if (q <= (e + cols - 1u) / 8u) rb[l] = load_chunk(q);
      }
    }
  }
  const uint r = tid / KT, k = k0 + tid % KT;
  ra = r < p.m && k < p.k ? load_a(base_a + r * p.lda + k) : 0.0;
}

void store_stage(uint buf) {
  const uint tid = gl_LocalInvocationIndex;
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    const uint idx = tid + 256u * l;
    if (idx < KT * CHUNKS) stage_b[buf][idx] = rb[l];
  }
  stage_a[buf][tid / KT][tid % KT] = ra;
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint c = tid % COLS, s = tid / COLS;
  const uint col0 = gl_WorkGroupID.x * COLS, bz = gl_WorkGroupID.y;
  const uint cols = min(COLS, p.n - col0), col = col0 + c;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  const uint stages = (p.k + KT - 1u) / KT;
  float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
  if (stages > 0u) load_stage(0u, base_a, base_b, col0, cols);
  for (uint t = 0u; t < stages; ++t) {
    const uint buf = t & 1u, k0 = t * KT;
    // Two buffers and one barrier a stage: a thread storing stage t has passed the barrier of
    // stage t - 1, which every thread reaches only after summing stage t - 2 from this buffer.
    store_stage(buf);
    barrier();
    if (t + 1u < stages) load_stage(k0 + KT, base_a, base_b, col0, cols);
    if (c < cols) {
      const uint rows = min(KT, p.k - k0);
      for (uint r = s; r < rows; r += SLICES) {
        const uint h = r * CHUNKS * 8u + (base_b + (k0 + r) * p.ldb + col0) % 8u + c;  // the half in the stage
        const float b = og_decode16(stage_b[buf][h / 8u][(h / 2u) % 4u], h);
        [[unroll]] for (uint i = 0u; i < 4u; ++i)
          if (i < p.m) acc[i] = fma(stage_a[buf][i][r], b, acc[i]);
      }
    }
  }
  [[unroll]] for (uint i = 0u; i < 4u; ++i) partial[s][c][i] = acc[i];
  barrier();
  if (s != 0u || c >= cols) return;
  for (uint i = 0u; i < p.m; ++i) {
    float sum = partial[0][c][i];
    for (uint j = 1u; j < SLICES; ++j) sum = sum + partial[j][c][i];
    const uint ci = p.offset_c + bz * p.stride_c + i * p.ldc + col;
    c_data[ci] = gemm_output(sum, ci, col);
  }
}
