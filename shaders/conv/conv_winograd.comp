#version 450
// Winograd F(2x2, 3x3) for float32 3 x 3 convolutions of stride 1, dilation 1, one group (Lavin and
// Gray, 2016): each 2 x 2 output tile is A^T [ (G g G^T) . (B^T d B) ] A, the elementwise product
// summed over input channels as 16 batched matrix products (Gemm, between STAGE 1 and STAGE 2).
// One source, three passes (STAGE), an invocation each, linear grid:
//   0 weights  per (output channel, input channel): U[xi][c][ci] = (G g G^T)[xi], 16 values
//   1 input    per (image, input channel, tile): V[xi][ci][t] = (B^T d B)[xi], the 4 x 4 window at
//              (2 ty - ph, 2 tx - pw), zero outside the image
//   2 output   per (image, output channel, tile): the 2 x 2 outputs from M[xi][c][t], then bias,
//              residual and activation as every convolution path applies them, stored where they
//              lie inside the output
// Scratch words (push constants): t_off U, t_image V, t_chan M, t_plane the tiles of the call's
// images (the columns of the products). Tile t = (image * tiles_y + ty) * tiles_x + tx.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { ConvPush p; };
#define ELEM 0
#include "conv/conv_io.glsl"
#if STAGE == 2
layout(std430, binding = 5) readonly buffer BufT { float t_data[]; };
#else
layout(std430, binding = 5) writeonly buffer BufT { float t_data[]; };
#endif

uint tiles_x() { return (p.ow + 1u) / 2u; }
uint tiles_y() { return (p.oh + 1u) / 2u; }

void main() {
  const uint id = og_workgroup_index() * 256u + gl_LocalInvocationIndex;
#if STAGE == 0
  const uint cin = p.cin_g, cout = p.cout_g;
  if (id >= cout * cin) return;
  const uint c = id / cin, ci = id - c * cin;
  float g[3][3];
  [[unroll]] for (uint i = 0u; i < 3u; ++i)
    [[unroll]] for (uint j = 0u; j < 3u; ++j) g[i][j] = load_w(p.w_off + id * 9u + i * 3u + j);
  // G g (4 x 3), G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
  float h[4][3];
  [[unroll]] for (uint j = 0u; j < 3u; ++j) {
    h[0][j] = g[0][j];
    h[1][j] = 0.5 * (g[0][j] + g[1][j] + g[2][j]);
    h[2][j] = 0.5 * (g[0][j] - g[1][j] + g[2][j]);
    h[3][j] = g[2][j];
  }
  const uint plane = cout * cin;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const float u[4] = float[4](h[i][0], 0.5 * (h[i][0] + h[i][1] + h[i][2]), 0.5 * (h[i][0] - h[i][1] + h[i][2]),
                                h[i][2]);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) t_data[p.t_off + (i * 4u + j) * plane + id] = u[j];
  }
#elif STAGE == 1
  const uint tx_n = tiles_x(), per_image = tx_n * tiles_y(), tiles = p.t_plane;
  if (id >= p.cin_g * tiles) return;
  const uint ci = id / tiles, t = id - ci * tiles;
  const uint b = t / per_image, r = t - b * per_image;
  const uint ty = r / tx_n, tx = r - ty * tx_n;
  const int y0 = int(2u * ty) - int(p.ph), x0 = int(2u * tx) - int(p.pw);
  const uint base = p.x_off + (b * p.cin_g + ci) * p.ih * p.iw;
  float d[4][4];
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const int y = y0 + int(i);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const int x = x0 + int(j);
      d[i][j] = y >= 0 && y < int(p.ih) && x >= 0 && x < int(p.iw) ? load_x(base + uint(y) * p.iw + uint(x)) : 0.0;
    }
  }
  // B^T d (rows), B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
  float e[4][4];
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    e[0][j] = d[0][j] - d[2][j];
    e[1][j] = d[1][j] + d[2][j];
    e[2][j] = d[2][j] - d[1][j];
    e[3][j] = d[1][j] - d[3][j];
  }
  const uint plane = p.cin_g * tiles;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const float v[4] = float[4](e[i][0] - e[i][2], e[i][1] + e[i][2], e[i][2] - e[i][1], e[i][1] - e[i][3]);
    [[unroll]] for (uint j = 0u; j < 4u; ++j) t_data[p.t_image + (i * 4u + j) * plane + id] = v[j];
  }
#else
  const uint tx_n = tiles_x(), per_image = tx_n * tiles_y(), tiles = p.t_plane;
  if (id >= p.cout_g * tiles) return;
  const uint c = id / tiles, t = id - c * tiles;
  const uint b = t / per_image, r = t - b * per_image;
  const uint ty = r / tx_n, tx = r - ty * tx_n;
  const uint plane = p.cout_g * tiles;
  float m[4][4];
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    [[unroll]] for (uint j = 0u; j < 4u; ++j) m[i][j] = t_data[p.t_chan + (i * 4u + j) * plane + id];
  // A^T m A, A^T = [1 1 1 0; 0 1 -1 -1].
  float q[2][4];
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    q[0][j] = m[0][j] + m[1][j] + m[2][j];
    q[1][j] = m[1][j] - m[2][j] - m[3][j];
  }
  [[unroll]] for (uint i = 0u; i < 2u; ++i) {
    const uint oy = 2u * ty + i;
    if (oy >= p.oh) break;
    const float o[2] = float[2](q[i][0] + q[i][1] + q[i][2], q[i][1] - q[i][2] - q[i][3]);
    [[unroll]] for (uint j = 0u; j < 2u; ++j) {
      const uint ox = 2u * tx + j;
      if (ox >= p.ow) break;
      const uint pix = oy * p.ow + ox;
      y_data[p.y_off + (b * p.cout_g + c) * p.oh * p.ow + pix] = conv_finish(o[j], b, c, pix);
    }
  }
#endif
}
