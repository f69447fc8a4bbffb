#version 450
// Implicit GEMM: out[c, n] = sum_k W[c, k] * X(k, n) for channel c of a group, with
// k = (input channel of the group, kernel row, kernel column) and n = image * pixels + pixel, the
// input window gathered while the tile is staged (no column matrix). 64 x 64 of the output per
// workgroup of 256, k in steps of 16 through workgroup memory, a 4 x 4 register tile per invocation
// (rows ty + 16 i, columns tx + 16 j). Float32 sums in GEMM's blocks: 16 products chain per step, two
// steps form a block, four blocks a group, groups join the total in increasing k.
// With OG_CONV_PHASES a ConvTranspose phase's product (conv_view.glsl), its outputs stored at their
// pixels of y. Grid: x column tiles, y row tiles, z = (phase * groups + group) * splits + split. With OG_CONV_SPLIT each k range writes raw
// sums to its plane of the scratch ([plane][channel][n]) for the epilogue pass; otherwise the
// epilogue is applied here (float32 output).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv/conv_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#ifdef OG_WEBGPU
layout(std430, binding = 5) buffer BufT { float t_data[]; };
#define CONV_PHASE_W_IN_T
#endif
#include "conv/conv_io.glsl"
#include "conv/conv_view.glsl"
#ifndef OG_WEBGPU
layout(std430, binding = 5) writeonly buffer BufT { float t_data[]; };
#endif

shared float As[16][68];  // [k][row]
shared float Bs[16][68];  // [k][col]
// The window decode of the 16 k of a step, made by 16 invocations one step ahead (two buffers):
// the channel's offset in the image and the tap's row and column offsets (dilated). Staging then
// divides nothing.
shared uint k_channel[2][16];
shared int k_dy[2][16], k_dx[2][16];
ConvView cv;

void decode_k(uint buf, uint slot, uint k, uint taps) {
  const uint ci = k / taps, tap = k - ci * taps;
  const uint ky = tap / cv.kw, kx = tap - ky * cv.kw;
  k_channel[buf][slot] = ci * p.ih * p.iw;
  k_dy[buf][slot] = int(ky * cv.dh);
  k_dx[buf][slot] = int(kx * cv.dw);
}

float conv_value(uint e) { return 0.0; }  // unused: this kernel stores its own tile

// The operands of the step at k0: A rows a_row + 16 i at k column a_k, and B column b_col (its
// window origin y0, x0 in image x_base) at k rows b_k + 4 i, decoded by buffer `buf`.
void load_operands(uint k0, uint buf, uint k_end, uint k_count, uint row0, uint w_base, bool n_ok, int y0, int x0,
                   uint x_base, out float ra[4], out float rb[4]) {
  const uint tid = gl_LocalInvocationIndex;
  const uint a_k = tid % 16u, a_row = tid / 16u, b_k = tid / 64u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint gr = row0 + a_row + 16u * i, gk = k0 + a_k;
    ra[i] = gr < p.cout_g && gk < k_end ? load_w(w_base + gr * k_count + gk) : 0.0;
    const uint kk = b_k + 4u * i;
    float x = 0.0;
    if (n_ok && k0 + kk < k_end) {
      const int iy = y0 + k_dy[buf][kk], ix = x0 + k_dx[buf][kk];
      if (iy >= 0 && iy < int(p.ih) && ix >= 0 && ix < int(p.iw))
        x = load_x(x_base + k_channel[buf][kk] + uint(iy) * p.iw + uint(ix));
    }
    rb[i] = x;
  }
}
#define load_step(k0, buf, ra, rb) \
  load_operands(k0, buf, k_end, k_count, row0, w_base, n_ok, y0, x0, x_base, ra, rb)

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tx = tid % 16u, ty = tid / 16u;
  const uint row0 = gl_WorkGroupID.y * 64u, col0 = gl_WorkGroupID.x * 64u;
  const uint split = gl_WorkGroupID.z % p.splits, g = (gl_WorkGroupID.z / p.splits) % p.groups;
  // The view as a local (WGSL takes a module-scope variable as non-uniform, and the k loop's
  // barriers depend on it); the helpers read its copy in cv.
  const ConvView view = conv_view(gl_WorkGroupID.z / (p.splits * p.groups));
  cv = view;
  const uint taps = view.kh * view.kw, k_count = p.cin_g * taps;
  const uint pix_count = view.oh * view.ow, n_count = p.images * pix_count, plane = p.oh * p.ow;
  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(k_count, k_begin + p.k_chunk);
  const uint steps = k_end > k_begin ? (k_end - k_begin + 15u) / 16u : 0u;

  // This invocation stages B column (tid % 64) at k rows tid / 64 + 4 i, and A row tid / 16 + 16 i
  // at k column tid % 16: the column's window origin is fixed for the whole loop.
  const uint b_col = tid % 64u, b_k = tid / 64u;
  const uint n = col0 + b_col;
  const bool n_ok = n < n_count;
  const uint nb = n_ok ? n / pix_count : 0u, npix = n_ok ? n % pix_count : 0u;
  const int y0 = int((npix / cv.ow) * cv.sh) - cv.ph, x0 = int((npix % cv.ow) * cv.sw) - cv.pw;
  const uint x_base = p.x_off + (nb * p.groups + g) * p.cin_g * p.ih * p.iw;
  const uint a_k = tid % 16u, a_row = tid / 16u;
  const uint w_base = view.w_off + (g * p.cout_g) * k_count;

  float blk[16], grp[16], total[16];
  [[unroll]] for (uint i = 0u; i < 16u; ++i) { blk[i] = 0.0; grp[i] = 0.0; total[i] = 0.0; }

  // float32 is software pipelined: step t + 1's operands load into registers while step t's are
  // multiplied from workgroup memory, and step t + 2's decode is made during step t. Halves stage
  // each step's operands directly, a step's decode made one step ahead (measured faster for them on
  // an H200: 0.146 ms against 0.19 for the 64-channel 56 x 56 layer at batch 8).
#if ELEM == 0
  const uint ahead = 2u;
#else
  const uint ahead = 1u;
#endif
  if (tid < 16u) {
    if (k_begin + tid < k_end) decode_k(0u, tid, k_begin + tid, taps);
    if (ahead == 2u && k_begin + 16u + tid < k_end) decode_k(1u, tid, k_begin + 16u + tid, taps);
  }
  barrier();
  float ra[4], rb[4];
  if (ahead == 2u) load_step(k_begin, 0u, ra, rb);
  for (uint t = 0u; t < steps; ++t) {
    const uint k0 = k_begin + t * 16u;
    if (ahead == 1u) load_step(k0, t % 2u, ra, rb);
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      As[a_k][a_row + 16u * i] = ra[i];
      Bs[b_k + 4u * i][b_col] = rb[i];
    }
    // Step t + 1's decode (halves) goes to the other buffer, last read a step ago.
    if (ahead == 1u && tid < 16u && k0 + 16u + tid < k_end) decode_k((t + 1u) % 2u, tid, k0 + 16u + tid, taps);
    barrier();
    // Step t + 2's decode (float32) goes where step t's was (read a step ago, two barriers back).
    if (ahead == 2u && tid < 16u && k0 + 32u + tid < k_end) decode_k(t % 2u, tid, k0 + 32u + tid, taps);
    if (ahead == 2u && t + 1u < steps) load_step(k0 + 16u, (t + 1u) % 2u, ra, rb);
    float s[16];
    [[unroll]] for (uint i = 0u; i < 16u; ++i) s[i] = 0.0;
    [[unroll]] for (uint kk = 0u; kk < 16u; ++kk) {
      float a[4], b[4];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) a[i] = As[kk][ty + 16u * i];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) b[j] = Bs[kk][tx + 16u * j];
      [[unroll]] for (uint i = 0u; i < 4u; ++i)
        [[unroll]] for (uint j = 0u; j < 4u; ++j) s[i * 4u + j] = fma(a[i], b[j], s[i * 4u + j]);
    }
    barrier();
    const bool last = t + 1u == steps;
    [[unroll]] for (uint i = 0u; i < 16u; ++i) blk[i] = (t % 2u == 0u) ? s[i] : blk[i] + s[i];
    if (t % 2u == 1u || last) {
      const uint b_index = t / 2u;
      [[unroll]] for (uint i = 0u; i < 16u; ++i) grp[i] = (b_index % 4u == 0u) ? blk[i] : grp[i] + blk[i];
      if (b_index % 4u == 3u || last)
        [[unroll]] for (uint i = 0u; i < 16u; ++i) total[i] = total[i] + grp[i];
    }
  }

  const bool to_scratch = (p.flags & OG_CONV_SPLIT) != 0u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint row = row0 + ty + 16u * i;
    if (row >= p.cout_g) continue;
    const uint c = g * p.cout_g + row;
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const uint col = col0 + tx + 16u * j;
      if (col >= n_count) continue;
      const uint b = col / pix_count, pix = conv_view_pixel(cv, col % pix_count);
      if (to_scratch) {
        t_data[p.t_off + split * p.t_plane + c * p.t_chan + b * plane + pix] = total[i * 4u + j];
      } else {
#if ELEM == 0
        y_data[p.y_off + (b * p.cout_g * p.groups + c) * plane + pix] = conv_finish(total[i * 4u + j], b, c, pix);
#endif
      }
    }
  }
}
