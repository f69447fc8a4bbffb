#version 450
// The implicit GEMM of conv_implicit.comp with a wide float32 tile: out[c, n] = sum_k W[c, k] X(k, n),
// the input windows gathered while the tile is staged. 64 output channels x 128 columns per
// workgroup of 256, k in steps of 16 through workgroup memory (the next step's operands loaded into
// registers while this one multiplies, the window decode of a step made two steps ahead), a 4 x 8
// register tile per invocation (rows 4 ty + i, columns 4 tx + j and 64 + 4 tx + j) read as vec4
// from workgroup memory. Each step's 16 products chain per output; the steps' sums add in k order.
// Grid: x column tiles, y row tiles, z = group * splits + split (no ConvTranspose phases). With
// OG_CONV_SPLIT each k range writes raw sums to its plane of the scratch for the epilogue pass;
// otherwise the epilogue is applied here.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv/conv_push.h"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#define ELEM 0
#include "conv/conv_io.glsl"
#include "conv/conv_view.glsl"
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { float t_data[]; };

shared vec4 As[16][16];  // [k][rows / 4]
shared vec4 Bs[16][32];  // [k][columns / 4]
// The window decode of the 16 k of a step (two buffers): the channel's offset in the image and the
// tap's row and column offsets.
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

// This invocation's staging: A rows 4 (tid / 16) + i at k tid % 16; B columns 4 (tid % 32) + j at k
// rows tid / 32 and tid / 32 + 8, each column's window origin (y0, x0) and image start fixed.
int col_y[4], col_x[4];
uint col_base[4];
bool col_ok[4];

void load_step(uint k0, uint buf, uint k_end, uint k_count, uint a_row, uint w_base, out vec4 ra, out vec4 rb[2]) {
  const uint tid = gl_LocalInvocationIndex;
  const uint ak = k0 + tid % 16u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    ra[i] = a_row + i < p.cout_g && ak < k_end ? load_w(w_base + (a_row + i) * k_count + ak) : 0.0;
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    const uint kk = tid / 32u + 8u * h;
    const bool k_ok = k0 + kk < k_end;
    const uint chan = k_channel[buf][kk];
    const int dy = k_dy[buf][kk], dx = k_dx[buf][kk];
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const int iy = col_y[j] + dy, ix = col_x[j] + dx;
      rb[h][j] = k_ok && col_ok[j] && uint(iy) < p.ih && uint(ix) < p.iw ? load_x(col_base[j] + chan + uint(iy) * p.iw + uint(ix))
                                                                         : 0.0;
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationIndex, tx = tid % 16u, ty = tid / 16u;
  const uint row0 = gl_WorkGroupID.y * 64u, col0 = gl_WorkGroupID.x * 128u;
  const uint split = gl_WorkGroupID.z % p.splits, g = gl_WorkGroupID.z / p.splits;
  // The view as a local (WGSL takes a module-scope variable as non-uniform, and the k loop's
  // barriers depend on it); the helpers read its copy in cv.
  const ConvView view = conv_view(0u);
  cv = view;
  const uint taps = view.kh * view.kw, k_count = p.cin_g * taps;
  const uint pix_count = view.oh * view.ow, n_count = p.images * pix_count, plane = p.oh * p.ow;
  const uint k_begin = split * p.k_chunk;
  const uint k_end = min(k_count, k_begin + p.k_chunk);
  const uint steps = k_end > k_begin ? (k_end - k_begin + 15u) / 16u : 0u;

  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    const uint n = col0 + 4u * (tid % 32u) + j;
    col_ok[j] = n < n_count;
    const uint nb = col_ok[j] ? n / pix_count : 0u, npix = col_ok[j] ? n - nb * pix_count : 0u;
    const uint oy = npix / cv.ow, ox = npix - oy * cv.ow;
    col_y[j] = int(oy * cv.sh) - cv.ph;
    col_x[j] = int(ox * cv.sw) - cv.pw;
    col_base[j] = p.x_off + (nb * p.groups + g) * p.cin_g * p.ih * p.iw;
  }
  const uint a_row = row0 + 4u * (tid / 16u);
  const uint w_base = view.w_off + (g * p.cout_g) * k_count;

  vec4 total[4][2];
  [[unroll]] for (uint i = 0u; i < 4u; ++i) total[i][0] = total[i][1] = vec4(0.0);
  if (tid < 16u) {
    if (k_begin + tid < k_end) decode_k(0u, tid, k_begin + tid, taps);
    if (k_begin + 16u + tid < k_end) decode_k(1u, tid, k_begin + 16u + tid, taps);
  }
  barrier();
  vec4 ra, rb[2];
  if (steps > 0u) load_step(k_begin, 0u, k_end, k_count, a_row, w_base, ra, rb);
  for (uint t = 0u; t < steps; ++t) {
    const uint k0 = k_begin + t * 16u;
    As[tid % 16u][tid / 16u] = ra;
    Bs[tid / 32u][tid % 32u] = rb[0];
    Bs[tid / 32u + 8u][tid % 32u] = rb[1];
    barrier();
    // Step t + 2's decode goes where step t's was (read before the barrier above).
    if (tid < 16u && k0 + 32u + tid < k_end) decode_k(t % 2u, tid, k0 + 32u + tid, taps);
    if (t + 1u < steps) load_step(k0 + 16u, (t + 1u) % 2u, k_end, k_count, a_row, w_base, ra, rb);
    vec4 s[4][2];
    [[unroll]] for (uint i = 0u; i < 4u; ++i) s[i][0] = s[i][1] = vec4(0.0);
    [[unroll]] for (uint kk = 0u; kk < 16u; ++kk) {
      const vec4 a = As[kk][ty], b0 = Bs[kk][tx], b1 = Bs[kk][16u + tx];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        s[i][0] = fma(vec4(a[i]), b0, s[i][0]);
        s[i][1] = fma(vec4(a[i]), b1, s[i][1]);
      }
    }
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      total[i][0] += s[i][0];
      total[i][1] += s[i][1];
    }
    barrier();
  }

  const bool to_scratch = (p.flags & OG_CONV_SPLIT) != 0u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint row = row0 + 4u * ty + i;
    if (row >= p.cout_g) continue;
    const uint c = g * p.cout_g + row;
    [[unroll]] for (uint h = 0u; h < 2u; ++h)
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        const uint col = col0 + 64u * h + 4u * tx + j;
        if (col >= n_count) continue;
        const uint b = col / pix_count, pix = col - b * pix_count;
        if (to_scratch)
          t_data[p.t_off + split * p.t_plane + c * p.t_chan + b * plane + pix] = total[i][h][j];
        else
          y_data[p.y_off + (b * p.cout_g * p.groups + c) * plane + pix] = conv_finish(total[i][h][j], b, c, pix);
      }
  }
}
