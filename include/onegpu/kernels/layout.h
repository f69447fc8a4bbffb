// onegpu/kernels/layout.h - data movement: transpose, slice, concat and expand.
//
// Every tensor is a TensorRef (onegpu/tensor.h). Inputs may be strided (non-negative strides in
// elements; 0 repeats a dimension); outputs are dense row-major and their shape must be the
// result's shape. The output's type must be the input's (KernelShapeError naming the argument).
// Any element type is moved bit for bit: 8-bit (int8, uint8, bool), 16-bit (float16, bfloat16,
// int16, uint16), 32-bit (float32, int32, uint32) and 64-bit (int64, uint64, float64). 8- and 16-bit
// elements are packed four and two to a 32-bit word; an invocation owns whole output words, so an
// output that starts or ends inside a word keeps the neighbouring elements, without atomics (give
// such buffers padded_length() elements). Tensors have rank 0 to 8 and fewer than 2^31 elements.
// Neighbouring dimensions that stay neighbours in the same order are merged and size-1 dimensions
// dropped; at most 6 dimensions may remain (KernelShapeError otherwise). Both kernel modes give the
// same bits: the family only moves data.
//
// Every call checks types, shapes, strides, counts (64-bit arithmetic), buffer ranges and overlaps
// before it records anything; a bad argument throws KernelShapeError naming the operation
// ("Transpose", "Slice", "Concat", "Expand") and the argument ("x", "inputs", "perm", "starts",
// "ends", "axes", "steps", "axis", "shape", "strides", and "output" for everything about `out`).
// An output may share a buffer with an input only where the operation says so, and then their
// element ranges (for 8- and 16-bit types: their 32-bit words) must be disjoint. Every tensor must
// end within the first 4 GiB of its buffer (the kernels' indices are 32-bit).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct LayoutOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Layout : public KernelFamily {
 public:
  explicit Layout(Device& device, LayoutOptions options = {});
  ~Layout();
  Layout(Layout&&) noexcept;
  Layout& operator=(Layout&&) noexcept;

  // out[i_perm[0], ..., i_perm[r-1]] = x[i_0, ..., i_{r-1}]: out's dimension j is x's dimension
  // perm[j] (ONNX Transpose; an empty perm reverses the dimensions). out may be in x's buffer
  // when their ranges are disjoint. A permutation that moves x's contiguous dimension away from
  // the end (2-D and batched 2-D transposes, NCHW <-> NHWC among them) runs through workgroup
  // memory ("layout.tiled.*"); a permutation that keeps the last dimension
  // (the attention head split [b, s, h, d] -> [b, h, s, d] and its merge) copies whole rows as
  // 16-byte vectors when they are aligned ("layout.rows.*"); anything else is the general copy.
  void transpose(CommandEncoder& encoder, const TensorRef& x, std::span<const int64_t> perm, const TensorRef& out);

  // ONNX Slice. `axes` may be empty (0, 1, ... in order) or negative (counted from the end);
  // `steps` may be empty (all 1) and of either sign, never 0. Starts and ends are clamped as ONNX
  // says: a negative value counts from the end, then [0, dim] for positive steps and [-1, dim - 1]
  // for negative ones. out must not be in x's buffer (argument "output").
  void slice(CommandEncoder& encoder, const TensorRef& x, std::span<const int64_t> starts,
             std::span<const int64_t> ends, std::span<const int64_t> axes, std::span<const int64_t> steps,
             const TensorRef& out);
  static std::vector<int64_t> slice_shape(std::span<const int64_t> x_shape, std::span<const int64_t> starts,
                                          std::span<const int64_t> ends, std::span<const int64_t> axes = {},
                                          std::span<const int64_t> steps = {});

  // ONNX Concat along `axis` (negative counts from the end). Up to four inputs are copied per
  // pass, more in further passes. An input may live in out's buffer when their ranges are
  // disjoint (otherwise argument "output").
  void concat(CommandEncoder& encoder, std::span<const TensorRef> inputs, int64_t axis, const TensorRef& out);
  static std::vector<int64_t> concat_shape(std::span<const std::span<const int64_t>> shapes, int64_t axis);

  // ONNX Expand: x broadcast (numpy rules) to out's shape, which must be
  // expand_shape(x.shape, requested shape). out may be in x's buffer when their ranges are
  // disjoint; overlapping ones throw KernelShapeError("Expand", "output").
  void expand(CommandEncoder& encoder, const TensorRef& x, const TensorRef& out);
  static std::vector<int64_t> expand_shape(std::span<const int64_t> x_shape, std::span<const int64_t> shape);

  // The shape of out for a transpose of x_shape by perm (KernelShapeError for a bad perm).
  static std::vector<int64_t> transpose_shape(std::span<const int64_t> x_shape, std::span<const int64_t> perm);

  // The variant (a row of the family's table: "layout.tiled.b32", "layout.rows.b16",
  // "layout.copy.b8", ...) the operation records for these arguments, after the same checks
  // (without the buffers). Concat names the variant of its first pass.
  std::string_view transpose_variant(const TensorRef& x, std::span<const int64_t> perm, const TensorRef& out) const;
  std::string_view slice_variant(const TensorRef& x, std::span<const int64_t> starts, std::span<const int64_t> ends,
                                 std::span<const int64_t> axes, std::span<const int64_t> steps,
                                 const TensorRef& out) const;
  std::string_view concat_variant(std::span<const TensorRef> inputs, int64_t axis, const TensorRef& out) const;
  std::string_view expand_variant(const TensorRef& x, const TensorRef& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
