#version 450
// Float16 implicit GEMM on cooperative matrices (VK_KHR_cooperative_matrix, subgroups of 32):
// out[c, n] = sum_k W[c, k] * X(k, n), A the weights as stored ([cout_g][cin_g * taps] of a group),
// B the input windows gathered while the tile is staged (no column matrix), float32 accumulation.
// A workgroup of WM x WN subgroups computes a BM x BN tile (BM output channels, BN columns
// n = image * pixels + pixel), k in steps of BK through one staging buffer in workgroup memory: a
// step's operands are stored, the next step's are gathered into registers, then the step
// multiplies (two staging buffers, one barrier a step, measured twice as slow on an H200). Each
// invocation gathers eight consecutive columns (fixed for the whole loop, their window origins
// kept in registers) at B_LOADS k rows; a k row advances by BK terms per step
// through its channel offset and tap (no division in the loop; the taps' offsets are a table in
// workgroup memory). Each output is one chain over k.
// With OG_CONV_PHASES a ConvTranspose phase's product (conv_view.glsl), its outputs stored as single
// halves at their pixels of y (16-bit storage), with bias, residual and activation. Compiled with
// PAIRS (stride 2 across, an even output width and offset; grid z counts row phases) the workgroup
// makes the two column phases of its row phase in turn and stores whole words, each holding both.
// Grid: x column tiles, y channel tiles, z = (phase * groups + group) * splits + split. Stores: with OG_CONV_SPLIT raw sums
// to the range's plane of the scratch ([plane][channel][n]) for the epilogue pass; otherwise bias,
// residual and activation here, two halves per 32-bit word (the host asks for this store only
// when the output's pairs of pixels fill whole words: an even pixel count and an even y_off).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#include "conv/conv_push.h"

#ifndef BM
#define BM 64u
#define BN 128u
#define WM 2u
#define WN 2u
#endif
#define BK 32u
#define FM (BM / (16u * WM))  // 16 x 16 accumulators per subgroup, down and across
#define FN (BN / (16u * WN))
#define THREADS (32u * WM * WN)
#define LDK4 ((BK + 8u) / 8u)  // uvec4 per row of the A tile [BM][BK] (k contiguous, padded)
#define LDN4 ((BN + 8u) / 8u)  // uvec4 per row of the B tile [BK][BN] (n contiguous, padded)
#define A_TILE (BM * LDK4)
#define B_TILE (BK * LDN4)
#define A_LOADS (BM * BK / 8u / THREADS)
#define B_COLS (BN / 8u)                // eight-column groups per k row
#define B_ROW_STEP (THREADS / B_COLS)   // k rows between one invocation's B loads
#define B_LOADS (BK / B_ROW_STEP)
#define MAX_TAPS 256u                   // the host takes this kernel for at most this many taps

layout(local_size_x = THREADS) in;
layout(push_constant) uniform Push { ConvPush p; };
#define CONV_NO_XW
#include "conv/conv_io.glsl"
#include "conv/conv_view.glsl"
layout(std430, binding = 0) readonly buffer BufX { uint x_words[]; };
layout(std430, binding = 1) readonly buffer BufW { uint w_words[]; };
layout(std430, binding = 5) writeonly buffer BufT { float t_data[]; };
// y as single halves, for the phases' outputs (a phase's neighbouring pixels lie in other phases).
layout(std430, binding = 4) writeonly buffer BufYHalves { uint16_t y_halves[]; };

shared uvec4 smem[A_TILE + B_TILE];
#ifdef PAIRS
#define PASSES 2u
#else
#define PASSES 1u
#endif
shared float stage[PASSES * WM * WN * 256u];  // a 16 x 16 accumulator per subgroup (two with pairs) on its way out
shared int tap_dy[MAX_TAPS], tap_dx[MAX_TAPS];

float conv_value(uint e) { return 0.0; }  // unused: this kernel stores its own tile

uvec4 ra[A_LOADS], rb[B_LOADS];  // a step's operands on their way to workgroup memory
int col_y[8], col_x[8];          // this invocation's eight columns: window origin (row, column)
uint col_base[8];                // and the start of the image's group in x
uint row_k[B_LOADS], row_chan[B_LOADS], row_tap[B_LOADS];  // its k rows: term, channel offset, tap
uint k_end, taps, ihw, k_q, k_r;  // k_q, k_r: BK terms as whole channels and taps
ConvView cv;

uint half_x(uint e) { return (x_words[e >> 1] >> ((e & 1u) << 4)) & 0xffffu; }
uint half_w(uint e) { return (w_words[e >> 1] >> ((e & 1u) << 4)) & 0xffffu; }

void load_a(uint k0, uint row0, uint w_base, uint k_count) {
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    const uint r = row0 + idx / (BK / 8u), k = k0 + (idx % (BK / 8u)) * 8u;
    uvec4 v = uvec4(0u);
    if (r < p.cout_g) {
      const uint e = w_base + r * k_count + k;
      if (k + 8u <= k_end && (e & 1u) == 0u) {
        const uint w = e >> 1;
        v = uvec4(w_words[w], w_words[w + 1u], w_words[w + 2u], w_words[w + 3u]);
      } else {
        uint h[8];
        [[unroll]] for (uint i = 0u; i < 8u; ++i) h[i] = k + i < k_end ? half_w(e + i) : 0u;
        v = uvec4(h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16), h[6] | (h[7] << 16));
      }
    }
    ra[l] = v;
  }
}

// Gathers this invocation's k rows of B, then moves each row BK terms on.
void load_b() {
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    const bool k_ok = row_k[l] < k_end;
    const int dy = tap_dy[row_tap[l]], dx = tap_dx[row_tap[l]];
    uint h[8];
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
      const int iy = col_y[j] + dy, ix = col_x[j] + dx;
      h[j] = 0u;
      if (k_ok && uint(iy) < p.ih && uint(ix) < p.iw) h[j] = half_x(col_base[j] + row_chan[l] + uint(iy) * p.iw + uint(ix));
    }
    rb[l] = uvec4(h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16), h[6] | (h[7] << 16));
    row_k[l] += BK;
    row_chan[l] += k_q * ihw;
    row_tap[l] += k_r;
    if (row_tap[l] >= taps) {
      row_tap[l] -= taps;
      row_chan[l] += ihw;
    }
  }
}

void store_shared() {
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    smem[(idx / (BK / 8u)) * LDK4 + idx % (BK / 8u)] = ra[l];
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    const uint idx = gl_LocalInvocationIndex + THREADS * l;
    smem[A_TILE + (idx / B_COLS) * LDN4 + idx % B_COLS] = rb[l];
  }
}

void multiply_step(uint sm, uint sn, inout coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FM * FN]) {
  [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a[FM];
    [[unroll]] for (uint i = 0u; i < FM; ++i)
      coopMatLoad(a[i], smem, (sm + 16u * i) * LDK4 + kk / 8u, LDK4, gl_CooperativeMatrixLayoutRowMajor);
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b[FN];
    [[unroll]] for (uint j = 0u; j < FN; ++j)
      coopMatLoad(b[j], smem, A_TILE + kk * LDN4 + (sn + 16u * j) / 8u, LDN4, gl_CooperativeMatrixLayoutRowMajor);
    [[unroll]] for (uint i = 0u; i < FM; ++i)
      [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i * FN + j] = coopMatMulAdd(a[i], b[j], acc[i * FN + j]);
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex, sg = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  const uint split = gl_WorkGroupID.z % p.splits, g = (gl_WorkGroupID.z / p.splits) % p.groups;
  const uint view = gl_WorkGroupID.z / (p.splits * p.groups);
  // PAIRS: z counts row phases and the workgroup makes both column phases (stride 2 across) in turn,
  // the first one's sums kept in `kept`, so that each output word gets both its halves here.
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[FM * FN];
#ifdef PAIRS
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> kept[FM * FN];
  uint kept_column = 0u;  // the first column phase's first output column (0 or 1)
#endif
  uint pix_count = 0u, n_count = 0u, plane = 0u;
  for (uint pass = 0u; pass < PASSES; ++pass) {
#ifdef PAIRS
  cv = conv_view(view * 2u + pass);
  if (pass == 1u) {
    [[unroll]] for (uint i = 0u; i < FM * FN; ++i) kept[i] = acc[i];
    barrier();  // every invocation is done with the first pass's tap table
  }
#else
  cv = conv_view(view);
#endif
  taps = cv.kh * cv.kw;
  ihw = p.ih * p.iw;
  k_q = taps > 0u ? BK / taps : 0u;  // a phase without taps makes no steps
  k_r = BK - k_q * taps;
  const uint k_count = p.cin_g * taps;
  pix_count = cv.oh * cv.ow, n_count = p.images * pix_count, plane = p.oh * p.ow;
  const uint k_begin = split * p.k_chunk;
  k_end = min(k_count, k_begin + p.k_chunk);
  const uint steps = k_end > k_begin ? (k_end - k_begin + BK - 1u) / BK : 0u;

  for (uint t = tid; t < taps; t += THREADS) {
    const uint ky = t / cv.kw, kx = t - ky * cv.kw;
    tap_dy[t] = int(ky * cv.dh);
    tap_dx[t] = int(kx * cv.dw);
  }
  const uint c8 = tid % B_COLS;
  [[unroll]] for (uint j = 0u; j < 8u; ++j) {
    const uint n = col0 + c8 * 8u + j;
    col_y[j] = -(1 << 30), col_x[j] = 0, col_base[j] = 0u;  // past the end: every tap falls outside
    if (n < n_count) {
      const uint b = n / pix_count, pix = n - b * pix_count;
      const uint oy = pix / cv.ow, ox = pix - oy * cv.ow;
      col_y[j] = int(oy * cv.sh) - cv.ph;
      col_x[j] = int(ox * cv.sw) - cv.pw;
      col_base[j] = p.x_off + (b * p.groups + g) * p.cin_g * ihw;
    }
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    const uint k = k_begin + tid / B_COLS + l * B_ROW_STEP;
    const uint ci = taps > 0u ? k / taps : 0u;
    row_k[l] = k;
    row_chan[l] = ci * ihw;
    row_tap[l] = k - ci * taps;
  }
  const uint w_base = cv.w_off + g * p.cout_g * k_count;
  [[unroll]] for (uint i = 0u; i < FM * FN; ++i)
    acc[i] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);

  barrier();  // the tap table
  if (steps > 0u) {
    load_a(k_begin, row0, w_base, k_count);
    load_b();
  }
  for (uint t = 0u; t < steps; ++t) {
    barrier();  // the previous step's fragments are read
    store_shared();
    barrier();
    if (t + 1u < steps) {
      load_a(k_begin + (t + 1u) * BK, row0, w_base, k_count);
      load_b();
    }
    multiply_step((sg / WN) * (16u * FM), (sg % WN) * (16u * FN), acc);
  }
#ifdef PAIRS
  if (pass == 0u) kept_column = cv.y_first % 2u;
#endif
  }

  const uint sm = (sg / WN) * (16u * FM), sn = (sg % WN) * (16u * FN);  // the subgroup's corner
  const uint at = sg * 256u;
  const bool to_scratch = (p.flags & OG_CONV_SPLIT) != 0u;
  [[unroll]] for (uint f = 0u; f < FM * FN; ++f) {
    coopMatStore(acc[f], stage, at, 16u, gl_CooperativeMatrixLayoutRowMajor);
#ifdef PAIRS
    const uint at_kept = (WM * WN + sg) * 256u;
    coopMatStore(kept[f], stage, at_kept, 16u, gl_CooperativeMatrixLayoutRowMajor);
#endif
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint r0 = row0 + sm + 16u * (f / FN), n0 = col0 + sn + 16u * (f % FN);
#ifdef PAIRS
    {
      for (uint e = lane; e < 256u; e += 32u) {  // one word of y per column: both phases' halves
        const uint row = r0 + e / 16u, n = n0 + e % 16u;
        if (row < p.cout_g && n < n_count) {
          const uint c = g * p.cout_g + row, b = n / pix_count;
          const uint pix = conv_view_pixel(cv, n - b * pix_count) & ~1u;  // the word's even column
          const float first = stage[at_kept + e], second = stage[at + e];
          const float lo = kept_column == 0u ? first : second, hi = kept_column == 0u ? second : first;
          const uint i = p.y_off + (b * p.cout_g * p.groups + c) * plane + pix;
          y_words[i >> 1] = og_f32_to_f16(conv_finish(lo, b, c, pix)) | (og_f32_to_f16(conv_finish(hi, b, c, pix + 1u)) << 16);
        }
      }
    }
#else
    if (to_scratch) {
      for (uint e = lane; e < 256u; e += 32u) {
        const uint row = r0 + e / 16u, n = n0 + e % 16u;
        if (row < p.cout_g && n < n_count) {
          const uint b = n / pix_count, pix = conv_view_pixel(cv, n - b * pix_count);
          t_data[p.t_off + split * p.t_plane + (g * p.cout_g + row) * p.t_chan + b * plane + pix] = stage[at + e];
        }
      }
    } else if ((p.flags & OG_CONV_PHASES) != 0u) {
      for (uint e = lane; e < 256u; e += 32u) {  // single halves at the phase's pixels
        const uint row = r0 + e / 16u, n = n0 + e % 16u;
        if (row < p.cout_g && n < n_count) {
          const uint c = g * p.cout_g + row, b = n / pix_count, pix = conv_view_pixel(cv, n - b * pix_count);
          const float v = conv_finish(stage[at + e], b, c, pix);
          y_halves[p.y_off + (b * p.cout_g * p.groups + c) * plane + pix] = uint16_t(og_f32_to_f16(v));
        }
      }
    } else {
      for (uint e = lane; e < 128u; e += 32u) {  // pairs of columns: whole words of y
        const uint row = r0 + e / 8u, n = n0 + (e % 8u) * 2u;
        if (row < p.cout_g && n < n_count) {
          const uint c = g * p.cout_g + row, b = n / pix_count, pix = n - b * pix_count;
          const uint s = at + (e / 8u) * 16u + (e % 8u) * 2u;
          const float v0 = conv_finish(stage[s], b, c, pix), v1 = conv_finish(stage[s + 1u], b, c, pix + 1u);
          const uint i = p.y_off + (b * p.cout_g * p.groups + c) * pix_count + pix;
          y_words[i >> 1] = og_f32_to_f16(v0) | (og_f32_to_f16(v1) << 16);
        }
      }
    }
#endif
    subgroupBarrier();
  }
}
