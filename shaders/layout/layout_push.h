// Push constants of the layout kernels, shared by the host (src/kernels/layout) and GLSL.
#ifndef ONEGPU_LAYOUT_PUSH_H
#define ONEGPU_LAYOUT_PUSH_H
#include "common/layout.h"

// A variant's WIDTH define: the bits of one element (8, 16, 32 or 64). 8- and 16-bit elements are
// packed four and two to a 32-bit word; a 64-bit element is two words (low, high).
#define OG_LAYOUT_MAX_RANK 6      // merged dimensions
#define OG_LAYOUT_MAX_SOURCES 4   // inputs one copy pass reads
#define OG_LAYOUT_STRIDES 14      // source k's stride of dimension d is strides[k * rank + d]
#define OG_LAYOUT_WORDS 4u        // output words (64-bit: elements) per invocation of the copy kernel
#define OG_LAYOUT_ROW_VECTORS 2u  // 16-byte vectors per invocation of the row copy
#define OG_LAYOUT_TILE 32u        // tiled transpose: 32 rows of the input by 32 output words

// The codes word of LayoutCopyPush.
#define OG_LAYOUT_RANK_SHIFT 0     // merged dimensions, 1 .. OG_LAYOUT_MAX_RANK
#define OG_LAYOUT_SEL_SHIFT 4      // the dimension along which the sources follow each other
#define OG_LAYOUT_SOURCES_SHIFT 8  // sources, 1 .. OG_LAYOUT_MAX_SOURCES
#define OG_LAYOUT_FIELD(codes, shift) (((codes) >> (shift)) & 15u)

// The general copy (layout.copy.*). Output element e (dense,
// from out_offset) has coordinates c over `shape`; it comes from the source k whose range along
// dimension sel, [lo[k], lo[k + 1]) (the last up to sel_end), holds c[sel], at element
// offset[k] + sum c[d] * strides[k * rank + d] of that source's buffer (32-bit wrapping arithmetic:
// offsets and strides are two's complement, lo[k] already taken out of offset[k]). An element no
// source covers keeps its bits.
struct LayoutCopyPush {
  OG_U32 codes;
  OG_U32 count;       // output elements
  OG_U32 out_offset;  // elements
  OG_U32 sel_end;
  OG_U32 shape[OG_LAYOUT_MAX_RANK];
  OG_U32 offset[OG_LAYOUT_MAX_SOURCES];
  OG_U32 lo[OG_LAYOUT_MAX_SOURCES];
  OG_U32 strides[OG_LAYOUT_STRIDES];
};

// The row copy (layout.rows.*): `rank` merged dimensions, the last one a row that is contiguous in
// source and output and a whole number of 16-byte vectors. Row (c_0, ..., c_{rank-2}) is read from
// element in_offset + sum c_d * in_strides[d] and written to out_offset + sum c_d * out_strides[d]
// (an output that is not dense: one input's block of a concat). Strides are two's complement.
struct LayoutRowsPush {
  OG_U32 rank;
  OG_U32 count;  // elements
  OG_U32 in_offset;
  OG_U32 out_offset;
  OG_U32 shape[OG_LAYOUT_MAX_RANK];
  OG_U32 in_strides[OG_LAYOUT_MAX_RANK];
  OG_U32 out_strides[OG_LAYOUT_MAX_RANK];
};

// The tiled transpose (layout.tiled.*): a 2-D transpose in every batch. The output is dense from
// out_offset, its last dimension q (`columns`, whose rows start and end on word boundaries); p
// (`rows`) is the output dimension along which the source is contiguous. Batch entry
// (c_0, ..., c_{batch_rank-1}) over batch_shape starts at source element
// in_offset + sum c_d * batch_in[d] and output element out_offset + sum c_d * batch_out[d];
// there, out[p * out_stride_p + q] = in[q * stride_q + p]. Strides are two's complement.
#define OG_LAYOUT_MAX_BATCH_RANK 4
struct LayoutTilePush {
  OG_U32 rows;     // P
  OG_U32 columns;  // Q
  OG_U32 out_offset;
  OG_U32 in_offset;
  OG_U32 stride_q;
  OG_U32 out_stride_p;
  OG_U32 tiles_p;
  OG_U32 tiles_q;
  OG_U32 batches;     // the product of batch_shape
  OG_U32 batch_rank;  // 0 .. OG_LAYOUT_MAX_BATCH_RANK
  OG_U32 batch_shape[OG_LAYOUT_MAX_BATCH_RANK];
  OG_U32 batch_in[OG_LAYOUT_MAX_BATCH_RANK];
  OG_U32 batch_out[OG_LAYOUT_MAX_BATCH_RANK];
};
#endif
