// ConvInteger decisions without a GPU: the geometry of a problem (checked), the column matrix's
// layout, the chunks of images a scratch allows, the products and the unfold pass's push constants.
#pragma once

#include <cstdint>

#include "conv_integer/conv_integer_push.h"
#include "onegpu/kernels/conv_integer.h"
#include "onegpu/kernels/integer_gemm.h"

namespace onegpu::kernels::conv_integer {

inline constexpr const char* kOp = "ConvInteger";

struct Geometry {
  uint64_t batch = 0, cin = 0, cout = 0, groups = 1, cin_g = 0, cout_g = 0;
  uint64_t ih = 0, iw = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  Window window{};  // pads resolved
  bool x_signed = false, w_signed = true;
  uint64_t x_offset = 0, w_offset = 0, y_offset = 0;

  uint64_t taps() const { return kh * kw; }
  uint64_t pixels() const { return oh * ow; }
  uint64_t in_pixels() const { return ih * iw; }
  // Rows of a group's column matrix (the product's depth): cin_g * taps.
  uint64_t depth() const { return cin_g * taps(); }
  // Bytes of one row of the column matrix: the output pixels rounded up to a multiple of 4.
  uint64_t row_bytes() const { return (pixels() + 3) / 4 * 4; }
  // Bytes of one image's column matrices (every group): groups * depth * row_bytes.
  uint64_t image_bytes() const { return groups * depth() * row_bytes(); }
};

// Checked: types (UnsupportedError), channels and groups positive, groups dividing both channel
// counts, the window and the extents (window.h), every element count and offset below the kernels'
// 32-bit indices, one image's column matrix below 2^31 bytes.
Geometry resolve(const ConvIntegerProblem& p);

// Elements of each tensor (bytes for x and w, int32 for y).
struct Counts {
  uint64_t x = 0, w = 0, y = 0;
};
Counts counts(const Geometry& g);

// Images per chunk that `bytes` of scratch hold (the whole batch at most); 0 when not one image.
uint64_t chunk_images(const Geometry& g, uint64_t bytes);

// How the products of a chunk cover the groups.
enum class Grouping {
  whole,      // one group: one product for the chunk, batch entries = images (A shared)
  per_image,  // several groups: a product per image, batch entries = groups
  per_group,  // several groups with per-channel w_zero: a product per group, batch entries = images
};
Grouping grouping(const Geometry& g, bool w_zero_per_channel);
uint64_t product_count(const Geometry& g, Grouping grouping, uint64_t images);

// Product `index` of a chunk of `images` images from image `first`, the column matrix at byte
// `columns_offset` of the scratch. `w_zero_shift`: channels to add to a per-channel w_zero's offset.
struct Product {
  IntegerGemmProblem problem;
  uint64_t w_zero_shift = 0;
};
Product product(const Geometry& g, Grouping grouping, uint64_t first, uint64_t images, uint64_t index,
                uint64_t columns_offset);

// The unfold pass of a chunk (x_zero's fields are filled by the caller).
ConvIntegerPush unfold_push(const Geometry& g, uint64_t first, uint64_t images, uint64_t columns_offset);

}  // namespace onegpu::kernels::conv_integer
