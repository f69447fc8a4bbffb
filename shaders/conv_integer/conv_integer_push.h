// The push-constant block of the ConvInteger unfold pass, shared by the host
// (src/kernels/conv_integer) and GLSL. x offsets count bytes from the start of its binding (the
// whole buffer); the column matrix (`t_off`) counts 32-bit words.
#ifndef ONEGPU_CONV_INTEGER_PUSH_H
#define ONEGPU_CONV_INTEGER_PUSH_H
#include "common/layout.h"

#define OG_CI_ZERO_BUFFER 1u  // x_zero is the byte at zero_offset of the zero-point binding

struct ConvIntegerPush {
  OG_U32 ih;  // input extents
  OG_U32 iw;
  OG_U32 oh;  // output extents
  OG_U32 ow;
  OG_U32 kh;
  OG_U32 kw;
  OG_U32 sh;
  OG_U32 sw;
  OG_U32 dh;
  OG_U32 dw;
  OG_U32 ph;  // pads at the beginning
  OG_U32 pw;
  OG_U32 cin_g;        // input channels per group
  OG_U32 depth;        // rows of a group's column matrix: cin_g * kh * kw
  OG_U32 row_words;    // 32-bit words of one row (output pixels rounded up to 4 bytes)
  OG_U32 x_off;        // byte of the chunk's first image
  OG_U32 t_off;        // word of the column matrix's start
  OG_U32 words;        // words written (invocations)
  OG_U32 zero;         // x_zero as a byte (low 8 bits), unless OG_CI_ZERO_BUFFER
  OG_U32 zero_offset;  // byte of x_zero in its binding
  OG_U32 flags;
};
#endif
