// Push constants of the pooling kernels, shared by the host (src/kernels/pool) and GLSL.
#ifndef ONEGPU_POOL_PUSH_H
#define ONEGPU_POOL_PUSH_H
#include "common/layout.h"

// The variants' defines (src/kernels/pool/CMakeLists.txt):
//   window.comp and global.comp: MAX (else average); IN_F16 (float16 x and y, else float32).
#define OG_POOL_WORKGROUP 256u

// flags
#define OG_POOL_COUNT_PAD 1u  // AveragePool count_include_pad

// MaxPool and AveragePool: one invocation per output element (float32) or output word (float16).
struct PoolWindowPush {
  OG_U32 x_offset, y_offset;  // elements
  OG_U32 count;               // elements of y
  OG_U32 units;               // invocations that write: outputs, or y's words for float16
  OG_U32 in_h, in_w, out_h, out_w;
  OG_U32 kernel_h, kernel_w, stride_h, stride_w;
  OG_U32 dilation_h, dilation_w, pad_top, pad_left;
  OG_U32 padded_h, padded_w;  // in_h + both pads: taps at or beyond are ceil-mode overhang
  OG_U32 flags;
  OG_U32 channels;
  OG_U32 x_stride_n, x_stride_c, x_stride_h, x_stride_w;  // elements
  OG_U32 pad0, pad1;
};

// GlobalAveragePool and GlobalMaxPool: `threads` invocations per plane (a power of two), `planes`
// planes per workgroup of 256; a workgroup owns whole words of y.
struct PoolGlobalPush {
  OG_U32 x_offset, y_offset;  // elements
  OG_U32 planes;              // batch x channels
  OG_U32 plane_size;          // height x width
  OG_U32 threads;             // invocations per plane
  OG_U32 group_planes;        // 256 / threads
  OG_U32 y_base;              // y_offset rounded down to a word
  OG_U32 workgroups;
  OG_U32 channels, width;     // x's channels and plane width
  OG_U32 x_stride_n, x_stride_c, x_stride_h, x_stride_w;  // elements
};

#endif
