// Push constants of the gather kernels, shared by the host (src/kernels/gather) and GLSL.
#ifndef ONEGPU_GATHER_PUSH_H
#define ONEGPU_GATHER_PUSH_H
#include "common/layout.h"

// The variants' defines (src/kernels/gather/CMakeLists.txt).
// MODE: how an output element finds its source.
#define OG_GATHER_MODE_INDEX 0     // Gather and GatherND: [outer, tuples, inner] with index tuples
#define OG_GATHER_MODE_ELEMENTS 1  // GatherElements: one index per output element, up to 8 dimensions
#define OG_GATHER_MODE_ROWS 2      // whole rows of `row_units` units (UNIT bytes) per index
// WIDTH (index and elements modes): payload bits, 8, 16, 32 or 64. UNIT (rows): 4 or 16 bytes.

// Rows mode: units each invocation copies per row chunk.
#define OG_GATHER_ROW_ITEMS 4u
#define OG_GATHER_WORKGROUP 256u
#define OG_GATHER_MAX_RANK 8

// codes
#define OG_GATHER_RECORD 1u   // record bad positions into the status word
#define OG_GATHER_WIDE 2u     // int64 indices (low, high words)
#define OG_GATHER_RANK_SHIFT 4u  // tuple length (index mode) or rank (elements mode), 4 bits
#define OG_GATHER_RANK_MASK 15u

struct GatherPush {
  OG_U32 codes;
  OG_U32 data_offset;   // elements (rows: units)
  OG_U32 index_offset;  // index elements
  OG_U32 out_offset;    // elements (rows: units)
  OG_U32 count;         // output elements (rows: output rows)
  OG_U32 inner;         // index mode: elements per index tuple and outer entry
  OG_U32 tuples;        // index and rows modes: index tuples per outer entry
  OG_U32 tuple_outer_stride;  // index tuples between outer entries (0 for Gather)
  OG_U32 data_outer_stride;   // data elements (rows: units) between outer entries
  OG_U32 axis;          // elements mode: the gathered dimension
  OG_U32 axis_length;   // elements mode: valid indices are [-axis_length, axis_length)
  OG_U32 row_units;     // rows mode: units per row
  OG_U32 row_shift;     // rows mode: log2 of the invocations per row
  OG_U32 row_chunks;    // rows mode: workgroups per block of rows
  // index and rows modes: per tuple component, the axis length and the data stride (rows mode:
  // in units); elements mode: the index tensor's (merged) shape and the data strides.
  OG_U32 dims[OG_GATHER_MAX_RANK];
  OG_U32 strides[OG_GATHER_MAX_RANK];
};

#endif
