// Push constants of the reduction kernels, shared by the host (src/kernels/reduce) and GLSL.
#ifndef ONEGPU_REDUCE_PUSH_H
#define ONEGPU_REDUCE_PUSH_H
#include "common/layout.h"

#define OG_RED_SUM 0u
#define OG_RED_MEAN 1u
#define OG_RED_MAX 2u
#define OG_RED_MIN 3u
#define OG_RED_PROD 4u
#define OG_RED_L1 5u
#define OG_RED_L2 6u
#define OG_RED_SUM_SQUARE 7u
#define OG_RED_LOG_SUM 8u
#define OG_RED_ARG_MAX 9u
#define OG_RED_ARG_MIN 10u

#define OG_RED_HALF 1u  // flags: input and output are half
#define OG_RED_VEC4 2u  // float32, one contiguous reduced run, bases and chunks multiples of 4
#define OG_RED_COLS4 4u  // columns path: float32, outputs contiguous in fours, strides multiples of 4

struct ReducePush {
  OG_U32 outputs;      // kept elements
  OG_U32 count;        // reduced elements per output
  OG_U32 op;
  OG_U32 flags;
  OG_U32 kept_runs;    // 0..4; the last run varies fastest
  OG_U32 red_runs;     // 1..4
  OG_U32 in_offset;    // elements
  OG_U32 out_offset;   // elements
  OG_U32 kept_size[4];
  OG_U32 kept_stride[4];
  OG_U32 red_size[4];
  OG_U32 red_stride[4];
  OG_U32 chunk;        // two-pass: reduced elements per chunk
  OG_U32 chunks;       // two-pass: chunks per output (<= 256); columns: partials per output
  OG_U32 scratch_stride;  // partials: slots per output in the scratch buffer
  OG_U32 pad;
};
#endif
