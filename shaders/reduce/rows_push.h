// Push constants of softmax and normalisation, shared by the host and GLSL.
#ifndef ONEGPU_ROWS_PUSH_H
#define ONEGPU_ROWS_PUSH_H
#include "common/layout.h"

#define OG_ROWS_HALF 1u      // half input and output, two to a word (the row axis is last)
#define OG_ROWS_LOG 2u       // LogSoftmax
#define OG_ROWS_RMS 4u       // RMS normalisation (else layer normalisation)
#define OG_ROWS_SCALE 8u
#define OG_ROWS_BIAS 16u

struct RowsPush {
  OG_U32 rows;
  OG_U32 len;          // elements along the axis
  OG_U32 inner;        // distance between neighbouring elements of a row (1: the axis is last)
  OG_U32 flags;
  OG_U32 in_offset;    // elements
  OG_U32 out_offset;
  OG_U32 group;        // softmax: invocations per row (a power of two)
  OG_U32 scale_offset;
  OG_U32 bias_offset;
  OG_F32 epsilon;
  OG_U32 pad0;
  OG_U32 pad1;
};
#endif
