#version 450
// Winograd F(2x2, 3x3) for float32 3 x 3 convolutions of stride 1, dilation 1, one group (Lavin and
// Gray, 2016): each 2 x 2 output tile is A^T [ sum over input channels (G g G^T) . (B^T d B) ] A,
// the channel sum being 16 matrix products [cout x cin] x [cin x tiles], one per element xi of
// the 4 x 4 transformed tile. One source, four passes (STAGE), in the order 0, 1, 3, 2:
//   0 weights  an invocation per (output channel, input channel): U[xi][c][ci] = (G g G^T)[xi]
//   1 input    an invocation per (input channel, tile): V[xi][ci][t] = (B^T d B)[xi] of the 4 x 4
//              window at (2 ty - ph, 2 tx - pw), zero outside the image
//   3 product  a workgroup per 64 output channels x 128 tiles of one xi: M[xi] = U[xi] V[xi],
//              k in steps of 16 through workgroup memory (the next step's operands loaded into
//              registers meanwhile), a 4 x 8 register tile per invocation; each step's 16 products
//              chain, the steps' sums add in order
//   2 output   an invocation per (output channel, tile): the 2 x 2 outputs from M[.][c][t], then
//              bias, residual and activation as every convolution path applies them, stored where
//              they lie inside the output
// Scratch words (push constants): t_off U, t_image V, t_chan M, t_plane the tiles of the call's
// images. Tile t = (image * tiles_y + ty) * tiles_x + tx. Linear grids, except the product's
// (x: tiles / 128, y: output channels / 64, z: xi).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "conv/conv_push.h"
#include "common/grid.glsl"

layout(local_size_x = 256) in;
OG_PUSH_BLOCK(ConvPush, p);
#define ELEM 0
#include "conv/conv_io.glsl"
#if STAGE == 3
layout(std430, binding = 5) buffer BufT { float t_data[]; };
shared vec4 As[16][16];  // [k][rows / 4]
shared vec4 Bs[16][32];  // [k][columns / 4]

// Step k0's operands: A rows 4 (tid / 16) + i at k (tid % 16); B columns 4 (tid % 32) + j at k rows
// tid / 32 and tid / 32 + 8. Zero outside the matrices.
void load_step(uint k0, uint a_base, uint b_base, uint row0, uint col0, out vec4 ra, out vec4 rb[2]) {
  const uint tid = gl_LocalInvocationIndex;
  const uint cin = p.cin_g, cout = p.cout_g, tiles = p.t_plane;
  const uint ak = k0 + tid % 16u, ar = row0 + 4u * (tid / 16u);
  [[unroll]] for (uint i = 0u; i < 4u; ++i) ra[i] = ak < cin && ar + i < cout ? t_data[a_base + (ar + i) * cin + ak] : 0.0;
  const uint bc = col0 + 4u * (tid % 32u);
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    const uint bk = k0 + tid / 32u + 8u * h;
    [[unroll]] for (uint j = 0u; j < 4u; ++j)
      rb[h][j] = bk < cin && bc + j < tiles ? t_data[b_base + bk * tiles + bc + j] : 0.0;
  }
}
#elif STAGE == 2
layout(std430, binding = 5) readonly buffer BufT { float t_data[]; };
#else
layout(std430, binding = 5) OG_WRITEONLY buffer BufT { float t_data[]; };
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
#elif STAGE == 3
  const uint tid = gl_LocalInvocationIndex, tx = tid % 16u, ty = tid / 16u;
  const uint xi = gl_WorkGroupID.z, row0 = gl_WorkGroupID.y * 64u, col0 = gl_WorkGroupID.x * 128u;
  const uint cin = p.cin_g, cout = p.cout_g, tiles = p.t_plane;
  const uint a_base = p.t_off + xi * cout * cin, b_base = p.t_image + xi * cin * tiles;
  const uint steps = (cin + 15u) / 16u;
  vec4 total[4][2], ra, rb[2];
  [[unroll]] for (uint i = 0u; i < 4u; ++i) total[i][0] = total[i][1] = vec4(0.0);
  load_step(0u, a_base, b_base, row0, col0, ra, rb);
  for (uint t = 0u; t < steps; ++t) {
    As[tid % 16u][tid / 16u] = ra;
    Bs[tid / 32u][tid % 32u] = rb[0];
    Bs[tid / 32u + 8u][tid % 32u] = rb[1];
    barrier();
    if (t + 1u < steps) load_step((t + 1u) * 16u, a_base, b_base, row0, col0, ra, rb);
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
  const uint c_base = p.t_chan + xi * cout * tiles;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    const uint row = row0 + 4u * ty + i;
    if (row >= cout) break;
    [[unroll]] for (uint h = 0u; h < 2u; ++h)
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        const uint col = col0 + 64u * h + 4u * tx + j;
        if (col < tiles) t_data[c_base + row * tiles + col] = total[i][h][j];
      }
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
