// onegpu/kernels/conv_integer.h - ONNX ConvInteger on NCHW tensors.
//
//   y[b, o, i, j] = sum_{c, u, v} (x[b, g C + c, i s - p + u d, j s - p + v d] - x_zero)
//                                 * (w[o, c, u, v] - w_zero[o])
//
// in int32 with two's-complement wrap-around, for output channel o of group g (C input channels per
// group), with the window's strides s, dilations d and pads p per axis (window.h); taps in the
// padding read x_zero, so they add nothing. Weights are OIHW ([out_channels, in_channels / groups,
// KH, KW]); a 1-D operator is a 2-D one with height 1. x and w are uint8 or int8 in any mix; y is
// int32. The result is exact: the same integers for every device, product kernel and chunking.
//
// Computed as an unfold of the input windows into a byte column matrix in a scratch buffer (padded
// taps holding x_zero), then the 8-bit product (IntegerGemm, int32 output) of the weights as stored
// with the columns, written straight into y. See docs/conv_integer.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/integer_gemm.h"
#include "onegpu/kernels/window.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct ConvIntegerOptions {
  // The product's kernel choices (matrix hardware, packed dot, small tiles, skinny tiles).
  IntegerGemmOptions product{};
  // Column matrices the family keeps for itself (grown on first need up to this many bytes; a batch
  // needing more runs in chunks of whole images, with the same result).
  uint64_t max_scratch_bytes = uint64_t(64) << 20;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

// The fields of ONNX ConvInteger: shapes, the window and groups, the operand types, and where each
// tensor starts in its buffer (element offsets: bytes for x and w, int32 elements for y; tensors
// are dense NCHW / OIHW; x and w need not start on a word).
struct ConvIntegerProblem {
  int64_t batch = 1;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  Extent2 input{1, 1};  // {height, width}
  Window window{};
  AutoPad auto_pad = AutoPad::explicit_pads;
  int64_t groups = 1;
  DataType x_type = DataType::uint8;  // uint8 or int8
  DataType w_type = DataType::int8;   // uint8 or int8
  uint64_t x_offset = 0, w_offset = 0, y_offset = 0;

  // {height, width} of y (auto_pad resolved). Throws KernelShapeError("ConvInteger", ...), or
  // UnsupportedError for a type other than uint8 / int8.
  Extent2 output() const;
};

// The zero points, as IntegerGemm takes them (integer_gemm.h): a value in the operand type's range,
// or elements of the operand's type in a buffer from element `offset`. x: one value (per_channel
// must be false); w: one value, or with `per_channel` one per output channel (out_channels of them).
struct ConvIntegerZeroPoints {
  ZeroPoint x, w;
};

// The buffers of a call. `scratch` (optional) holds the column matrices from byte `scratch_offset`
// (a multiple of 4); nullptr: the family's own.
struct ConvIntegerTensors {
  const RawBuffer* x = nullptr;
  const RawBuffer* w = nullptr;
  const Buffer<int32_t>* y = nullptr;
  const RawBuffer* scratch = nullptr;
  uint64_t scratch_offset = 0;
};

// Scratch bytes a call needs: for the whole batch at once and for one image (a smaller scratch runs
// the batch in chunks of whole images; less than one image throws).
struct ConvIntegerScratch {
  uint64_t whole_batch = 0;
  uint64_t per_image = 0;
};

class ConvInteger : public KernelFamily {
 public:
  explicit ConvInteger(Device& device, ConvIntegerOptions options = {});
  ~ConvInteger();
  ConvInteger(ConvInteger&&) noexcept;
  ConvInteger& operator=(ConvInteger&&) noexcept;

  // Records the convolution into `encoder`: per chunk of images, one unfold pass and the products
  // (one for the whole chunk with one group; with several groups one per group batched over images
  // when w_zero is per channel from a buffer or there are no more groups than images, else one per
  // image batched over groups). A chunk is as many whole images as the scratch holds (the family's
  // own: at most max_scratch_bytes and one storage binding, at least one image) and the device's
  // grid allows. A warm call with the same buffers allocates nothing, and the family's scratch
  // grows only once every check has passed. Every check runs before anything is recorded: KernelShapeError with
  // operation "ConvInteger" and the argument ("batch", "in_channels", "out_channels", "groups",
  // "kernel", "strides", "dilations", "pads", "input", "x", "w", "y", "x_zero_point",
  // "w_zero_point", "scratch") for a bad shape, a tensor or zero point outside its buffer, a zero
  // point value outside its type, y overlapping an input or the scratch, or a scratch overlapping
  // an input, a tensor beyond 32-bit indices; UnsupportedError for types other than uint8 / int8,
  // a product operand beyond one storage binding or 2^32 bytes, or a grid beyond the device's
  // limits.
  void encode(CommandEncoder& encoder, const ConvIntegerProblem& problem, const ConvIntegerZeroPoints& zero_points,
              const ConvIntegerTensors& tensors);

  // What runs: "conv_integer.unfold+" and the product's variant ("integer_gemm.dot4.64x64x32", ...).
  // `zero_points` decides the grouping only (per-channel w_zero with several groups).
  std::string variant(const ConvIntegerProblem& problem, const ConvIntegerZeroPoints& zero_points = {}) const;

  ConvIntegerScratch scratch_bytes(const ConvIntegerProblem& problem) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
