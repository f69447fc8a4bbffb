// Push constants of the quantize kernels, shared by the host (src/kernels/quantize) and GLSL.
#ifndef ONEGPU_QUANTIZE_PUSH_H
#define ONEGPU_QUANTIZE_PUSH_H
#include "common/layout.h"

// The variants' defines (src/kernels/quantize/CMakeLists.txt):
//   quantize.comp:   IN_F16 (float16 input, else float32); DYNAMIC (scale and zero point from the
//                    minimum and maximum partials of minmax.comp);
//   dequantize.comp: IN_BITS 8 or 32; OUT_F16 (float16 output, else float32).
#define OG_QUANT_WORKGROUP 256u
// A group is four elements, aligned to four in the output's buffer: an output word of bytes, two
// words of halves, four float32 words. An invocation owns whole groups.
#define OG_QUANT_GROUP 4u

// codes
#define OG_QUANT_SIGNED 1u    // int8 output (quantize) or input (dequantize), else uint8
#define OG_QUANT_PER_AXIS 2u  // a scale (and zero point) per index of the axis, else one
#define OG_QUANT_ZERO 4u      // a zero point tensor is bound, else the zero point is 0
#define OG_QUANT_ALIGNED 8u   // x_offset - y_offset is a multiple of 4: whole groups load vectors

struct QuantizePush {
  OG_U32 codes;
  OG_U32 x_offset;      // elements
  OG_U32 y_offset;      // elements
  OG_U32 count;         // elements of x (and y)
  OG_U32 scale_offset;  // elements (DYNAMIC: y_scale's)
  OG_U32 zero_offset;   // elements (DYNAMIC: y_zero_point's)
  OG_U32 inner;         // per axis: elements after the axis
  OG_U32 axis_length;   // per axis: scales
  OG_U32 workgroups;    // workgroups that take groups (a folded grid may hold more)
  OG_U32 partials;      // DYNAMIC and minmax: minimum and maximum pairs in the partials buffer
};

#endif
