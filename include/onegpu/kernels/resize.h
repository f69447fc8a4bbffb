// onegpu/kernels/resize.h - ONNX Resize on the two spatial axes of NCHW tensors.
//
// x is dense [batch, channels, height, width] and y [batch, channels, out height, out width], both
// of the same element type, from the element offsets in the problem. The output extent comes from
// `sizes` (when both are non-zero; the scale of an axis is then out / in) or from `scales`
// (out = floor(in * scale) of the exact product, the scale itself used in the coordinate
// arithmetic), as ONNX defines them; batch and channels are not resized, and the aspect-ratio
// policy is ONNX's default, stretch.
//
// Every output coordinate is mapped to an input coordinate by the coordinate transformation, in
// float32 as ONNX runtimes compute it:
//   half_pixel            (o + 0.5) / scale - 0.5
//   half_pixel_symmetric  the same, shifted so that the output is centred on the input:
//                         + (in / 2) * (1 - out / (scale * in))
//   pytorch_half_pixel    half_pixel when out > 1, else 0
//   align_corners         o * (in - 1) / (out - 1), 0 when out == 1
//   asymmetric            o / scale
// nearest rounds that coordinate (round_prefer_floor: halves down; round_prefer_ceil: halves up;
// floor; ceil) and clamps it to [0, in - 1]; linear clamps it to [0, in - 1] and interpolates
// between floor and floor + 1 (the last index repeated at the edge) along each axis: bilinear.
//
// The coordinate arithmetic runs on the host once per shape: a ResizePlan holds a tap table (for
// each output row and column, two input indices and the weight of the second) and a copy of it in
// a device buffer it owns, so every device reads the same taps. Create the plan once and encode it
// as often as needed; it must outlive the submissions that use it.
//
// Types: nearest moves any 32- or 16-bit element bit for bit (float32, int32, uint32, float16,
// bfloat16); linear takes float32 and float16 (float32 arithmetic, a half result rounded to nearest
// even once). Nearest is bit-exact; linear is within 1e-5 (float32) or 2e-3 (float16) of float64.
// Both KernelMode values record the same kernels: two runs give the same bits. An invocation owns
// whole 32-bit words of y, so a 16-bit output sharing a word with an element outside y leaves that
// element as it was.
//
// Not provided (UnsupportedError, capability "Resize <what>"): mode cubic, antialias,
// exclude_outside, the tf_crop_and_resize coordinate transformation (and so regions of interest).
// ResizePlan's constructor checks the problem and throws KernelShapeError("Resize", argument) for
// a non-positive extent ("x"), a scale that is not positive and finite or an output extent below 1
// or not below 2^31 ("scales", "sizes"), and element offsets plus counts not below 2^31 ("x",
// "y"). Resize::encode checks the buffers ("x", "y": inside the buffer, whole words; y overlapping
// x) before it records. Shape arithmetic is 64-bit and overflow-checked. A warm encode with the
// same plan and buffers allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onegpu/buffer.h"
#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/kernels/window.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

enum class ResizeMode { nearest, linear, cubic /* not provided */ };
enum class ResizeNearestMode { round_prefer_floor, round_prefer_ceil, floor, ceil };
enum class ResizeCoordinates {
  half_pixel,
  half_pixel_symmetric,
  pytorch_half_pixel,
  align_corners,
  asymmetric,
  tf_crop_and_resize,  // not provided
};

struct ResizeProblem {
  int64_t batch = 1, channels = 1;
  Extent2 input{1, 1};          // {height, width}
  std::array<float, 2> scales{1.f, 1.f};  // {height, width}; used when sizes is {0, 0}
  Extent2 sizes{0, 0};          // {height, width}; both non-zero: the output extent
  ResizeMode mode = ResizeMode::nearest;
  ResizeNearestMode nearest_mode = ResizeNearestMode::round_prefer_floor;  // ONNX's default
  ResizeCoordinates coordinates = ResizeCoordinates::half_pixel;          // ONNX's default
  bool antialias = false;        // not provided
  bool exclude_outside = false;  // not provided
  DataType type = DataType::float32;
  uint64_t x_offset = 0, y_offset = 0;  // elements
};

// One output row's or column's taps: the input indices and the weight of the second (nearest: one
// index, repeated, weight 0).
struct ResizeTap {
  uint32_t first = 0, second = 0;
  float weight = 0;
  friend bool operator==(const ResizeTap&, const ResizeTap&) = default;
};

// The tap tables of a problem, computed on the host (no device): `rows` has one tap per output
// row, `columns` one per output column. Checks the problem as ResizePlan does.
struct ResizeTaps {
  Extent2 output{1, 1};
  std::vector<ResizeTap> rows, columns;
  static ResizeTaps of(const ResizeProblem& problem);
};

class ResizePlan {
 public:
  // Checks the problem, computes the taps and uploads them to a buffer of `device`.
  ResizePlan(Device& device, const ResizeProblem& problem);
  ResizePlan(ResizePlan&&) noexcept = default;
  ResizePlan& operator=(ResizePlan&&) noexcept = default;

  const ResizeProblem& problem() const { return problem_; }
  Extent2 output_extent() const { return taps_.output; }
  uint64_t input_elements() const;
  uint64_t output_elements() const;
  const ResizeTaps& taps() const { return taps_; }
  const RawBuffer& tap_buffer() const { return buffer_; }  // rows, then columns: 3 words a tap
  // The variant encode() records ("resize.nearest.b32", "resize.linear.f16", ...).
  std::string describe() const;

 private:
  ResizeProblem problem_;
  ResizeTaps taps_;
  RawBuffer buffer_;
};

struct ResizeOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Resize : public KernelFamily {
 public:
  explicit Resize(Device& device, ResizeOptions options = {});
  ~Resize();
  Resize(Resize&&) noexcept;
  Resize& operator=(Resize&&) noexcept;

  // Records the resize of x (in `x`) into y (in `y`) with the plan's taps; see the contract above.
  void encode(CommandEncoder& encoder, const ResizePlan& plan, const RawBuffer& x, const RawBuffer& y);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
