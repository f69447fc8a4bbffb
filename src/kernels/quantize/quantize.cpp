// Quantize: each operation plans its request (quantize_plan.cpp), checks the buffers and records.
#include "onegpu/kernels/quantize.h"

#include <array>
#include <optional>
#include <string>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/quantize/quantize_plan.h"
#include "onegpu/errors.h"
#include "quantize_variants.h"

namespace onegpu::kernels {

static_assert(quantize::kVariants.push_constants_are("quantize.", sizeof(QuantizePush)));
static_assert(quantize::kVariants.push_constants_are("dequantize.", sizeof(QuantizePush)));
static_assert(quantize::kVariants.push_constants_are("dynamic.", sizeof(QuantizePush)));
static_assert(sizeof(QuantizePush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

// Every name the plan can return is declared (at() fails to compile otherwise).
constexpr Variant kVariantList[] = {
    quantize::kVariants.at("quantize.f32"),       quantize::kVariants.at("quantize.f16"),
    quantize::kVariants.at("dequantize.b8.f32"),  quantize::kVariants.at("dequantize.b8.f16"),
    quantize::kVariants.at("dequantize.i32.f32"), quantize::kVariants.at("dequantize.i32.f16"),
    quantize::kVariants.at("dynamic.minmax"),     quantize::kVariants.at("dynamic.quantize"),
};

Variant variant_named(std::string_view name) {
  for (const Variant& v : kVariantList)
    if (v.name() == name) return v;
  return kVariantList[0];
}

struct Checked {
  const TensorRef* tensor;
  const char* name;
  uint64_t count;
  ByteRange range;
};

}  // namespace

struct Quantize::Impl {
  KernelSet& set;
  Buffer<uint32_t> scratch;  // DynamicQuantizeLinear's minimum and maximum pairs
  // DequantizeLinear's vector view of y where the device refuses y's buffer in two writable
  // slots (ComputeCapabilities::aliased_writable_bindings false; the kernel then stores through
  // its word view alone).
  std::optional<Buffer<uint32_t>> y_vectors_stand_in;
  Impl(KernelSet& k, Device& d) : set(k), scratch(d.create_buffer<uint32_t>(quantize::kScratchWords)) {
    if (!d.capabilities().aliased_writable_bindings) y_vectors_stand_in.emplace(d.create_buffer<uint32_t>(4));
  }

  // Present, inside their buffers (whole words), bindable; returns the byte range.
  ByteRange check_buffer(const char* op, const char* name, const TensorRef& t, uint64_t count) {
    if (t.buffer == nullptr) throw KernelShapeError(op, name, "no buffer");
    const uint64_t bytes = data_type_size(t.type);
    check_elements(op, name, *t.buffer, t.offset, count, bytes);
    const ByteRange r = tensor_bytes(op, name, t.buffer->id(), t.offset, count, bytes);
    if (r.end > t.buffer->size_bytes())
      throw KernelShapeError(op, name, "the buffer ends inside the tensor's last word (allocate padded_length)");
    check_bindable(op, *t.buffer, set.caps());
    return r;
  }

  void record(CommandEncoder& encoder, std::string_view name, std::span<const BufferBinding> buffers,
              const QuantizePush& push, uint64_t workgroups) {
    const ComputeKernel& k = set.kernel(variant_named(name));
    const auto group = set.bind(k, declared_bindings(k, buffers).span());
    encoder.begin_compute_pass().dispatch_linear(k, *group, std::as_bytes(std::span(&push, 1)), workgroups);
  }

  void linear(QuantizeOperation operation, CommandEncoder& encoder, const TensorRef& x, const TensorRef& scale,
              const TensorRef* zero, const TensorRef& y, int64_t axis) {
    const char* op = quantize::operation_name(operation);
    quantize::Request r{operation, operand_of(x), operand_of(y), operand_of(scale), {}, zero != nullptr, axis};
    if (zero != nullptr) r.zero = operand_of(*zero);
    const quantize::Plan p = quantize::plan(r);
    const ByteRange xr = check_buffer(op, "x", x, p.count);
    const ByteRange sr = check_buffer(op, "scale", scale, p.scale_count);
    const ByteRange zr = zero != nullptr ? check_buffer(op, "zero_point", *zero, p.scale_count) : ByteRange{};
    const ByteRange yr = check_buffer(op, "y", y, p.count);
    check_disjoint(op, "y", yr, "x", xr);
    check_disjoint(op, "y", yr, "scale", sr);
    check_disjoint(op, "y", yr, "zero_point", zr);
    check_separate_buffers(set.caps(), op, "y", yr, "x", xr);
    check_separate_buffers(set.caps(), op, "y", yr, "scale", sr);
    check_separate_buffers(set.caps(), op, "y", yr, "zero_point", zr);
    if (p.empty()) return;
    const RawBuffer& zb = zero != nullptr ? *zero->buffer : *scale.buffer;
    const RawBuffer& yv = y_vectors_stand_in ? static_cast<const RawBuffer&>(*y_vectors_stand_in) : *y.buffer;
    const BufferBinding buffers[] = {BufferBinding(*x.buffer), BufferBinding(*x.buffer), BufferBinding(*scale.buffer),
                                     BufferBinding(zb),        BufferBinding(*y.buffer), BufferBinding(yv)};
    record(encoder, p.main, buffers, p.push, p.workgroups);
  }

  void dynamic(CommandEncoder& encoder, const TensorRef& x, const TensorRef& y, const TensorRef& y_scale,
               const TensorRef& y_zero) {
    const char* op = "DynamicQuantizeLinear";
    quantize::Request r{QuantizeOperation::dynamic_quantize_linear, operand_of(x), operand_of(y)};
    r.y_scale = operand_of(y_scale);
    r.y_zero = operand_of(y_zero);
    const quantize::Plan p = quantize::plan(r);
    const ByteRange xr = check_buffer(op, "x", x, p.count);
    const ByteRange outs[] = {check_buffer(op, "y", y, p.count), check_buffer(op, "y_scale", y_scale, 1),
                              check_buffer(op, "y_zero_point", y_zero, 1)};
    const char* names[] = {"y", "y_scale", "y_zero_point"};
    for (int i = 0; i < 3; ++i) {
      check_disjoint(op, names[i], outs[i], "x", xr);
      check_separate_buffers(set.caps(), op, names[i], outs[i], "x", xr);
      for (int j = 0; j < i; ++j) {
        check_disjoint(op, names[i], outs[i], names[j], outs[j]);
        check_separate_buffers(set.caps(), op, names[i], outs[i], names[j], outs[j]);
      }
    }
    const BufferBinding first[] = {BufferBinding(*x.buffer), BufferBinding(*x.buffer), BufferBinding(scratch)};
    record(encoder, p.first, first, p.first_push, p.first_workgroups);
    const BufferBinding second[] = {BufferBinding(*x.buffer), BufferBinding(*x.buffer),
                                    BufferBinding(scratch),   BufferBinding(*y.buffer),
                                    BufferBinding(*y_scale.buffer), BufferBinding(*y_zero.buffer)};
    record(encoder, p.main, second, p.push, p.workgroups);
  }
};

Quantize::Quantize(Device& device, QuantizeOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device)) {}
Quantize::~Quantize() = default;
Quantize::Quantize(Quantize&&) noexcept = default;
Quantize& Quantize::operator=(Quantize&&) noexcept = default;

void Quantize::quantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& scale,
                               const TensorRef* zero_point, const TensorRef& y, int64_t axis) {
  impl_->linear(QuantizeOperation::quantize_linear, encoder, x, scale, zero_point, y, axis);
}

void Quantize::dequantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& scale,
                                 const TensorRef* zero_point, const TensorRef& y, int64_t axis) {
  impl_->linear(QuantizeOperation::dequantize_linear, encoder, x, scale, zero_point, y, axis);
}

void Quantize::dynamic_quantize_linear(CommandEncoder& encoder, const TensorRef& x, const TensorRef& y,
                                       const TensorRef& y_scale, const TensorRef& y_zero_point) {
  impl_->dynamic(encoder, x, y, y_scale, y_zero_point);
}

std::string Quantize::variant(QuantizeOperation operation, DataType x, DataType y) {
  const std::string_view main = quantize::main_variant(operation, x, y);
  if (operation == QuantizeOperation::dynamic_quantize_linear) return "dynamic.minmax+" + std::string(main);
  return std::string(main);
}

}  // namespace onegpu::kernels
