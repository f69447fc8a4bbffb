// onegpu/kernels/reduce.h - reductions, softmax and normalisation.
//
// Tensors are dense and row-major: a buffer, an element offset and a shape (rank 1 to 8).
// float32 tensors live in Buffer<float>, half tensors in Buffer<onegpu::float16> (two to a 32-bit
// word; no 16-bit storage feature needed). Arithmetic is float32 in both cases; half results are
// rounded to nearest even once.
//
// Modes (see docs/reduce.md): fast combines the 256 partial results of a workgroup with subgroup
// arithmetic where the device has it (basic, vote and arithmetic, subgroups of at least 4);
// deterministic uses a fixed halving tree, no subgroup operation and no atomics, so two runs give
// identical bits, and equal to fast mode without subgroups. Which path runs depends on the shape
// only. Accuracy against float64: 1e-5 (float32), 2e-3 (half) scaled error; Max, Min, ArgMax and
// ArgMin exact; Prod within max(1e-5, 1e-6 sqrt(n)).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"

namespace onegpu::kernels {

enum class TensorType { float32, float16 };

enum class ReduceOp { sum, mean, max, min, prod, l1, l2, sum_square, log_sum, arg_max, arg_min };
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

  // Reduces `shape` over `axes` (negative axes count from the end; empty: every axis). The output
  // holds output_shape(...) elements of the input's type, or int64 indices (Buffer<int64_t>) for
  // arg_max / arg_min: the first occurrence, NaN counting as the extreme. After merging
  // neighbouring dimensions at most 4 runs of kept and 4 of reduced dimensions may remain.
  // `scratch`, when given, is used by the two-pass paths instead of the family's own buffer and
  // must hold scratch_length(...) floats.
  void encode(CommandEncoder& encoder, ReduceOp op, TensorType type, const RawBuffer& input, uint64_t input_offset,
              std::span<const int64_t> shape, std::span<const int64_t> axes, bool keep_dims,
              const RawBuffer& output, uint64_t output_offset, const RawBuffer* scratch = nullptr);

  static std::vector<int64_t> output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes,
                                           bool keep_dims);
  // Floats of scratch the reduction needs (0 when it runs in one pass).
  static uint64_t scratch_length(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes);
  // "thread-per-output", "workgroup-subgroups", "workgroup-tree", "two-pass-tree", ...
  std::string variant(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes) const;


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
  void encode(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
              std::span<const int64_t> shape, int64_t axis, const RawBuffer& output, uint64_t output_offset,
              bool log = false);
  std::string variant(std::span<const int64_t> shape, int64_t axis) const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct NormParams {
  const Buffer<float>* scale = nullptr;  // optional, one value per element of the last axis
  uint64_t scale_offset = 0;
  const Buffer<float>* bias = nullptr;   // optional
  uint64_t bias_offset = 0;
  float epsilon = 1e-5f;
};

class Norm : public KernelFamily {
 public:
  explicit Norm(Device& device, RowKernelOptions options = {});
  ~Norm();
  Norm(Norm&&) noexcept;
  Norm& operator=(Norm&&) noexcept;

  // Layer normalisation over the last axis: (x - mean) / sqrt(var + epsilon) * scale + bias.
  void encode_layer_norm(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
                         std::span<const int64_t> shape, const RawBuffer& output, uint64_t output_offset,
                         const NormParams& params = {});
  // RMS normalisation over the last axis: x / sqrt(mean(x^2) + epsilon) * scale + bias.
  void encode_rms_norm(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
                       std::span<const int64_t> shape, const RawBuffer& output, uint64_t output_offset,
                       const NormParams& params = {});
  std::string variant() const;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
