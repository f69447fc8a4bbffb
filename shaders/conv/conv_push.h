// The push-constant block of every convolution kernel, shared by the host (src/kernels/conv) and
// GLSL. Offsets count elements of the tensor's type from the start of its binding (the whole
// buffer); the scratch (`t_*`) counts float32 words, or halves for float16 column matrices.
#ifndef ONEGPU_CONV_PUSH_H
#define ONEGPU_CONV_PUSH_H
#include "common/layout.h"
#ifndef __cplusplus
// naga has no write-only storage buffers: the WebGPU dialect declares them read-write.
#ifdef OG_WEBGPU
#define OG_WRITEONLY
#else
#define OG_WRITEONLY writeonly
#endif
#endif

#define OG_CONV_BIAS 1u
#define OG_CONV_RESIDUAL 2u
#define OG_CONV_SPLIT 4u       // implicit: write raw sums to the scratch planes
#define OG_CONV_PHASES 8u      // implicit: ConvTranspose as phase convolutions (conv_view.glsl)
#define OG_CONV_ACT_SHIFT 8u   // the unary function (common/activation.h) in bits 8..12
#define OG_CONV_ACT_MASK 31u

struct ConvPush {
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
  OG_U32 cin_g;   // input channels per group
  OG_U32 cout_g;  // output channels per group
  OG_U32 groups;
  OG_U32 images;  // images in this call (a chunk of the batch)
  OG_U32 x_off;
  OG_U32 w_off;
  OG_U32 y_off;
  OG_U32 b_off;
  OG_U32 r_off;
  OG_U32 flags;
  OG_F32 act_alpha;
  OG_F32 act_beta;
  OG_U32 splits;   // k ranges (1: none)
  OG_U32 k_chunk;  // terms per range, a multiple of 32
  OG_U32 t_off;    // scratch: first word (element) of the planes, columns or accumulators
  OG_U32 t_image;  // scratch: stride between images
  OG_U32 t_chan;   // scratch: stride between channels (rows of a column matrix)
  OG_U32 t_plane;  // scratch: stride between split planes
};
#endif
