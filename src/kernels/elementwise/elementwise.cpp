// Elementwise: each operation builds a request, plans it (elementwise_plan.cpp), checks the
// buffers and records.
#include "onegpu/kernels/elementwise.h"

#include <array>
#include <bit>
#include <cmath>

#include "elementwise_variants.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/elementwise/elementwise_plan.h"
#include "onegpu/errors.h"
#include "onegpu/numeric.h"

namespace onegpu::kernels {

static_assert(elementwise::kVariants.push_constants_are("elementwise.", sizeof(EltPush)));
static_assert(sizeof(EltPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

using elementwise::Fixed;
using elementwise::Group;
using elementwise::Walk;

constexpr size_t config_index(uint32_t group, uint32_t walk, uint32_t fixed) { return (group * 3 + walk) * 3 + fixed; }

// The table's row for each (GROUP, BCAST, FIXED), read from the variants' defines at compile time.
constexpr std::array<int, 45> kRowOfConfig = [] {
  std::array<int, 45> t{};
  t.fill(-1);
  for (size_t i = 0; i < elementwise::kVariants.size(); ++i) {
    const Variant v = elementwise::kVariants[i];
    t[config_index(uint32_t(v.param("GROUP")), uint32_t(v.param("BCAST")), uint32_t(v.param("FIXED")))] = int(i);
  }
  return t;
}();

constexpr bool every_choice_declared() {
  for (uint32_t g = 0; g < 5; ++g)
    for (uint32_t w = 0; w < 3; ++w)
      for (uint32_t f = 0; f < 3; ++f)
        if (elementwise::declared(Group(g), Walk(w), Fixed(f)) && kRowOfConfig[config_index(g, w, f)] < 0) return false;
  return true;
}
static_assert(every_choice_declared(), "a variant plan() can choose is missing from CMakeLists.txt");

Variant variant_of(const elementwise::Plan& p) {
  return elementwise::kVariants[size_t(kRowOfConfig[config_index(uint32_t(p.group), uint32_t(p.walk), uint32_t(p.fixed))])];
}

elementwise::GridLimits limits_of(const ComputeCapabilities& caps) {
  return {{caps.max_workgroup_count[0], caps.max_workgroup_count[1], caps.max_workgroup_count[2]}};
}

elementwise::Request request(const char* operation, ElementwiseOperation kind, uint32_t op,
                             std::initializer_list<std::pair<const TensorRef*, const char*>> inputs, const TensorRef& out) {
  elementwise::Request r;
  r.operation = operation;
  r.kind = kind;
  r.op = op;
  for (const auto& [t, name] : inputs) r.inputs[r.input_count++] = elementwise::operand_of(*t, name);
  r.out = elementwise::operand_of(out, "out");
  return r;
}

}  // namespace

struct Elementwise::Impl {
  KernelSet& set;
  Buffer<uint32_t> dummy;
  Impl(KernelSet& k, Device& d, ElementwiseOptions) : set(k), dummy(d.create_buffer<uint32_t>(4)) {}

  // The buffers: present, large enough for what each tensor reaches, bindable, and an input that
  // overlaps the output (in whole words) is the output itself: dense, same offset, extent and type.
  void check_buffers(const elementwise::Request& r, const elementwise::Plan& p,
                     std::span<const TensorRef* const> inputs, const TensorRef& out) {
    if (out.buffer == nullptr) throw KernelShapeError(r.operation, "out", "no buffer");
    const uint64_t out_bytes = data_type_size(out.type);
    check_elements(r.operation, "out", *out.buffer, out.offset, p.layout.count, out_bytes);
    check_bindable(r.operation, *out.buffer, set.caps());
    const ByteRange written = tensor_bytes(r.operation, "out", out.buffer->id(), out.offset, p.layout.count, out_bytes);
    for (uint32_t k = 0; k < r.input_count; ++k) {
      const TensorRef& t = *inputs[k];
      const char* name = r.inputs[k].name;
      if (t.buffer == nullptr) throw KernelShapeError(r.operation, name, "no buffer");
      const uint64_t bytes = data_type_size(t.type), reach = p.layout.operand_elements[k];
      check_elements(r.operation, name, *t.buffer, t.offset, reach, bytes);
      check_bindable(r.operation, *t.buffer, set.caps());
      const bool is_output = t.buffer->id() == out.buffer->id() && t.offset == out.offset && t.type == out.type &&
                             reach == p.layout.count && t.dense();
      if (!is_output)
        check_disjoint(r.operation, "out", written, name,
                       tensor_bytes(r.operation, name, t.buffer->id(), t.offset, reach, bytes));
    }
  }

  void record(CommandEncoder& encoder, const elementwise::Plan& p, const EltPush& push,
              std::span<const TensorRef* const> inputs, const TensorRef& out) {
    const ComputeKernel& k = set.kernel(variant_of(p));
    const BufferBinding bindings[] = {
        BufferBinding(inputs.size() > 0 ? *inputs[0]->buffer : dummy),
        BufferBinding(inputs.size() > 1 ? *inputs[1]->buffer : dummy),
        BufferBinding(inputs.size() > 2 ? *inputs[2]->buffer : dummy), BufferBinding(*out.buffer)};
    const auto group = set.bind(k, bindings);
    const auto bytes = std::as_bytes(std::span(&push, 1));
    ComputePass pass = encoder.begin_compute_pass();
    if (p.walk == Walk::rows)
      pass.dispatch(k, *group, bytes, {p.groups[0], p.groups[1], p.groups[2]});
    else
      pass.dispatch_linear(k, *group, bytes, p.linear_groups);
  }

  // plan, check the buffers, push constants, record. `inputs` in the request's slot order.
  void run(CommandEncoder& encoder, const elementwise::Request& r, std::span<const TensorRef* const> inputs,
           const TensorRef& out) {
    const elementwise::Plan p = elementwise::plan(r, limits_of(set.caps()));
    check_buffers(r, p, inputs, out);
    if (p.empty()) return;
    record(encoder, p, elementwise::push_constants(p, r), inputs, out);
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

std::string_view Elementwise::variant(ElementwiseOperation operation, std::span<const TensorRef> inputs,
                                      const TensorRef& out) const {
  elementwise::Request r;
  r.operation = "Elementwise::variant";
  r.kind = operation;
  if (inputs.size() > 3) throw KernelShapeError(r.operation, "inputs", "more than 3");
  // Where takes (cond, x, y); the shader's slots are (x, y, cond).
  const bool where = operation == ElementwiseOperation::where;
  if (where && inputs.size() != 3) throw KernelShapeError(r.operation, "inputs", "Where takes cond, x and y");
  static constexpr const char* kWhere[] = {"x", "y", "cond"};
  static constexpr const char* kOperands[] = {"a", "b"};
  for (size_t k = 0; k < inputs.size(); ++k)
    r.inputs[r.input_count++] = elementwise::operand_of(inputs[where ? (k + 1) % 3 : k],
                                                        where ? kWhere[k] : inputs.size() == 1 ? "x" : kOperands[k % 2]);
  r.out = elementwise::operand_of(out, "out");
  // The variant does not depend on the operation's code, but its type check does: bool takes logic.
  if (!inputs.empty() && inputs[0].type == DataType::boolean) {
    if (operation == ElementwiseOperation::integer_binary) r.op = uint32_t(IntegerOp::logical_and);
    if (operation == ElementwiseOperation::integer_unary) r.op = uint32_t(IntegerUnaryOp::logical_not);
  }
  return variant_of(elementwise::plan(r, limits_of(kernels().caps()))).name();
}

void Elementwise::binary(CommandEncoder& encoder, BinaryOp op, const TensorRef& a, const TensorRef& b,
                         const TensorRef& out, UnaryFunction activation) {
  elementwise::Request r = request("Elementwise", ElementwiseOperation::binary, uint32_t(op), {{&a, "a"}, {&b, "b"}}, out);
  r.activation = activation;
  const TensorRef* inputs[] = {&a, &b};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::unary(CommandEncoder& encoder, UnaryFunction f, const TensorRef& x, const TensorRef& out) {
  elementwise::Request r = request("Elementwise", ElementwiseOperation::unary, uint32_t(f.op), {{&x, "x"}}, out);
  r.alpha = f.params.alpha;
  r.beta = f.params.beta;
  const TensorRef* inputs[] = {&x};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::compare(CommandEncoder& encoder, CompareOp op, const TensorRef& a, const TensorRef& b,
                          const TensorRef& out) {
  const auto r = request("Compare", ElementwiseOperation::compare, uint32_t(op), {{&a, "a"}, {&b, "b"}}, out);
  const TensorRef* inputs[] = {&a, &b};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::where(CommandEncoder& encoder, const TensorRef& cond, const TensorRef& x, const TensorRef& y,
                        const TensorRef& out) {
  // The shader reads x as a, y as b and cond as c.
  const auto r = request("Where", ElementwiseOperation::where, 0, {{&x, "x"}, {&y, "y"}, {&cond, "cond"}}, out);
  const TensorRef* inputs[] = {&x, &y, &cond};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::cast(CommandEncoder& encoder, const TensorRef& x, const TensorRef& out) {
  const auto r = request("Cast", ElementwiseOperation::cast, 0, {{&x, "x"}}, out);
  const TensorRef* inputs[] = {&x};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::integer_binary(CommandEncoder& encoder, IntegerOp op, const TensorRef& a, const TensorRef& b,
                                 const TensorRef& out) {
  const auto r = request("Integer", ElementwiseOperation::integer_binary, uint32_t(op), {{&a, "a"}, {&b, "b"}}, out);
  const TensorRef* inputs[] = {&a, &b};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::integer_unary(CommandEncoder& encoder, IntegerUnaryOp op, const TensorRef& x, const TensorRef& out) {
  const auto r = request("Integer", ElementwiseOperation::integer_unary, uint32_t(op), {{&x, "x"}}, out);
  const TensorRef* inputs[] = {&x};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::integer_compare(CommandEncoder& encoder, CompareOp op, const TensorRef& a, const TensorRef& b,
                                  const TensorRef& out) {
  const auto r = request("Compare", ElementwiseOperation::integer_compare, uint32_t(op), {{&a, "a"}, {&b, "b"}}, out);
  const TensorRef* inputs[] = {&a, &b};
  impl_->run(encoder, r, inputs, out);
}

void Elementwise::fill(CommandEncoder& encoder, const Scalar& value, const TensorRef& out) {
  elementwise::Request r = request("Fill", ElementwiseOperation::fill, 0, {}, out);
  uint64_t bits = 0;
  switch (out.type) {
    case DataType::float32: bits = std::bit_cast<uint32_t>(float(value.f)); break;
    case DataType::float16: bits = to_float16(float(value.f)).bits; break;
    case DataType::boolean: bits = value.i != 0 ? 1 : 0; break;
    default: bits = uint64_t(value.i); break;
  }
  r.values = {uint32_t(bits), uint32_t(bits >> 32), 0, 0};
  impl_->run(encoder, r, {}, out);
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
  if (!std::isfinite(start)) throw KernelShapeError("Range", "start", "must be finite");
  if (!std::isfinite(limit)) throw KernelShapeError("Range", "limit", "must be finite");
  if (delta == 0 || !std::isfinite(delta)) throw KernelShapeError("Range", "delta", "must be a finite nonzero number");
  const double n = std::ceil((limit - start) / delta);
  // 2^63 and up (an infinite quotient too) is no element count.
  if (!(n < 9223372036854775808.0)) throw KernelShapeError("Range", "limit", "the length does not fit 63 bits");
  return n > 0 ? uint64_t(n) : 0;
}

void Elementwise::range(CommandEncoder& encoder, const Scalar& start, const Scalar& delta, const TensorRef& out) {
  elementwise::Request r = request("Range", ElementwiseOperation::range, 0, {}, out);
  r.alpha = float(start.f);
  r.beta = float(delta.f);
  if (out.type == DataType::int32 || out.type == DataType::int64)
    r.values = {uint32_t(uint64_t(start.i)), uint32_t(uint64_t(start.i) >> 32), uint32_t(uint64_t(delta.i)),
                uint32_t(uint64_t(delta.i) >> 32)};
  impl_->run(encoder, r, {}, out);
}

}  // namespace onegpu::kernels
