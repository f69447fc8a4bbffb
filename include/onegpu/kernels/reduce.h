// onegpu/kernels/reduce.h - reductions, softmax and normalisation.
//
// Every tensor is a TensorRef (onegpu/tensor.h) of rank 1 to 8: Reduce's input may be strided
// (non-negative strides in elements); every other tensor is dense and row-major (other strides
// throw KernelShapeError with argument "strides"). Types are float32 or float16 (two to a 32-bit
// word; no 16-bit storage feature needed; int64 for the indices of arg_max / arg_min). Types come
// from the references and are checked (a mismatch throws KernelShapeError naming the argument);
// an output's shape must be the result's shape. Element counts are checked 64-bit products and
// must stay below 2^31. Arithmetic is float32 for both types; half results are rounded to nearest
// even once.
//
// Modes (see docs/reduce.md): fast combines the 256 partial results of a workgroup with subgroup
// arithmetic where the device has it (basic, vote and arithmetic, subgroups of at least 4);
// deterministic uses a fixed halving tree, no subgroup operation and no atomics, so two runs give
// identical bits, and equal to fast mode without subgroups. Which path runs depends on the shape
// only. Accuracy against float64: 1e-5 (float32), 2e-3 (half) scaled error; Max, Min, ArgMax and
// ArgMin exact; Prod within max(1e-5, 1e-6 sqrt(n)).
//
// Aliasing: tensors may share a buffer; an output whose range (whole 32-bit words) overlaps an
// input's throws KernelShapeError (argument "output") before recording, except the in-place forms
// below (Softmax and the norms: the output is the input, same offset). Reduce's scratch may
// overlap neither (argument "scratch"); a norm's scale and bias may not overlap the output.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

// Codes are shared with the shader (shaders/reduce/reduce_push.h, checked at compile time).
enum class ReduceOp : uint32_t {
  sum = 0,
  mean = 1,
  max = 2,
  min = 3,
  prod = 4,
  l1 = 5,
  l2 = 6,
  sum_square = 7,
  log_sum = 8,
  arg_max = 9,
  arg_min = 10
};
const char* reduce_op_name(ReduceOp op);

struct RowKernelOptions {
  KernelMode mode = KernelMode::fast;
  // false keeps the shared-memory tree even in fast mode.
  bool allow_subgroups = true;
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

class Reduce : public KernelFamily {
 public:
  explicit Reduce(Device& device, RowKernelOptions options = {});
  ~Reduce();
  Reduce(Reduce&&) noexcept;
  Reduce& operator=(Reduce&&) noexcept;

  // Reduces `input` (strided or dense) over `axes` (negative axes count from the end; empty: every
  // axis). `output`'s
  // shape is output_shape(input.shape, axes, keep_dims); its type is the input's, or int64 for
  // arg_max / arg_min (the first occurrence, NaN counting as the extreme). After merging
  // neighbouring dimensions at most 4 runs of kept and 4 of reduced dimensions may remain.
  // `scratch`, when given, is used by the two-pass paths instead of the family's own buffer and
  // must hold scratch_length(...) floats from its start, overlapping neither input nor output.
  void encode(CommandEncoder& encoder, ReduceOp op, const TensorRef& input, std::span<const int64_t> axes,
              bool keep_dims, const TensorRef& output, const RawBuffer* scratch = nullptr);

  static std::vector<int64_t> output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes,
                                           bool keep_dims);
  // Floats of scratch the reduction needs (0 when it runs in one pass).
  // `strides`: the input's (empty: dense); the path can depend on them.
  static uint64_t scratch_length(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes,
                                 std::span<const int64_t> strides = {});
  // The variant encode records, a row of the family's variant table ("reduce.thread",
  // "reduce.workgroup.subgroups", ...); for the two-pass paths both passes joined by '+'
  // ("reduce.two_pass.first+reduce.two_pass.second").
  std::string variant(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes,
                      std::span<const int64_t> strides = {}) const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Softmax : public KernelFamily {
 public:
  explicit Softmax(Device& device, RowKernelOptions options = {});
  ~Softmax();
  Softmax(Softmax&&) noexcept;
  Softmax& operator=(Softmax&&) noexcept;

  // Softmax (or LogSoftmax with `log`) along `axis` (negative counts from the end). The output has
  // the input's shape and type and may be the input itself (same offset). Half tensors need the
  // axis last, an even row length and even offsets.
  void encode(CommandEncoder& encoder, const TensorRef& input, int64_t axis, const TensorRef& output,
              bool log = false);
  // The variant encode records for a float32 (`type`) input of `shape`: "softmax.thread",
  // "softmax.tree.lanes4", "softmax.subgroup", ... (a row of the family's variant table).
  std::string variant(std::span<const int64_t> shape, int64_t axis, DataType type = DataType::float32) const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct NormParams {
  // Optional (no buffer: none): float32, shape {last axis}, dense.
  TensorRef scale{};
  TensorRef bias{};
  float epsilon = 1e-5f;
};

class Norm : public KernelFamily {
 public:
  explicit Norm(Device& device, RowKernelOptions options = {});
  ~Norm();
  Norm(Norm&&) noexcept;
  Norm& operator=(Norm&&) noexcept;

  // Layer normalisation over the last axis: (x - mean) / sqrt(var + epsilon) * scale + bias.
  // The output has the input's shape and type and may be the input itself (same offset).
  void encode_layer_norm(CommandEncoder& encoder, const TensorRef& input, const TensorRef& output,
                         const NormParams& params = {});
  // RMS normalisation over the last axis: x / sqrt(mean(x^2) + epsilon) * scale + bias.
  void encode_rms_norm(CommandEncoder& encoder, const TensorRef& input, const TensorRef& output,
                       const NormParams& params = {});
  // "norm.workgroup" or "norm.workgroup.subgroups" (a row of the family's variant table).
  std::string variant() const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
