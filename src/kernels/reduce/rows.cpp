// Softmax and Norm: checks, path choice (reduce_plan.cpp) and recording.
#include <algorithm>
#include <bit>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/reduce/reduce_plan.h"
#include "reduce_variants.h"
#include "onegpu/errors.h"
#include "reduce/rows_push.h"

namespace onegpu::kernels {

static_assert(reduce::kVariants.push_constants_are("softmax.", sizeof(RowsPush)));
static_assert(reduce::kVariants.push_constants_are("norm.", sizeof(RowsPush)));

namespace {

// The buffers: present, large enough, bindable; an output that overlaps the input (in whole words)
// is the input itself: same offset and extent (the types are one).
void check_buffers(const char* op, const TensorRef& input, const TensorRef& output, uint64_t elements,
                   const ComputeCapabilities& caps) {
  if (input.buffer == nullptr) throw KernelShapeError(op, "input", "no buffer");
  if (output.buffer == nullptr) throw KernelShapeError(op, "output", "no buffer");
  const uint64_t es = data_type_size(input.type);
  check_elements(op, "input", *input.buffer, input.offset, elements, es);
  check_elements(op, "output", *output.buffer, output.offset, elements, es);
  if (input.buffer->id() != output.buffer->id() || input.offset != output.offset)
    check_disjoint(op, "output", tensor_bytes(op, "output", output.buffer->id(), output.offset, elements, es), "input",
                   tensor_bytes(op, "input", input.buffer->id(), input.offset, elements, es));
  check_bindable(op, *input.buffer, caps);
  check_bindable(op, *output.buffer, caps);
}

// Scale and bias (float32, `len` elements) are read by every row: the output may not overlap them.
void check_param(const char* op, const char* name, const TensorRef& param, uint64_t len, const TensorRef& output,
                 uint64_t elements) {
  if (param.buffer == nullptr) return;
  check_elements(op, name, *param.buffer, param.offset, len, 4);
  check_disjoint(op, "output",
                 tensor_bytes(op, "output", output.buffer->id(), output.offset, elements, data_type_size(output.type)),
                 name, tensor_bytes(op, name, param.buffer->id(), param.offset, len, 4));
}

}  // namespace

// ---- Softmax ----

struct Softmax::Impl {
  KernelSet& set;
  bool subgroups;
  Impl(KernelSet& k, Device& d, RowKernelOptions o)
      : set(k),
        subgroups(o.mode == KernelMode::fast && o.allow_subgroups && subgroup_reductions(d.capabilities())) {}
};

Softmax::Softmax(Device& device, RowKernelOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, options)) {}
Softmax::~Softmax() = default;
Softmax::Softmax(Softmax&&) noexcept = default;
Softmax& Softmax::operator=(Softmax&&) noexcept = default;

std::string Softmax::variant(std::span<const int64_t> shape, int64_t axis, DataType type) const {
  return std::string(reduce::plan_softmax({shape, {}, type, 0}, axis, nullptr, false, impl_->subgroups,
                                          impl_->set.caps().max_subgroup_size)
                         .variant);
}

void Softmax::encode(CommandEncoder& encoder, const TensorRef& input, int64_t axis, const TensorRef& output, bool log) {
  Impl& im = *impl_;
  const reduce::Tensor out = reduce::tensor_of(output);
  const reduce::RowsPlan p = reduce::plan_softmax(reduce::tensor_of(input), axis, &out, log, im.subgroups,
                                                  im.set.caps().max_subgroup_size);
  check_buffers("Softmax", input, output, p.elements, im.set.caps());
  if (p.elements == 0) return;
  const ComputeKernel& k = im.set.kernel(reduce::kVariants.at(p.variant));
  const BufferBinding bindings[] = {BufferBinding(*input.buffer), BufferBinding(*output.buffer)};
  encoder.begin_compute_pass().dispatch_linear(k, *im.set.bind(k, bindings), std::as_bytes(std::span(&p.push, 1)), p.groups);
}

// ---- Norm ----

struct Norm::Impl {
  KernelSet& set;
  bool subgroups;
  Buffer<float> dummy;
  Impl(KernelSet& k, Device& d, RowKernelOptions o)
      : set(k),
        subgroups(o.mode == KernelMode::fast && o.allow_subgroups && subgroup_reductions(d.capabilities())),
        dummy(d.create_buffer<float>(4)) {}

  void encode(CommandEncoder& encoder, bool rms, const TensorRef& input, const TensorRef& output,
              const NormParams& params) {
    const char* op = rms ? "RmsNorm" : "LayerNorm";
    const reduce::Tensor out = reduce::tensor_of(output), scale = reduce::tensor_of(params.scale),
                         bias = reduce::tensor_of(params.bias);
    const reduce::RowsPlan p =
        reduce::plan_norm(rms, reduce::tensor_of(input), out, params.scale.buffer ? &scale : nullptr,
                          params.bias.buffer ? &bias : nullptr, params.epsilon, subgroups);
    check_buffers(op, input, output, p.elements, set.caps());
    const uint64_t len = uint64_t(input.shape.back());
    check_param(op, "scale", params.scale, len, output, p.elements);
    check_param(op, "bias", params.bias, len, output, p.elements);
    if (p.elements == 0) return;
    const ComputeKernel& k = set.kernel(reduce::kVariants.at(p.variant));
    const BufferBinding bindings[] = {BufferBinding(*input.buffer), BufferBinding(*output.buffer),
                                      BufferBinding(params.scale.buffer ? *params.scale.buffer : dummy),
                                      BufferBinding(params.bias.buffer ? *params.bias.buffer : dummy)};
    encoder.begin_compute_pass().dispatch_linear(k, *set.bind(k, bindings), std::as_bytes(std::span(&p.push, 1)), p.groups);
  }
};

Norm::Norm(Device& device, RowKernelOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, options)) {}
Norm::~Norm() = default;
Norm::Norm(Norm&&) noexcept = default;
Norm& Norm::operator=(Norm&&) noexcept = default;
std::string Norm::variant() const { return impl_->subgroups ? "norm.workgroup.subgroups" : "norm.workgroup"; }

void Norm::encode_layer_norm(CommandEncoder& encoder, const TensorRef& input, const TensorRef& output,
                             const NormParams& params) {
  impl_->encode(encoder, false, input, output, params);
}

void Norm::encode_rms_norm(CommandEncoder& encoder, const TensorRef& input, const TensorRef& output,
                           const NormParams& params) {
  impl_->encode(encoder, true, input, output, params);
}

}  // namespace onegpu::kernels
