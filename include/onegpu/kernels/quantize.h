// onegpu/kernels/quantize.h - ONNX QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.
//
// Tensors are dense TensorRefs (onegpu/tensor.h) of any rank; x and y have the same shape. A scale
// is float32; a zero point has the 8-bit (or int32) type of the quantized side. Scale and zero
// point are either one element (rank 0 or shape [1]: per tensor) or a vector of x.shape[axis]
// elements (per axis; `axis` in [-rank, rank), negative counting from the end, default 1 as in
// ONNX; only checked for per-axis scales). A zero point tensor is optional (nullptr: 0) and has the
// scale's shape.
//
// quantize_linear: x float32 or float16 (widened exactly), y uint8 or int8:
//   y = saturate(round_half_even(x / scale) + zero_point), the quotient being the correctly
//   rounded float32 division (computed in integer arithmetic where the device's own float
//   arithmetic could differ), the zero point added to the integer, the result clamped to the
//   type's range. NaN (in x or from 0/0 or inf/inf) gives the lowest value (0 or -128); +-infinity
//   saturate; subnormal inputs and scales are exact. Bit for bit equal to the CPU formula.
// dequantize_linear: x uint8, int8 or int32, y float32 or float16:
//   y = float(x - zero_point) * scale, the subtraction wrapping in 32 bits, the conversion to
//   float32 and the product each rounded to nearest even (subnormal products included); a float16
//   output rounds that float32 value to nearest even once. Bit for bit equal to the CPU formula.
// dynamic_quantize_linear: x float32, y uint8, y_scale float32 (one element), y_zero_point uint8
//   (one element, written as a byte: its word's other bytes keep their bits). As ONNX runtimes:
//   min = min(0, min(x)), max = max(0, max(x)) (NaN elements are left out); y_scale = max == min ?
//   1 : (max - min) / 255; y_zero_point = round_half_even(clamp(0 - min / y_scale, 0, 255)) (an
//   infinite range gives NaN there, which clamps to 255); y = quantize_linear(x, y_scale,
//   y_zero_point). Scale and zero point equal the CPU's float32 computation bit for bit. Two
//   passes: a minimum and maximum per workgroup into the family's own scratch (4 KiB, made with the
//   family), then every workgroup combines them, the first writes y_scale and y_zero_point, and
//   each quantizes its share of x. Minimum and maximum do not depend on the order of combination,
//   so both kernel modes record the same kernels and give the same bits (as for the other two).
//
// Layout: 8-bit tensors are packed four to a 32-bit word, float16 two. An invocation owns whole
// output words, so an output that starts or ends inside a word leaves the other elements of that
// word as they were, without atomics. Buffers of sub-word elements must end on a word boundary
// (allocate padded_length(...) elements). Inputs and outputs run fastest when x's and y's element
// offsets differ by a multiple of 4 (whole words of y then read x as vectors).
//
// Every call checks before it records and throws, naming the operation ("QuantizeLinear",
// "DequantizeLinear", "DynamicQuantizeLinear"):
//   UnsupportedError for element types outside the lists above (capability "<operation> <argument>
//   type");
//   KernelShapeError(operation, argument) for a missing buffer, a strided tensor ("strides"), y's
//   shape ("y"), the axis ("axis"), scale and zero point shapes ("scale", "zero_point"), element
//   counts and offsets (each tensor's offset plus count below 2^31), buffer ranges, and overlaps
//   (no output may share a 32-bit word with an input or another output). Arithmetic on shapes is
//   64-bit and overflow-checked. An empty x records nothing (dynamic: y_scale 1 and zero point 0 are
//   still written). Kernels bind up to six storage buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

struct QuantizeOptions {
  KernelMode mode = KernelMode::fast;  // both give the same bits
  uint32_t max_cached_bind_groups = kDefaultMaxCachedBindGroups;
};

enum class QuantizeOperation { quantize_linear, dequantize_linear, dynamic_quantize_linear };

class Quantize : public KernelFamily {
 public:
  explicit Quantize(Device& device, QuantizeOptions options = {});
  ~Quantize();
  Quantize(Quantize&&) noexcept;
  Quantize& operator=(Quantize&&) noexcept;

  void quantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& scale,
                       const TensorRef* zero_point, const TensorRef& y, int64_t axis = 1);
  void dequantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& scale,
                         const TensorRef* zero_point, const TensorRef& y, int64_t axis = 1);
  void dynamic_quantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& y,
                               const TensorRef& y_scale, const TensorRef& y_zero_point);

  // The variant (a row of the family's variant table: "quantize.f32", "dequantize.b8.f16",
  // "dynamic.minmax+dynamic.quantize", ...) the operation records for these types; checks the types.
  static std::string variant(QuantizeOperation operation, DataType x, DataType y);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onegpu::kernels
