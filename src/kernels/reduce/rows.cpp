// Softmax and Norm: checks, path choice (reduce_plan.cpp) and recording.
#include <algorithm>
#include <bit>

#include "kernels/common/family.h"
#include "kernels/reduce/reduce_plan.h"
#include "reduce_variants.h"
#include "onegpu/errors.h"
#include "reduce/rows_push.h"

namespace onegpu::kernels {

static_assert(reduce::kVariants.push_constants_are("softmax.", sizeof(RowsPush)));
static_assert(reduce::kVariants.push_constants_are("norm.", sizeof(RowsPush)));

namespace {

// Half rows are read and written as whole words: the axis must be last, the row length and both
// offsets even. An output may be the input only at the same offset.
void check_rows(const char* op, TensorType type, const RawBuffer& input, uint64_t in_off, const RawBuffer& output,
                uint64_t out_off, uint64_t elements, uint64_t len, uint64_t inner) {
  const uint64_t es = type == TensorType::float32 ? 4 : 2;
  check_elements(op, "input", input, in_off, elements, es);
  check_elements(op, "output", output, out_off, elements, es);
  if (type == TensorType::float16 && (inner != 1 || len % 2 != 0 || in_off % 2 != 0 || out_off % 2 != 0))
    throw KernelShapeError(op, "input", "half tensors need the axis last, an even row length and even offsets");
  if (input.id() == output.id() && in_off != out_off) {
    const uint64_t a0 = in_off, a1 = in_off + elements, b0 = out_off, b1 = out_off + elements;
    if (a0 < b1 && b0 < a1) throw KernelShapeError(op, "output", "overlaps the input at another offset");
  }
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

std::string Softmax::variant(std::span<const int64_t> shape, int64_t axis) const {
  const reduce::Rows rows = reduce::softmax_rows(shape, axis);
  const reduce::SoftmaxPlan plan = reduce::softmax_plan(rows.len, rows.len);
  if (plan.path == 0) return "thread-per-row";
  if (plan.path == 1) return impl_->subgroups ? "subgroup-per-row" : "group-" + std::to_string(plan.group);
  return impl_->subgroups ? "workgroup-subgroups" : "workgroup-tree";
}

void Softmax::encode(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
                     std::span<const int64_t> shape, int64_t axis, const RawBuffer& output, uint64_t output_offset,
                     bool log) {
  Impl& im = *impl_;
  const reduce::Rows rows = reduce::softmax_rows(shape, axis);
  const uint64_t elements = rows.rows * rows.len;
  check_rows("Softmax", type, input, input_offset, output, output_offset, elements, rows.len, rows.inner);
  check_bindable("Softmax", input, im.set.caps());
  check_bindable("Softmax", output, im.set.caps());
  if (elements == 0) return;
  const bool half = type == TensorType::float16;
  const reduce::SoftmaxPlan plan = reduce::softmax_plan(rows.len, half ? rows.len / 2 : rows.len);
  RowsPush push{};
  push.rows = uint32_t(rows.rows);
  push.len = uint32_t(rows.len);
  push.inner = uint32_t(rows.inner);
  push.flags = (half ? OG_ROWS_HALF : 0u) | (log ? OG_ROWS_LOG : 0u);
  push.in_offset = uint32_t(input_offset);
  push.out_offset = uint32_t(output_offset);
  push.group = plan.group;
  // Fast mode with subgroups gives each row of 16 to 1024 elements one subgroup.
  const bool per_subgroup = plan.path == 1 && im.subgroups;
  static constexpr std::string_view kTree[4] = {"softmax.tree.lanes1", "softmax.tree.lanes2", "softmax.tree.lanes4",
                                                "softmax.tree.lanes8"};
  const std::string_view name = per_subgroup     ? "softmax.subgroup"
                                : plan.path == 0 ? "softmax.thread"
                                : plan.path == 1 ? kTree[std::countr_zero(plan.lanes_per_thread())]
                                : im.subgroups   ? "softmax.workgroup.subgroups"
                                                 : "softmax.workgroup";
  const ComputeKernel& k = im.set.kernel(reduce::kVariants.at(name));
  const BufferBinding bindings[] = {BufferBinding(input), BufferBinding(output)};
  const uint64_t rows_per_group =
      per_subgroup ? 256 / std::max<uint32_t>(im.set.caps().max_subgroup_size, 1) : plan.rows_per_workgroup();
  const uint64_t groups = (rows.rows + rows_per_group - 1) / rows_per_group;
  encoder.begin_compute_pass();
  encoder.dispatch_linear(k, *im.set.bind(k, bindings), std::as_bytes(std::span(&push, 1)), groups);
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

  void encode(CommandEncoder& encoder, bool rms, TensorType type, const RawBuffer& input, uint64_t input_offset,
              std::span<const int64_t> shape, const RawBuffer& output, uint64_t output_offset, const NormParams& p) {
    const char* op = rms ? "RmsNorm" : "LayerNorm";
    const uint64_t elements = reduce::check_shape(op, shape);
    const uint64_t len = uint64_t(shape.back());
    check_rows(op, type, input, input_offset, output, output_offset, elements, len, 1);
    if (p.scale) check_elements(op, "scale", *p.scale, p.scale_offset, len, 4);
    if (p.bias) check_elements(op, "bias", *p.bias, p.bias_offset, len, 4);
    if (!(p.epsilon >= 0.0f)) throw KernelShapeError(op, "epsilon", "must be a non-negative number");
    check_bindable(op, input, set.caps());
    check_bindable(op, output, set.caps());
    if (elements == 0) return;
    RowsPush push{};
    push.rows = uint32_t(elements / len);
    push.len = uint32_t(len);
    push.inner = 1;
    push.flags = (type == TensorType::float16 ? OG_ROWS_HALF : 0u) | (rms ? OG_ROWS_RMS : 0u) |
                 (p.scale ? OG_ROWS_SCALE : 0u) | (p.bias ? OG_ROWS_BIAS : 0u);
    push.in_offset = uint32_t(input_offset);
    push.out_offset = uint32_t(output_offset);
    push.scale_offset = uint32_t(p.scale_offset);
    push.bias_offset = uint32_t(p.bias_offset);
    push.epsilon = p.epsilon;
    const ComputeKernel& k =
        set.kernel(reduce::kVariants.at(subgroups ? "norm.workgroup.subgroups" : "norm.workgroup"));
    const BufferBinding bindings[] = {BufferBinding(input), BufferBinding(output),
                                      p.scale ? BufferBinding(*p.scale) : BufferBinding(dummy),
                                      p.bias ? BufferBinding(*p.bias) : BufferBinding(dummy)};
    encoder.begin_compute_pass();
    encoder.dispatch_linear(k, *set.bind(k, bindings), std::as_bytes(std::span(&push, 1)), push.rows);
  }
};

Norm::Norm(Device& device, RowKernelOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, options)) {}
Norm::~Norm() = default;
Norm::Norm(Norm&&) noexcept = default;
Norm& Norm::operator=(Norm&&) noexcept = default;
std::string Norm::variant() const { return impl_->subgroups ? "workgroup-subgroups" : "workgroup-tree"; }

void Norm::encode_layer_norm(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
                             std::span<const int64_t> shape, const RawBuffer& output, uint64_t output_offset,
                             const NormParams& params) {
  impl_->encode(encoder, false, type, input, input_offset, shape, output, output_offset, params);
}

void Norm::encode_rms_norm(CommandEncoder& encoder, TensorType type, const RawBuffer& input, uint64_t input_offset,
                           std::span<const int64_t> shape, const RawBuffer& output, uint64_t output_offset,
                           const NormParams& params) {
  impl_->encode(encoder, true, type, input, input_offset, shape, output, output_offset, params);
}

}  // namespace onegpu::kernels
