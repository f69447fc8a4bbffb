#version 450
// Few rows (M <= 4, A not transposed; operands of type ELEM, float32 sums), B stored N x K: a
// workgroup owns 8 columns, 32 invocations per column read consecutive k (four at a time with VEC4,
// float32 only, or eight at a time with VEC8, 16-bit only, so a subgroup reads whole 512-byte
// runs), each chaining its terms in increasing k;
// one invocation per column adds the 32 lane sums in lane order.
#extension GL_GOOGLE_include_directive : require
#include "gemm/gemm_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(GemmPush, p);
#include "gemm/operands.glsl"
layout(std430, binding = 2) buffer BufC { float c_data[]; };
layout(std430, binding = 3) readonly buffer BufBias { float bias_data[]; };
#include "gemm/epilogue.glsl"

#ifdef VEC4
layout(std430, binding = 0) readonly buffer BufA4 { vec4 a4[]; };
layout(std430, binding = 1) readonly buffer BufB4 { vec4 b4[]; };
#endif
#ifdef VEC8
layout(std430, binding = 0) readonly buffer BufA8 { uvec4 a8[]; };
layout(std430, binding = 1) readonly buffer BufB8 { uvec4 b8[]; };
// The two elements of a 32-bit word, the first in memory first.
vec2 decode_pair(uint w) {
#if ELEM == 1
  return unpackHalf2x16(w);
#else
  return vec2(uintBitsToFloat(w << 16), uintBitsToFloat(w & 0xffff0000u));
#endif
}
#endif

shared float partial[8][32][4];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint lane = tid % 32u, local_col = tid / 32u;
  const uint col = gl_WorkGroupID.x * 8u + local_col, bz = gl_WorkGroupID.y;
  const uint base_a = p.offset_a + bz * p.stride_a, base_b = p.offset_b + bz * p.stride_b;
  float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
  if (col < p.n) {
#ifdef VEC4
    // The host takes this variant only when K, lda, ldb and both bases are multiples of 4.
    const uint brow = (base_b + col * p.ldb) / 4u;
    for (uint k4 = lane; k4 < p.k / 4u; k4 += 32u) {
      const vec4 b = b4[brow + k4];
      for (uint r = 0u; r < 4u; ++r) {
        if (r < p.m) {
          const vec4 a = a4[(base_a + r * p.lda) / 4u + k4];
          acc[r] = fma(a.x, b.x, acc[r]);
          acc[r] = fma(a.y, b.y, acc[r]);
          acc[r] = fma(a.z, b.z, acc[r]);
          acc[r] = fma(a.w, b.w, acc[r]);
        }
      }
    }
#elif defined(VEC8)
    // The host takes this variant only when K, lda, ldb and both bases are multiples of 8.
    const uint brow = (base_b + col * p.ldb) / 8u;
    for (uint k8 = lane; k8 < p.k / 8u; k8 += 32u) {
      const uvec4 b = b8[brow + k8];
      for (uint r = 0u; r < 4u; ++r) {
        if (r < p.m) {
          const uvec4 a = a8[(base_a + r * p.lda) / 8u + k8];
          for (uint w = 0u; w < 4u; ++w) {
            const vec2 x = decode_pair(a[w]), y = decode_pair(b[w]);
            acc[r] = fma(x.x, y.x, acc[r]);
            acc[r] = fma(x.y, y.y, acc[r]);
          }
        }
      }
    }
#else
    for (uint k = lane; k < p.k; k += 32u) {
      const float b = load_b(base_b + col * p.ldb + k);
      for (uint r = 0u; r < 4u; ++r)
        if (r < p.m) acc[r] = fma(load_a(base_a + r * p.lda + k), b, acc[r]);
    }
#endif
  }
  for (uint r = 0u; r < 4u; ++r) partial[local_col][lane][r] = acc[r];
  barrier();
  if (lane != 0u || col >= p.n) return;
  for (uint r = 0u; r < p.m; ++r) {
    float sum = partial[local_col][0][r];
    for (uint i = 1u; i < 32u; ++i) sum = sum + partial[local_col][i][r];
    const uint ci = p.offset_c + bz * p.stride_c + r * p.ldc + col;
    c_data[ci] = gemm_output(sum, ci, col);
  }
}
