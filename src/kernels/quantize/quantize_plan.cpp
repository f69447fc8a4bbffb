#include "kernels/quantize/quantize_plan.h"

#include <algorithm>

#include "onegpu/errors.h"

namespace onegpu::kernels::quantize {
namespace {

constexpr uint64_t kLimit = uint64_t(1) << 31;  // offsets plus counts

[[noreturn]] void fail(const char* op, const char* argument, const std::string& detail) {
  throw KernelShapeError(op, argument, detail);
}

std::string shape_text(std::span<const int64_t> s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

void require_type(const char* op, const char* name, DataType t, std::initializer_list<DataType> allowed,
                  const char* expected) {
  for (DataType a : allowed)
    if (a == t) return;
  throw UnsupportedError(std::string(op) + " " + name + " type", expected, std::string(data_type_name(t)));
}

// Dense, and the offset plus the element count below 2^31.
uint64_t check_operand(const char* op, const char* name, const Operand& t) {
  const uint64_t count = element_count(t.shape, op, name);
  if (!TensorRef{nullptr, 0, t.shape, t.strides, t.type}.dense()) fail(op, "strides", std::string(name) + " is not dense");
  if (t.offset >= kLimit || count >= kLimit - t.offset)
    fail(op, name, "offset " + std::to_string(t.offset) + " plus " + std::to_string(count) +
                       " elements is not below 2^31");
  return count;
}

uint32_t u32(uint64_t v) { return static_cast<uint32_t>(v); }

// Per tensor (one element, rank 0 or 1) or per axis (rank 1, x.shape[axis] elements); fills the
// push constants' scale fields.
void plan_scale(const char* op, const Request& r, uint64_t count, Plan& p) {
  p.scale_count = check_operand(op, "scale", r.scale);
  const size_t rank = r.x.shape.size();
  if (r.scale.shape.size() > 1) fail(op, "scale", "rank " + std::to_string(r.scale.shape.size()) + " is not 0 or 1");
  if (p.scale_count == 1) {
    p.push.inner = 1;
    p.push.axis_length = 1;
  } else {
    const int64_t n = int64_t(rank);
    if (r.axis < -n || r.axis >= n)
      fail(op, "axis", "axis " + std::to_string(r.axis) + " is outside [" + std::to_string(-n) + ", " + std::to_string(n) + ")");
    const size_t a = size_t(r.axis < 0 ? r.axis + n : r.axis);
    if (r.scale.shape.size() != 1 || r.scale.shape[0] != r.x.shape[a])
      fail(op, "scale", "shape " + shape_text(r.scale.shape) + " is neither one element nor [" +
                            std::to_string(r.x.shape[a]) + "] (x's axis " + std::to_string(a) + ")");
    uint64_t inner = 1;
    for (size_t i = a + 1; i < rank; ++i) inner *= uint64_t(r.x.shape[i]);  // below count < 2^31
    p.push.codes |= OG_QUANT_PER_AXIS;
    p.push.inner = u32(std::max<uint64_t>(inner, 1));
    p.push.axis_length = u32(p.scale_count);
    (void)count;
  }
  p.push.scale_offset = u32(r.scale.offset);
  if (r.has_zero) {
    const uint64_t zc = check_operand(op, "zero_point", r.zero);
    if (!std::equal(r.zero.shape.begin(), r.zero.shape.end(), r.scale.shape.begin(), r.scale.shape.end()) &&
        !(zc == 1 && p.scale_count == 1))
      fail(op, "zero_point", "shape " + shape_text(r.zero.shape) + " is not the scale's " + shape_text(r.scale.shape));
    p.push.codes |= OG_QUANT_ZERO;
    p.push.zero_offset = u32(r.zero.offset);
  }
}

}  // namespace

const char* operation_name(QuantizeOperation op) {
  switch (op) {
    case QuantizeOperation::quantize_linear: return "QuantizeLinear";
    case QuantizeOperation::dequantize_linear: return "DequantizeLinear";
    case QuantizeOperation::dynamic_quantize_linear: return "DynamicQuantizeLinear";
  }
  return "Quantize";
}

std::string_view main_variant(QuantizeOperation op, DataType x, DataType y) {
  const char* name = operation_name(op);
  switch (op) {
    case QuantizeOperation::quantize_linear:
      require_type(name, "x", x, {DataType::float32, DataType::float16}, "float32 or float16");
      require_type(name, "y", y, {DataType::uint8, DataType::int8}, "uint8 or int8");
      return x == DataType::float16 ? "quantize.f16" : "quantize.f32";
    case QuantizeOperation::dequantize_linear: {
      require_type(name, "x", x, {DataType::uint8, DataType::int8, DataType::int32}, "uint8, int8 or int32");
      require_type(name, "y", y, {DataType::float32, DataType::float16}, "float32 or float16");
      const bool half = y == DataType::float16;
      if (x == DataType::int32) return half ? "dequantize.i32.f16" : "dequantize.i32.f32";
      return half ? "dequantize.b8.f16" : "dequantize.b8.f32";
    }
    case QuantizeOperation::dynamic_quantize_linear:
      require_type(name, "x", x, {DataType::float32}, "float32");
      require_type(name, "y", y, {DataType::uint8}, "uint8");
      return "dynamic.quantize";
  }
  return "quantize.f32";
}

uint64_t grid_for(uint64_t groups, uint64_t cap) {
  return std::clamp<uint64_t>((groups + OG_QUANT_WORKGROUP - 1) / OG_QUANT_WORKGROUP, 1, cap);
}

Plan plan(const Request& r) {
  const char* op = operation_name(r.operation);
  Plan p;
  p.main = main_variant(r.operation, r.x.type, r.y.type);
  const uint64_t count = check_operand(op, "x", r.x);
  check_operand(op, "y", r.y);
  if (!std::equal(r.x.shape.begin(), r.x.shape.end(), r.y.shape.begin(), r.y.shape.end()))
    fail(op, "y", "shape " + shape_text(r.y.shape) + " is not x's " + shape_text(r.x.shape));
  p.count = count;
  p.push.x_offset = u32(r.x.offset);
  p.push.y_offset = u32(r.y.offset);
  p.push.count = u32(count);
  if ((r.x.offset - r.y.offset) % 4 == 0) p.push.codes |= OG_QUANT_ALIGNED;

  if (r.operation == QuantizeOperation::dynamic_quantize_linear) {
    require_type(op, "y_scale", r.y_scale.type, {DataType::float32}, "float32");
    require_type(op, "y_zero_point", r.y_zero.type, {DataType::uint8}, "uint8");
    if (check_operand(op, "y_scale", r.y_scale) != 1 || r.y_scale.shape.size() > 1)
      fail(op, "y_scale", "shape " + shape_text(r.y_scale.shape) + " is not one element (rank 0 or [1])");
    if (check_operand(op, "y_zero_point", r.y_zero) != 1 || r.y_zero.shape.size() > 1)
      fail(op, "y_zero_point", "shape " + shape_text(r.y_zero.shape) + " is not one element (rank 0 or [1])");
    p.scale_count = 1;
    p.push.scale_offset = u32(r.y_scale.offset);
    p.push.zero_offset = u32(r.y_zero.offset);
    // Groups of four of x in its buffer's alignment (the first pass) and of y (the second).
    const uint64_t x_groups = (r.x.offset + count + 3) / 4 - r.x.offset / 4;
    const uint64_t partials = std::clamp<uint64_t>((count + kElementsPerPartial - 1) / kElementsPerPartial, 1, kMaxPartials);
    p.first = "dynamic.minmax";
    p.first_workgroups = std::min(partials, grid_for(x_groups, kMaxPartials));
    p.first_push = p.push;
    p.first_push.workgroups = u32(p.first_workgroups);
    p.first_push.partials = u32(p.first_workgroups);
    // A workgroup step of the second pass covers 1024 groups of y: one workgroup per 16 x 256 elements.
    const uint64_t y_blocks = (r.y.offset + count + 15) / 16 - r.y.offset / 16;
    p.workgroups = grid_for(y_blocks, kMaxDynamicWorkgroups);
    p.push.workgroups = u32(p.workgroups);
    p.push.partials = u32(p.first_workgroups);
    return p;
  }

  require_type(op, "scale", r.scale.type, {DataType::float32}, "float32");
  if (r.has_zero) {
    const DataType quantized = r.operation == QuantizeOperation::quantize_linear ? r.y.type : r.x.type;
    if (r.zero.type != quantized)
      fail(op, "zero_point", "type " + std::string(data_type_name(r.zero.type)) + " is not " +
                                 std::string(data_type_name(quantized)));
  }
  plan_scale(op, r, count, p);
  const DataType quantized = r.operation == QuantizeOperation::quantize_linear ? r.y.type : r.x.type;
  if (quantized == DataType::int8) p.push.codes |= OG_QUANT_SIGNED;
  // A workgroup step covers 1024 groups of y: one workgroup per 16 x 256 elements.
  const uint64_t blocks = (r.y.offset + count + 15) / 16 - r.y.offset / 16;
  p.workgroups = grid_for(blocks, kMaxWorkgroups);
  p.push.workgroups = u32(p.workgroups);
  return p;
}

}  // namespace onegpu::kernels::quantize
