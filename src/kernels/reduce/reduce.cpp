// Reduce: checks, path choice (reduce_plan.cpp) and recording.
#include <algorithm>
#include <array>

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

namespace {

bool is_arg(ReduceOp op) { return op == ReduceOp::arg_max || op == ReduceOp::arg_min; }

// Floats between the scratch's value slots and its index slots (arg ops): a 256-byte boundary,
// which satisfies every device's offset alignment.
uint64_t index_slot_offset(uint64_t floats) { return (floats + 63) / 64 * 64; }

// Binds `buffers[binding]` to each binding the kernel declares (at most four). Allocates nothing.
struct Bound {
  std::array<BufferBinding, 4> list;
  size_t count = 0;
  std::span<const BufferBinding> span() const { return {list.data(), count}; }
};
Bound by_binding(const ComputeKernel& k, std::span<const BufferBinding> buffers) {
  Bound b{{buffers[0], buffers[0], buffers[0], buffers[0]}, 0};
  for (const ShaderBinding& sb : k.reflection().bindings) b.list[b.count++] = buffers[sb.binding];
  return b;
}

// The variant of a reduce.comp path (0-5 as the shader numbers them): arg-reductions have their
// own variants; the workgroup paths 1-3 also come with subgroup arithmetic (not for arg).
// Looked up once, so an encode allocates nothing.
Variant path_variant(int path, bool arg, bool subgroups) {
  static const std::vector<Variant> table = [] {
    static constexpr std::string_view kPaths[] = {"reduce.thread",         "reduce.workgroup",
                                                  "reduce.two_pass.first", "reduce.two_pass.second",
                                                  "reduce.columns.first",  "reduce.columns.second"};
    std::vector<Variant> t;
    for (std::string_view p : kPaths)
      for (bool a : {false, true})
        for (bool sg : {false, true}) {
          const bool with_sg = sg && !a && (p.starts_with("reduce.workgroup") || p.starts_with("reduce.two_pass"));
          t.push_back(reduce::kVariants.at(std::string(p) + (a ? ".arg" : with_sg ? ".subgroups" : "")));
        }
    return t;
  }();
  return table[size_t(path) * 4 + (arg ? 2 : 0) + (subgroups ? 1 : 0)];
}

}  // namespace

struct Reduce::Impl {
  KernelSet& set;
  RowKernelOptions options;
  Buffer<float> dummy;
  Buffer<float> scratch;
  bool subgroups;

  Impl(KernelSet& k, Device& d, RowKernelOptions o)
      : set(k), options(o), dummy(d.create_buffer<float>(64)),
        subgroups(o.mode == KernelMode::fast && o.allow_subgroups && subgroup_reductions(d.capabilities())) {}

  // The first pass's path number in shaders/reduce/reduce.comp.
  static int first_path(const reduce::Plan& plan) {
    return plan.path == reduce::Path::thread ? 0 : plan.path == reduce::Path::group ? 1 : plan.path == reduce::Path::two_pass ? 2 : 4;
  }
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

uint64_t Reduce::scratch_length(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes) {
  const reduce::Plan plan = reduce::plan(reduce::merge(shape, axes));
  if (plan.scratch_floats == 0) return 0;
  return is_arg(op) ? index_slot_offset(plan.scratch_floats) + plan.scratch_floats : plan.scratch_floats;
}

std::string Reduce::variant(ReduceOp op, std::span<const int64_t> shape, std::span<const int64_t> axes) const {
  const reduce::Plan plan = reduce::plan(reduce::merge(shape, axes));
  const bool sg = impl_->subgroups && !is_arg(op);
  switch (plan.path) {
    case reduce::Path::thread: return "thread-per-output";
    case reduce::Path::group: return sg ? "workgroup-subgroups" : "workgroup-tree";
    case reduce::Path::two_pass: return sg ? "two-pass-subgroups" : "two-pass-tree";
    case reduce::Path::columns: return "columns-two-pass";  // (four outputs per invocation where aligned)
  }
  return "?";
}

void Reduce::encode(CommandEncoder& encoder, ReduceOp op, TensorType type, const RawBuffer& input,
                    uint64_t input_offset, std::span<const int64_t> shape, std::span<const int64_t> axes,
                    bool keep_dims, const RawBuffer& output, uint64_t output_offset, const RawBuffer* scratch) {
  Impl& im = *impl_;
  const reduce::Runs runs = reduce::merge(shape, axes);
  (void)keep_dims;  // the layout of the output does not depend on it
  const bool arg = is_arg(op);
  const uint64_t es = type == TensorType::float32 ? 4 : 2;
  check_elements("Reduce", "input", input, input_offset, runs.elements, es);
  check_elements("Reduce", "output", output, output_offset, runs.outputs, arg ? 8 : es);
  if (arg && runs.count == 0 && runs.outputs > 0)
    throw KernelShapeError("Reduce", "shape", std::string(reduce_op_name(op)) + " over an empty axis");
  if (input.id() == output.id()) {
    const uint64_t a0 = input_offset * es, a1 = a0 + runs.elements * es;
    const uint64_t b0 = output_offset * (arg ? 8 : es), b1 = b0 + runs.outputs * (arg ? 8 : es);
    if (a0 < b1 && b0 < a1) throw KernelShapeError("Reduce", "output", "overlaps the input");
  }
  check_bindable("Reduce", input, im.set.caps());
  check_bindable("Reduce", output, im.set.caps());
  if (runs.outputs == 0) return;

  const reduce::Plan plan = reduce::plan(runs);
  ReducePush push{};
  push.outputs = uint32_t(runs.outputs);
  push.count = uint32_t(runs.count);
  push.op = static_cast<uint32_t>(op);
  push.flags = type == TensorType::float16 ? OG_RED_HALF : 0u;
  push.kept_runs = runs.kept_runs;
  push.red_runs = runs.red_runs;
  push.in_offset = uint32_t(input_offset);
  push.out_offset = uint32_t(output_offset);
  for (uint32_t i = 0; i < 4; ++i) {
    push.kept_size[i] = uint32_t(runs.kept_size[i]);
    push.kept_stride[i] = uint32_t(runs.kept_stride[i]);
    push.red_size[i] = uint32_t(runs.red_size[i]);
    push.red_stride[i] = uint32_t(runs.red_stride[i]);
  }
  bool vec4 = type == TensorType::float32 && runs.red_runs == 1 && runs.red_stride[0] == 1 && runs.count % 4 == 0 &&
              input_offset % 4 == 0;
  for (uint32_t i = 0; i < runs.kept_runs; ++i) vec4 = vec4 && runs.kept_stride[i] % 4 == 0;
  if (vec4) push.flags |= OG_RED_VEC4;
  bool cols4 = plan.path == reduce::Path::columns && !arg && type == TensorType::float32 && runs.kept_runs == 1 &&
               runs.kept_stride[0] == 1 && runs.outputs % 4 == 0 && input_offset % 4 == 0;
  for (uint32_t i = 0; i < runs.red_runs; ++i) cols4 = cols4 && runs.red_stride[i] % 4 == 0;
  if (cols4) push.flags |= OG_RED_COLS4;
  push.chunk = plan.chunk;
  push.chunks = plan.chunks;
  push.scratch_stride = uint32_t(reduce::kMaxChunks);

  // Scratch: values, then (arg ops) indices from a 256-byte boundary.
  BufferBinding values(im.dummy), indices(im.dummy);
  if (plan.scratch_floats > 0) {
    const uint64_t floats = arg ? index_slot_offset(plan.scratch_floats) + plan.scratch_floats : plan.scratch_floats;
    const RawBuffer* s = scratch;
    if (s != nullptr) {
      check_elements("Reduce", "scratch", *s, 0, floats, 4);
    } else {
      if (im.scratch.size() < floats) im.scratch = im.set.device().create_buffer<float>(std::max<uint64_t>(floats, reduce::kTwoPassScratchFloats));
      s = &im.scratch;
    }
    values = BufferBinding(*s, 0, plan.scratch_floats * 4);
    if (arg) indices = BufferBinding(*s, index_slot_offset(plan.scratch_floats) * 4, plan.scratch_floats * 4);
  }
  const BufferBinding all[] = {BufferBinding(input), BufferBinding(output), values, indices};
  const ComputeKernel& first = im.set.kernel(path_variant(Impl::first_path(plan), arg, im.subgroups));
  const auto bytes = std::as_bytes(std::span(&push, 1));
  encoder.begin_compute_pass();
  switch (plan.path) {
    case reduce::Path::thread:
      encoder.dispatch_linear(first, *im.set.bind(first, by_binding(first, all).span()), bytes, (runs.outputs + 255) / 256);
      return;
    case reduce::Path::group:
      encoder.dispatch_linear(first, *im.set.bind(first, by_binding(first, all).span()), bytes, runs.outputs);
      return;
    case reduce::Path::two_pass: {
      encoder.dispatch_linear(first, *im.set.bind(first, by_binding(first, all).span()), bytes, runs.outputs * plan.chunks);
      const ComputeKernel& second = im.set.kernel(path_variant(3, arg, im.subgroups));
      encoder.begin_compute_pass();
      encoder.dispatch_linear(second, *im.set.bind(second, by_binding(second, all).span()), bytes, runs.outputs);
      return;
    }
    case reduce::Path::columns: {
      if (cols4) {
        static const Variant kQuads = reduce::kVariants.at("reduce.columns.first.vec4");
        const ComputeKernel& quads = im.set.kernel(kQuads);
        encoder.dispatch_linear(quads, *im.set.bind(quads, by_binding(quads, all).span()), bytes,
                                (runs.outputs / 4 * plan.chunks + 255) / 256);
      } else {
        encoder.dispatch_linear(first, *im.set.bind(first, by_binding(first, all).span()), bytes,
                                (runs.outputs * plan.chunks + 255) / 256);
      }
      const ComputeKernel& second = im.set.kernel(path_variant(5, arg, false));
      encoder.begin_compute_pass();
      encoder.dispatch_linear(second, *im.set.bind(second, by_binding(second, all).span()), bytes, (runs.outputs + 255) / 256);
      return;
    }
  }
}

}  // namespace onegpu::kernels
