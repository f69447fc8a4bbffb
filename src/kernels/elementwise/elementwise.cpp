// Elementwise: checks, broadcasting (broadcast.cpp) and recording.
#include "onegpu/kernels/elementwise.h"

#include "elementwise/elementwise_push.h"
#include "kernels/elementwise/shaders.h"
#include "kernels/common/family.h"
#include "kernels/elementwise/broadcast.h"
#include "onegpu/errors.h"
#include "onegpu/numeric.h"

#include <array>
#include <bit>
#include <cmath>

namespace onegpu::kernels {

static_assert(sizeof(EltPush) == shaders::elementwise_g0_b0_f0::kPushConstantSize);
static_assert(sizeof(EltPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

uint64_t element_bytes(DataType t) { return data_type_size(t); }

// The shaders' type code (3 bits: float32 .. bool, the codes of DataType).
uint32_t type_code(DataType t) {
  if (uint32_t(t) > OG_T_BOOL)
    throw KernelShapeError("Elementwise", "type", std::string(data_type_name(t)) + " is not supported");
  return uint32_t(t);
}

uint64_t per_word(DataType t) { return elements_per_word(t); }

void require_float(const char* op, DataType t) {
  if (t != DataType::float32 && t != DataType::float16)
    throw KernelShapeError(op, "type", std::string(data_type_name(t)) + " is not float32 or float16");
}

struct Operand {
  const TensorView* view;
  DataType type;
  const char* name;
};

}  // namespace

struct Elementwise::Impl {
  KernelSet& set;
  Buffer<uint32_t> dummy;
  Impl(KernelSet& k, Device& d, ElementwiseOptions) : set(k), dummy(d.create_buffer<uint32_t>(4)) {}

  void run(CommandEncoder& encoder, const char* op_name, uint32_t kind, uint32_t op, std::span<const Operand> operands, DataType out_type,
           const RawBuffer& out, uint64_t out_offset, uint32_t act, UnaryParams params,
           std::span<const int64_t> out_shape = {}, std::span<const uint32_t> values = {}) {
    std::array<std::span<const int64_t>, 3> shapes;
    size_t count = 0;
    for (const Operand& o : operands) shapes[count++] = o.view->shape;
    if (operands.empty()) shapes[count++] = out_shape;
    elementwise::Layout layout = elementwise::broadcast(op_name, std::span(shapes.data(), count));
    for (size_t k = 0; k < operands.size(); ++k) {
      const Operand& o = operands[k];
      if (o.view->buffer == nullptr) throw KernelShapeError(op_name, o.name, "no buffer");
      check_elements(op_name, o.name, *o.view->buffer, o.view->offset, layout.operand_elements[k], element_bytes(o.type));
      check_bindable(op_name, *o.view->buffer, set.caps());
      if (o.view->buffer->id() == out.id()) {
        const uint64_t a0 = o.view->offset * element_bytes(o.type), a1 = a0 + layout.operand_elements[k] * element_bytes(o.type);
        const uint64_t b0 = out_offset * element_bytes(out_type), b1 = b0 + layout.count * element_bytes(out_type);
        const bool same = a0 == b0 && a1 == b1;
        if (!same && a0 < b1 && b0 < a1)
          throw KernelShapeError(op_name, "out", "overlaps " + std::string(o.name) + " at another offset or extent");
      }
    }
    check_elements(op_name, "out", out, out_offset, layout.count, element_bytes(out_type));
    check_bindable(op_name, out, set.caps());
    if (layout.count == 0) return;

    const uint64_t per = per_word(out_type);
    const uint32_t bcast = elementwise::path(layout, per, out_offset,
                                              uint64_t(set.caps().max_workgroup_count[1]) * set.caps().max_workgroup_count[2]);
    EltPush push{};
    const DataType in_type = operands.empty() ? out_type : kind == OG_ELT_WHERE ? out_type : operands[0].type;
    push.codes = op | (kind << 8) | (type_code(in_type) << 12) | (type_code(out_type) << 15) | (act << 18) |
                 (layout.rank << 23);
    push.count = uint32_t(layout.count);
    push.out_offset = uint32_t(out_offset);
    // Where's operands are (cond, x, y); the shader reads x as a, y as b and cond as c.
    const size_t map[3] = {kind == OG_ELT_WHERE ? 1u : 0u, kind == OG_ELT_WHERE ? 2u : 1u, kind == OG_ELT_WHERE ? 0u : 2u};
    uint32_t* offsets[3] = {&push.offset_a, &push.offset_b, &push.offset_c};
    uint32_t* strides[3] = {push.stride_a, push.stride_b, push.stride_c};
    const RawBuffer* buffers[3] = {&dummy, &dummy, &dummy};
    for (int slot = 0; slot < 3; ++slot) {
      const size_t k = map[slot];
      if (k >= operands.size() || k >= 3) continue;
      *offsets[slot] = uint32_t(operands[k].view->offset);
      buffers[slot] = operands[k].view->buffer;
      for (uint32_t d = 0; d < layout.rank; ++d) strides[slot][d] = uint32_t(layout.stride[k][d]);
    }
    for (uint32_t d = 0; d < layout.rank; ++d) push.shape[d] = uint32_t(layout.shape[d]);
    push.alpha = params.alpha;
    push.beta = params.beta;
    for (size_t i = 0; i < values.size(); ++i) push.stride_a[i] = values[i];  // fill and range values

    const uint32_t variant_group = kind <= OG_ELT_COMPARE ? 0u
                           : kind == OG_ELT_WHERE ? 1u
                           : kind == OG_ELT_CAST  ? 2u
                           : kind <= OG_ELT_INT_COMPARE ? 3u
                                                        : 4u;
    const uint32_t fixed = elementwise::fixed_types(variant_group, type_code(in_type), type_code(out_type));
    const ShaderSource* source = elementwise::shader(variant_group, bcast, fixed);
    if (source == nullptr) throw std::logic_error("Elementwise: no such variant");
    const uint64_t words_per_workgroup = 256 * OG_ELT_WORDS(variant_group, bcast, fixed);
    const ComputeKernel& k = set.kernel(source->name, *source);
    const BufferBinding bindings[] = {BufferBinding(*buffers[0]), BufferBinding(*buffers[1]),
                                      BufferBinding(*buffers[2]), BufferBinding(out)};
    const auto group = set.bind(k, bindings);
    const auto bytes = std::as_bytes(std::span(&push, 1));
    encoder.begin_compute_pass();
    if (bcast == 1) {
      const uint64_t words_per_row = layout.shape[1] / per, rows = layout.shape[0];
      const uint64_t y = std::min<uint64_t>(rows, set.caps().max_workgroup_count[1]);
      encoder.dispatch(k, *group, bytes,
                       {uint32_t((words_per_row + words_per_workgroup - 1) / words_per_workgroup), uint32_t(y),
                        uint32_t((rows + y - 1) / y)});
    } else {
      const uint64_t words = (out_offset + layout.count - 1) / per - out_offset / per + 1;
      encoder.dispatch_linear(k, *group, bytes, (words + words_per_workgroup - 1) / words_per_workgroup);
    }
  }

};

Elementwise::Elementwise(Device& device, ElementwiseOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, options)) {}
Elementwise::~Elementwise() = default;
Elementwise::Elementwise(Elementwise&&) noexcept = default;
Elementwise& Elementwise::operator=(Elementwise&&) noexcept = default;

std::vector<int64_t> Elementwise::broadcast_shape(std::span<const std::span<const int64_t>> shapes) {
  const elementwise::Layout l = elementwise::broadcast("broadcast", shapes);
  return std::vector<int64_t>(l.out_shape.begin(), l.out_shape.begin() + l.out_rank);
}

void Elementwise::binary(CommandEncoder& encoder, BinaryOp op, DataType type, const TensorView& a, const TensorView& b,
                         const RawBuffer& out, uint64_t out_offset, UnaryOp activation, UnaryParams params) {
  require_float("Elementwise", type);
  const Operand ops[] = {{&a, type, "a"}, {&b, type, "b"}};
  impl_->run(encoder, "Elementwise", OG_ELT_BINARY, static_cast<uint32_t>(op), ops, type, out, out_offset,
             static_cast<uint32_t>(activation), params);
}

void Elementwise::unary(CommandEncoder& encoder, UnaryOp op, DataType type, const TensorView& x, const RawBuffer& out,
                        uint64_t out_offset, UnaryParams params) {
  require_float("Elementwise", type);
  const Operand ops[] = {{&x, type, "x"}};
  impl_->run(encoder, "Elementwise", OG_ELT_UNARY, static_cast<uint32_t>(op), ops, type, out, out_offset, 0, params);
}

void Elementwise::compare(CommandEncoder& encoder, CompareOp op, DataType type, const TensorView& a,
                          const TensorView& b, const RawBuffer& out, uint64_t out_offset) {
  require_float("Compare", type);
  const Operand ops[] = {{&a, type, "a"}, {&b, type, "b"}};
  impl_->run(encoder, "Compare", OG_ELT_COMPARE, static_cast<uint32_t>(op), ops, DataType::boolean, out, out_offset, 0, {});
}

void Elementwise::where(CommandEncoder& encoder, DataType type, const TensorView& cond, const TensorView& x,
                        const TensorView& y, const RawBuffer& out, uint64_t out_offset) {
  if (type == DataType::boolean) throw KernelShapeError("Where", "type", "bool values are not supported");
  const Operand ops[] = {{&cond, DataType::boolean, "cond"}, {&x, type, "x"}, {&y, type, "y"}};
  impl_->run(encoder, "Where", OG_ELT_WHERE, 0, ops, type, out, out_offset, 0, {});
}

void Elementwise::integer_binary(CommandEncoder& encoder, IntegerOp op, DataType type, const TensorView& a,
                                 const TensorView& b, const RawBuffer& out, uint64_t out_offset) {
  const bool logic = op == IntegerOp::logical_and || op == IntegerOp::logical_or || op == IntegerOp::logical_xor;
  if (logic ? type != DataType::boolean : (type != DataType::int32 && type != DataType::int64))
    throw KernelShapeError("Integer", "type", std::string(data_type_name(type)) +
                                                  (logic ? " is not bool" : " is not int32 or int64"));
  const Operand ops[] = {{&a, type, "a"}, {&b, type, "b"}};
  impl_->run(encoder, "Integer", OG_ELT_INT_BINARY, static_cast<uint32_t>(op), ops, type, out, out_offset, 0, {});
}

void Elementwise::integer_unary(CommandEncoder& encoder, IntegerUnaryOp op, DataType type, const TensorView& x,
                                const RawBuffer& out, uint64_t out_offset) {
  const bool logic = op == IntegerUnaryOp::logical_not;
  if (logic ? type != DataType::boolean : (type != DataType::int32 && type != DataType::int64))
    throw KernelShapeError("Integer", "type", std::string(data_type_name(type)) +
                                                  (logic ? " is not bool" : " is not int32 or int64"));
  const Operand ops[] = {{&x, type, "x"}};
  impl_->run(encoder, "Integer", OG_ELT_INT_UNARY, static_cast<uint32_t>(op), ops, type, out, out_offset, 0, {});
}

void Elementwise::integer_compare(CommandEncoder& encoder, CompareOp op, DataType type, const TensorView& a,
                                  const TensorView& b, const RawBuffer& out, uint64_t out_offset) {
  if (type != DataType::int32 && type != DataType::int64 && type != DataType::boolean)
    throw KernelShapeError("Compare", "type", std::string(data_type_name(type)) + " is not int32, int64 or bool");
  const Operand ops[] = {{&a, type, "a"}, {&b, type, "b"}};
  impl_->run(encoder, "Compare", OG_ELT_INT_COMPARE, static_cast<uint32_t>(op), ops, DataType::boolean, out,
             out_offset, 0, {});
}

void Elementwise::fill(CommandEncoder& encoder, DataType type, std::span<const int64_t> shape, const Scalar& value,
                       const RawBuffer& out, uint64_t out_offset) {
  uint64_t bits = 0;
  switch (type) {
    case DataType::float32: bits = std::bit_cast<uint32_t>(float(value.f)); break;
    case DataType::float16: bits = to_float16(float(value.f)).bits; break;
    case DataType::boolean: bits = value.i != 0 ? 1 : 0; break;
    default: bits = uint64_t(value.i); break;
  }
  const uint32_t words[2] = {uint32_t(bits), uint32_t(bits >> 32)};
  impl_->run(encoder, "Fill", OG_ELT_FILL, 0, {}, type, out, out_offset, 0, {}, shape, words);
}

uint64_t Elementwise::range_length(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) throw KernelShapeError("Range", "delta", "must not be 0");
  // max(ceil((limit - start) / delta), 0) in exact integer arithmetic (128-bit difference).
  __extension__ typedef __int128 int128;
  const int128 span = int128(limit) - int128(start);
  const int128 d = delta;
  int128 q = span / d;
  if (span % d != 0 && ((span < 0) == (d < 0))) q += 1;
  return q > 0 ? uint64_t(q) : 0;
}

uint64_t Elementwise::range_length(double start, double limit, double delta) {
  if (delta == 0 || std::isnan(delta)) throw KernelShapeError("Range", "delta", "must be a nonzero number");
  const double n = std::ceil((limit - start) / delta);
  return n > 0 ? uint64_t(n) : 0;
}

void Elementwise::range(CommandEncoder& encoder, DataType type, const Scalar& start, const Scalar& delta, uint64_t count,
                        const RawBuffer& out, uint64_t out_offset) {
  if (type == DataType::boolean || type == DataType::uint32)
    throw KernelShapeError("Range", "type", std::string(data_type_name(type)) + " is not a Range type");
  const int64_t shape[] = {int64_t(count)};
  const bool is_float = type == DataType::float32 || type == DataType::float16;
  const uint32_t words[4] = {uint32_t(uint64_t(start.i)), uint32_t(uint64_t(start.i) >> 32), uint32_t(uint64_t(delta.i)),
                             uint32_t(uint64_t(delta.i) >> 32)};
  impl_->run(encoder, "Range", OG_ELT_RANGE, 0, {}, type, out, out_offset, 0, {float(start.f), float(delta.f)}, shape,
             is_float ? std::span<const uint32_t>() : std::span<const uint32_t>(words));
}

void Elementwise::cast(CommandEncoder& encoder, DataType from, const TensorView& x, DataType to, const RawBuffer& out,
                       uint64_t out_offset) {
  if (from == DataType::uint32 || to == DataType::uint32)
    throw KernelShapeError("Cast", "type", "uint32 is not a Cast type (float32, float16, int32, int64, bool)");
  const Operand ops[] = {{&x, from, "x"}};
  impl_->run(encoder, "Cast", OG_ELT_CAST, 0, ops, to, out, out_offset, 0, {});
}

}  // namespace onegpu::kernels
