// Quantize decisions that need no GPU: the checks on types, shapes, axis and counts, the variant
// (shaders/quantize/*.comp), the grids and the push constants. The family adds the buffers' checks
// and records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/common/operand.h"
#include "onegpu/kernels/quantize.h"
#include "onegpu/tensor.h"
#include "quantize/quantize_push.h"

namespace onegpu::kernels::quantize {

using kernels::Operand;
using kernels::operand_of;

// Grid-stride kernels: at most this many workgroups of 256 (a choice from the shape alone).
inline constexpr uint64_t kMaxWorkgroups = 4096;
// DynamicQuantizeLinear: minimum and maximum pairs (first-pass workgroups), at least this many
// elements each, and the second pass's workgroups (each combines every pair).
inline constexpr uint64_t kMaxPartials = 512;
inline constexpr uint64_t kElementsPerPartial = 4096;
inline constexpr uint64_t kMaxDynamicWorkgroups = 1024;
// The family's scratch: two 32-bit keys per pair.
inline constexpr uint64_t kScratchWords = 2 * kMaxPartials;

struct Request {
  QuantizeOperation operation = QuantizeOperation::quantize_linear;
  Operand x, y;
  Operand scale, zero;  // QuantizeLinear, DequantizeLinear (zero only when has_zero)
  bool has_zero = false;
  int64_t axis = 1;
  Operand y_scale, y_zero;  // DynamicQuantizeLinear
};

struct Plan {
  std::string_view first;  // DynamicQuantizeLinear's minimum and maximum pass, else empty
  std::string_view main;   // the variant that writes y
  QuantizePush first_push{}, push{};
  uint64_t first_workgroups = 0, workgroups = 0;
  // Elements each tensor reaches from its offset.
  uint64_t count = 0, scale_count = 0;
  bool empty() const { return count == 0; }
};

// "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear".
const char* operation_name(QuantizeOperation op);

// The variant names for the types; UnsupportedError for a type the operation does not take.
std::string_view main_variant(QuantizeOperation op, DataType x, DataType y);

// Workgroups of 256 invocations for `groups` units of work (16 elements for the quantizing
// kernels, whose steps take four groups per invocation; groups of four for the minimum and maximum
// pass), at most `cap`, at least 1.
uint64_t grid_for(uint64_t groups, uint64_t cap);

// Checks the request and plans it; KernelShapeError(operation, argument) or UnsupportedError on the
// first problem.
Plan plan(const Request& request);

}  // namespace onegpu::kernels::quantize
