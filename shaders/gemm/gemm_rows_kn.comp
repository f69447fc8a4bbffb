#version 450
// Few rows (M <= 4, A not transposed; operands of type ELEM, float32 sums), B stored K x N: streams
// B once, LOADS rows of it in flight per invocation. A workgroup owns COLS columns; its 256
// invocations split k into 256 / COLS interleaved slices, each chaining its terms in increasing k;
// one invocation per column adds the slice sums in slice order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "gemm/gemm_push.h"
#ifndef COLS
#define COLS 16u
#endif
#define SLICES (256u / COLS)
#ifndef LOADS
#define LOADS 16u
#endif

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#include "gemm/operands.glsl"
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

shared float partial[SLICES][COLS][4];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint c = tid % COLS, s = tid / COLS;
  const uint col = gl_WorkGroupID.x * COLS + c, bz = gl_WorkGroupID.y;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
  if (col < p.n) {
    uint k = s;
    // LOADS loads of B in flight per invocation (a streamed B needs many bytes in flight), then the
    // terms in increasing k.
    for (; k + (LOADS - 1u) * SLICES < p.k; k += LOADS * SLICES) {
      float b[LOADS];
      [[unroll]] for (uint u = 0u; u < LOADS; ++u) b[u] = load_b(base_b + (k + u * SLICES) * p.ldb + col);
      [[unroll]] for (uint u = 0u; u < LOADS; ++u)
        for (uint r = 0u; r < 4u; ++r)
          if (r < p.m) acc[r] = fma(load_a(base_a + r * p.lda + k + u * SLICES), b[u], acc[r]);
    }
    for (; k < p.k; k += SLICES) {
      const float b = load_b(base_b + k * p.ldb + col);
      for (uint r = 0u; r < 4u; ++r)
        if (r < p.m) acc[r] = fma(load_a(base_a + r * p.lda + k), b, acc[r]);
    }
  }
  for (uint r = 0u; r < 4u; ++r) partial[s][c][r] = acc[r];
  barrier();
  if (s != 0u || col >= p.n) return;
  for (uint r = 0u; r < p.m; ++r) {
    float sum = partial[0][c][r];
    for (uint i = 1u; i < SLICES; ++i) sum = sum + partial[i][c][r];
    const uint ci = p.offset_c + bz * p.stride_c + r * p.ldc + col;
    c_data[ci] = gemm_output(sum, ci, col);
  }
}
