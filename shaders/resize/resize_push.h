// Push constants of the resize kernel, shared by the host (src/kernels/resize) and GLSL.
#ifndef ONEGPU_RESIZE_PUSH_H
#define ONEGPU_RESIZE_PUSH_H
#include "common/layout.h"

// The variants' defines (src/kernels/resize/CMakeLists.txt): LINEAR (else nearest); BITS16 (16-bit
// elements, two a word, else 32-bit); IN_F16 (linear: float16, else float32).
#define OG_RESIZE_WORKGROUP 256u
// Words of one tap in the tap buffer: first index, second index, weight of the second (float bits).
#define OG_RESIZE_TAP_WORDS 3u

// One invocation per output element (32-bit) or output word (16-bit).
struct ResizePush {
  OG_U32 x_offset, y_offset;  // elements
  OG_U32 count;               // elements of y
  OG_U32 units;               // invocations that write
  OG_U32 in_h, in_w, out_h, out_w;
  OG_U32 columns_at;          // the first column tap's word in the tap buffer (rows come first)
  OG_U32 pad0, pad1, pad2;
};

#endif
