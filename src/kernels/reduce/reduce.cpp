// Reduce: checks, path choice (reduce_plan.cpp) and recording.
#include <algorithm>
#include <array>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/reduce/reduce_plan.h"
#include "reduce_variants.h"
#include "onegpu/errors.h"
#include "reduce/reduce_push.h"

namespace onegpu::kernels {

static_assert(reduce::kVariants.push_constants_are("reduce.", sizeof(ReducePush)));

const char* reduce_op_name(ReduceOp op) {
  static const char* names[] = {"sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum", "arg_max", "arg_min"};
  return names[static_cast<int>(op)];
}

static_assert(uint32_t(ReduceOp::sum) == OG_RED_SUM && uint32_t(ReduceOp::mean) == OG_RED_MEAN &&
              uint32_t(ReduceOp::max) == OG_RED_MAX && uint32_t(ReduceOp::min) == OG_RED_MIN &&
              uint32_t(ReduceOp::prod) == OG_RED_PROD && uint32_t(ReduceOp::l1) == OG_RED_L1 &&
              uint32_t(ReduceOp::l2) == OG_RED_L2 && uint32_t(ReduceOp::sum_square) == OG_RED_SUM_SQUARE &&
              uint32_t(ReduceOp::log_sum) == OG_RED_LOG_SUM && uint32_t(ReduceOp::arg_max) == OG_RED_ARG_MAX &&
              uint32_t(ReduceOp::arg_min) == OG_RED_ARG_MIN);

namespace {

constexpr bool every_plan_name_declared() {
  for (const auto& row : reduce::kPathNames)
    for (std::string_view name : row)
      if (!reduce::kVariants.built(name)) return false;
  for (std::string_view name : reduce::kSoftmaxTreeNames)
    if (!reduce::kVariants.built(name)) return false;
  for (std::string_view name : reduce::kOtherNames)
    if (!reduce::kVariants.built(name)) return false;
  return true;
}
static_assert(every_plan_name_declared(), "a variant the plans choose is missing from CMakeLists.txt");

}  // namespace

struct Reduce::Impl {
  KernelSet& set;
  RowKernelOptions options;
  // Bound where a pass has no scratch: two buffers, since WebGPU refuses two writable bindings
  // of overlapping ranges of one buffer in a dispatch.
  Buffer<float> dummy;
  Buffer<float> dummy_indices;
  Buffer<float> scratch;
  bool subgroups;

  Impl(KernelSet& k, Device& d, RowKernelOptions o)
      : set(k), options(o), dummy(d.create_buffer<float>(64)), dummy_indices(d.create_buffer<float>(64)),
        subgroups(o.mode == KernelMode::fast && o.allow_subgroups && subgroup_reductions(d.capabilities())) {}

};

Reduce::Reduce(Device& device, RowKernelOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, options)) {}
Reduce::~Reduce() = default;
Reduce::Reduce(Reduce&&) noexcept = default;
Reduce& Reduce::operator=(Reduce&&) noexcept = default;

std::vector<int64_t> Reduce::output_shape(std::span<const int64_t> shape, std::span<const int64_t> axes,
                                          bool keep_dims) {
  return reduce::output_shape(shape, axes, keep_dims);
}

uint64_t Reduce::scratch_length(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes,
                                std::span<const int64_t> strides) {
  return reduce::plan_reduce(op, {shape, strides, DataType::float32, 0}, axes, false, nullptr, false).scratch_floats;
}

std::string Reduce::variant(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes,
                            std::span<const int64_t> strides) const {
  const reduce::ReducePlan p =
      reduce::plan_reduce(op, {shape, strides, DataType::float32, 0}, axes, false, nullptr, impl_->subgroups);
  return p.second.empty() ? std::string(p.first) : std::string(p.first) + "+" + std::string(p.second);
}

void Reduce::encode(CommandEncoder& encoder, ReduceOp op, const TensorRef& input, std::span<const int64_t> axes,
                    bool keep_dims, const TensorRef& output, const RawBuffer* scratch) {
  Impl& im = *impl_;
  // Plan: every shape, type and stride check.
  const reduce::Tensor out = reduce::tensor_of(output);
  const reduce::ReducePlan p = reduce::plan_reduce(op, reduce::tensor_of(input), axes, keep_dims, &out, im.subgroups);
  // The buffers.
  if (input.buffer == nullptr) throw KernelShapeError("Reduce", "input", "no buffer");
  if (output.buffer == nullptr) throw KernelShapeError("Reduce", "output", "no buffer");
  const uint64_t es = data_type_size(input.type), os = data_type_size(output.type);
  check_elements("Reduce", "input", *input.buffer, input.offset, p.runs.reach, es);
  check_elements("Reduce", "output", *output.buffer, output.offset, p.runs.outputs, os);
  const ByteRange read = tensor_bytes("Reduce", "input", input.buffer->id(), input.offset, p.runs.reach, es);
  const ByteRange written = tensor_bytes("Reduce", "output", output.buffer->id(), output.offset, p.runs.outputs, os);
  check_disjoint("Reduce", "output", written, "input", read);
  check_bindable("Reduce", *input.buffer, im.set.caps());
  check_bindable("Reduce", *output.buffer, im.set.caps());
  if (p.runs.outputs == 0) return;

  // Scratch: values, then (arg ops) indices from a 256-byte boundary.
  BufferBinding values(im.dummy), indices(im.dummy_indices);
  if (p.scratch_floats > 0) {
    const RawBuffer* s = scratch;
    if (s != nullptr) {
      check_elements("Reduce", "scratch", *s, 0, p.scratch_floats, 4);
      const ByteRange used = tensor_bytes("Reduce", "scratch", s->id(), 0, p.scratch_floats, 4);
      check_disjoint("Reduce", "scratch", used, "input", read);
      check_disjoint("Reduce", "scratch", used, "output", written);
    } else {
      if (im.scratch.size() < p.scratch_floats)
        im.scratch = im.set.device().create_buffer<float>(std::max<uint64_t>(p.scratch_floats, reduce::kTwoPassScratchFloats));
      s = &im.scratch;
    }
    values = BufferBinding(*s, 0, p.plan.scratch_floats * 4);
    if (p.arg) indices = BufferBinding(*s, p.index_slot * 4, p.plan.scratch_floats * 4);
  }

  // Record.
  const BufferBinding all[] = {BufferBinding(*input.buffer), BufferBinding(*output.buffer), values, indices};
  const auto bytes = std::as_bytes(std::span(&p.push, 1));
  const ComputeKernel& first = im.set.kernel(reduce::kVariants.at(p.first));
  encoder.begin_compute_pass().dispatch_linear(first, *im.set.bind(first, declared_bindings(first, all).span()), bytes, p.first_groups);
  if (p.second.empty()) return;
  const ComputeKernel& second = im.set.kernel(reduce::kVariants.at(p.second));
  encoder.begin_compute_pass().dispatch_linear(second, *im.set.bind(second, declared_bindings(second, all).span()), bytes, p.second_groups);
}

}  // namespace onegpu::kernels
