#version 450
// 2-D transposes through workgroup memory, one per batch entry (see LayoutTilePush): a workgroup of 32 x 8
// invocations moves a tile of 32 input rows (p) by 32 output words (q: 32, 64 or 128 elements of
// 32, 16 or 8 bits). Reads run along p and writes along q, both coalesced. The entry of tile row q and input row p sits in column p ^ (q / PER) (an XOR swizzle), so both the
// row writes of the first phase and the column reads of the second fall in 32 different banks,
// without padding (the 8-bit tile then takes exactly 16 KiB, the least any device offers). A 16- or
// 8-bit output word is built from two or four tile entries, so an invocation owns whole words.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "layout/layout_push.h"
#include "common/grid.glsl"

layout(local_size_x = 32, local_size_y = 8) in;
OG_PUSH_BLOCK(LayoutTilePush, p);
layout(std430, binding = 0) readonly buffer In { uint in_words[]; };
layout(std430, binding = 1) buffer Out { uint out_words[]; };

#if WIDTH == 64
#define PER 1u
#else
#define PER (32u / WIDTH)
#endif
#define TP OG_LAYOUT_TILE            // input rows per tile
#define TQ (OG_LAYOUT_TILE * PER)    // output elements per tile row

#define COLUMN(q, pp) ((pp) ^ (((q) / PER) & 31u))

shared uint tile[TQ][TP];
#if WIDTH == 64
shared uint tile_hi[TQ][TP];
#endif

void main() {
  const uint wg = og_workgroup_index();
  const uint tq = wg % p.tiles_q;
  const uint rest = wg / p.tiles_q;
  const uint tp = rest % p.tiles_p;
  const uint b = rest / p.tiles_p;
  if (b >= p.batches) return;  // uniform over the workgroup: before any barrier
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint p0 = tp * TP, q0 = tq * TQ;
  uint in_base = p.in_offset, out_base = p.out_offset, rest_b = b;
  [[unroll]] for (int d = OG_LAYOUT_MAX_BATCH_RANK - 1; d >= 0; --d) {
    if (uint(d) < p.batch_rank) {
      const uint n = p.batch_shape[d];
      const uint q = rest_b / n;
      const uint c = rest_b - q * n;
      in_base += c * p.batch_in[d];
      out_base += c * p.batch_out[d];
      rest_b = q;
    }
  }
  // Load: invocation (tx, ty) reads input row p0 + tx of output columns q0 + ty, + 8, ...
  {
    const uint pp = p0 + tx;
    [[unroll]] for (uint i = 0u; i < TQ / 8u; ++i) {
      const uint qq = q0 + ty + 8u * i;
      if (pp < p.rows && qq < p.columns) {
        const uint e = in_base + qq * p.stride_q + pp;
        const uint q = ty + 8u * i;
#if WIDTH == 64
        tile[q][COLUMN(q, tx)] = in_words[2u * e];
        tile_hi[q][COLUMN(q, tx)] = in_words[2u * e + 1u];
#elif WIDTH == 32
        tile[q][COLUMN(q, tx)] = in_words[e];
#else
        tile[q][COLUMN(q, tx)] = (in_words[e / PER] >> ((e % PER) * WIDTH)) & ((1u << WIDTH) - 1u);
#endif
      }
    }
  }
  barrier();
  // Store: invocation (tx, ty) writes word tx of output rows p0 + ty, + 8, ...
  const uint qq = q0 + tx * PER;
  if (qq >= p.columns) return;
  [[unroll]] for (uint i = 0u; i < TP / 8u; ++i) {
    const uint r = ty + 8u * i;
    const uint pp = p0 + r;
    if (pp >= p.rows) continue;
    const uint e = out_base + pp * p.out_stride_p + qq;
#if WIDTH == 64
    out_words[2u * e] = tile[tx][COLUMN(tx, r)];
    out_words[2u * e + 1u] = tile_hi[tx][COLUMN(tx, r)];
#elif WIDTH == 32
    out_words[e] = tile[tx][COLUMN(tx, r)];
#else
    uint bits = 0u;
    [[unroll]] for (uint j = 0u; j < PER; ++j) bits |= tile[tx * PER + j][COLUMN(tx * PER + j, r)] << (j * WIDTH);
    out_words[e / PER] = bits;
#endif
  }
}
