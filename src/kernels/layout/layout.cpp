// Layout: each operation becomes a copy (layout_plan.cpp), the buffers are checked, and each pass
// is recorded with the variant its plan names.
#include "onegpu/kernels/layout.h"

#include <array>
#include <utility>
#include <string>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/layout/layout_plan.h"
#include "layout_variants.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

static_assert(layout::kVariants.push_constants_are("layout.copy.", sizeof(LayoutCopyPush)));
static_assert(layout::kVariants.push_constants_are("layout.rows.", sizeof(LayoutRowsPush)));
static_assert(layout::kVariants.push_constants_are("layout.tiled.", sizeof(LayoutTilePush)));

namespace {

using layout::Algorithm;

constexpr size_t width_index(uint64_t bits) { return bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3; }

// The table's row for each (algorithm, element width), read from the names and defines.
constexpr std::array<int, 12> kRowOf = [] {
  std::array<int, 12> t{};
  t.fill(-1);
  for (size_t i = 0; i < layout::kVariants.size(); ++i) {
    const Variant v = layout::kVariants[i];
    const int a = v.name().starts_with("layout.copy.") ? 0 : v.name().starts_with("layout.tiled.") ? 1 : 2;
    t[size_t(a) * 4 + width_index(uint64_t(v.param("WIDTH")))] = int(i);
  }
  return t;
}();
static_assert([] {
  for (int r : kRowOf)
    if (r < 0) return false;
  return true;
}(), "every algorithm needs a variant per element width in CMakeLists.txt");

// Every device offers 16 KiB of workgroup memory (Vulkan's minimum maxComputeSharedMemorySize).
static_assert([] {
  for (size_t i = 0; i < layout::kVariants.size(); ++i)
    if (layout::kVariants[i].workgroup_memory_bytes() > 16384) return false;
  return true;
}(), "a layout variant needs more workgroup memory than every device offers");

Variant variant_of(const layout::Pass& p) {
  return layout::kVariants[size_t(kRowOf[size_t(p.algorithm) * 4 + width_index(p.width)])];
}

// The shaders index elements and words with 32-bit integers: a tensor must end within the first
// 4 GiB of its buffer.
void check_indexable(const char* op, const char* name, uint64_t offset, uint64_t count, uint64_t bytes) {
  if (offset > (uint64_t(1) << 32) || (offset + count) * bytes > (uint64_t(1) << 32))
    throw KernelShapeError(op, name, "ends past byte 2^32 of its buffer, beyond the kernels' 32-bit indices");
}

}  // namespace

struct Layout::Impl {
  KernelSet& set;
  Buffer<uint32_t> dummy;
  Impl(KernelSet& k, Device& d) : set(k), dummy(d.create_buffer<uint32_t>(4)) {}

  // An input's buffer: present, holding what the tensor reaches, bindable.
  void check_input(const char* op, const char* name, const TensorRef& x) {
    if (x.buffer == nullptr) throw KernelShapeError(op, name, "no buffer");
    const uint64_t reach = layout::reach(op, name, layout::operand_of(x));
    check_elements(op, name, *x.buffer, x.offset, reach, data_type_size(x.type));
    check_indexable(op, name, x.offset, reach, data_type_size(x.type));
    check_bindable(op, *x.buffer, set.caps());
  }
  void check_output(const char* op, const TensorRef& out) {
    if (out.buffer == nullptr) throw KernelShapeError(op, "output", "no buffer");
    check_elements(op, "output", *out.buffer, out.offset, out.element_count(), data_type_size(out.type));
    check_indexable(op, "output", out.offset, out.element_count(), data_type_size(out.type));
    check_bindable(op, *out.buffer, set.caps());
  }
  // An input in the output's buffer must not share bytes (or words, below 32 bits) with it, nor
  // be there at all where the device refuses a buffer bound writable and read-only at once.
  void check_apart(const char* op, const TensorRef& x, const TensorRef& out) {
    const uint64_t bytes = data_type_size(out.type);
    const uint64_t reach = layout::reach(op, "x", layout::operand_of(x));
    const ByteRange o = tensor_bytes(op, "output", out.buffer->id(), out.offset, out.element_count(), bytes);
    const ByteRange i = tensor_bytes(op, "x", x.buffer->id(), x.offset, reach, bytes);
    check_disjoint(op, "output", o, "an input", i);
    check_separate_buffers(set.caps(), op, "output", o, "an input", i);
  }

  // One dispatch into `pass`.
  // The pipeline and bind group of one dispatch (a buffer of another device throws here).
  std::pair<const ComputeKernel*, std::shared_ptr<const BindGroup>> bind(const layout::Pass& p,
                                                                        std::span<const RawBuffer* const> sources,
                                                                        const RawBuffer& out) {
    const ComputeKernel& k = set.kernel(variant_of(p));
    if (p.algorithm == Algorithm::copy) {
      const BufferBinding bindings[] = {
          BufferBinding(*sources[0]), BufferBinding(sources.size() > 1 ? *sources[1] : dummy),
          BufferBinding(sources.size() > 2 ? *sources[2] : dummy),
          BufferBinding(sources.size() > 3 ? *sources[3] : dummy), BufferBinding(out)};
      return {&k, set.bind(k, bindings)};
    }
    const BufferBinding bindings[] = {BufferBinding(*sources[0]), BufferBinding(out)};
    return {&k, set.bind(k, bindings)};
  }

  // One dispatch into `pass`.
  void dispatch(ComputePass& pass, const layout::Pass& p, std::span<const RawBuffer* const> sources,
                const RawBuffer& out) {
    const auto [k, group] = bind(p, sources, out);
    if (p.algorithm == Algorithm::copy) {
      const LayoutCopyPush push = layout::copy_push(p);
      pass.dispatch_linear(*k, *group, std::as_bytes(std::span(&push, 1)), p.workgroups);
    } else if (p.algorithm == Algorithm::rows) {
      const LayoutRowsPush push = layout::rows_push(p);
      pass.dispatch_linear(*k, *group, std::as_bytes(std::span(&push, 1)), p.workgroups);
    } else {
      const LayoutTilePush push = layout::tile_push(p);
      pass.dispatch_linear(*k, *group, std::as_bytes(std::span(&push, 1)), p.workgroups);
    }
  }

  // A pass of its own (the next pass sees its writes).
  void record(CommandEncoder& encoder, const layout::Pass& p, std::span<const RawBuffer* const> sources,
              const RawBuffer& out) {
    if (p.empty()) return;
    ComputePass pass = encoder.begin_compute_pass();
    dispatch(pass, p, sources, out);
  }

  // One source: check the buffers, record.
  void run_one(CommandEncoder& encoder, const char* op, const layout::Copy& c, const TensorRef& x,
               const TensorRef& out) {
    const layout::Pass p = layout::plan(op, c, out.type, out.offset);
    check_input(op, "x", x);
    check_output(op, out);
    check_apart(op, x, out);
    const RawBuffer* sources[] = {x.buffer};
    record(encoder, p, sources, *out.buffer);
  }
};

Layout::Layout(Device& device, LayoutOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device)) {}
Layout::~Layout() = default;
Layout::Layout(Layout&&) noexcept = default;
Layout& Layout::operator=(Layout&&) noexcept = default;

void Layout::transpose(CommandEncoder& encoder, const TensorRef& x, std::span<const int64_t> perm,
                       const TensorRef& out) {
  const layout::Copy c = layout::transpose_copy(layout::operand_of(x), perm, layout::operand_of(out));
  impl_->run_one(encoder, "Transpose", c, x, out);
}

void Layout::slice(CommandEncoder& encoder, const TensorRef& x, std::span<const int64_t> starts,
                   std::span<const int64_t> ends, std::span<const int64_t> axes, std::span<const int64_t> steps,
                   const TensorRef& out) {
  const layout::Copy c = layout::slice_copy(layout::operand_of(x), starts, ends, axes, steps, layout::operand_of(out));
  if (x.buffer != nullptr && out.buffer != nullptr && x.buffer->id() == out.buffer->id())
    throw KernelShapeError("Slice", "output", "is the input's buffer (Slice does not run in place)");
  impl_->run_one(encoder, "Slice", c, x, out);
}

void Layout::expand(CommandEncoder& encoder, const TensorRef& x, const TensorRef& out) {
  const layout::Copy c = layout::expand_copy(layout::operand_of(x), layout::operand_of(out));
  impl_->run_one(encoder, "Expand", c, x, out);
}

void Layout::concat(CommandEncoder& encoder, std::span<const TensorRef> inputs, int64_t axis, const TensorRef& out) {
  const char* op = "Concat";
  const uint32_t a = layout::concat_check(inputs, axis, layout::operand_of(out));
  impl_->check_output(op, out);
  for (const TensorRef& x : inputs) {
    impl_->check_input(op, "inputs", x);
    impl_->check_apart(op, x, out);
  }
  // Inputs whose blocks of the output are rows of whole 16-byte vectors are copied by one row
  // copy each, all in one pass (their blocks are disjoint); otherwise up to four inputs a pass.
  // Every dispatch is bound before the first is recorded (binding checks each buffer's device), so
  // an error records nothing; the groups are cached, so the second bind finds them.
  if (layout::concat_by_blocks(inputs, a, layout::operand_of(out))) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      const layout::Pass p = layout::concat_block(inputs, a, layout::operand_of(out), k);
      const RawBuffer* sources[] = {inputs[k].buffer};
      if (!p.empty()) impl_->bind(p, sources, *out.buffer);
    }
    ComputePass pass;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const layout::Pass p = layout::concat_block(inputs, a, layout::operand_of(out), k);
      if (p.empty()) continue;
      if (pass.ended()) pass = encoder.begin_compute_pass();
      const RawBuffer* sources[] = {inputs[k].buffer};
      impl_->dispatch(pass, p, sources, *out.buffer);
    }
    return;
  }
  // Plan and bind every pass before recording any, so an error records nothing.
  for (size_t first = 0, next = 0; first < inputs.size(); first = next) {
    const layout::Pass p = layout::concat_pass(inputs, a, layout::operand_of(out), first, next);
    const RawBuffer* sources[layout::kMaxSources] = {};
    for (uint32_t s = 0; s < p.sources; ++s) sources[s] = inputs[p.input[s]].buffer;
    if (!p.empty()) impl_->bind(p, std::span(sources, p.sources == 0 ? 1 : p.sources), *out.buffer);
  }
  for (size_t first = 0, next = 0; first < inputs.size(); first = next) {
    const layout::Pass p = layout::concat_pass(inputs, a, layout::operand_of(out), first, next);
    const RawBuffer* sources[layout::kMaxSources] = {};
    for (uint32_t s = 0; s < p.sources; ++s) sources[s] = inputs[p.input[s]].buffer;
    impl_->record(encoder, p, std::span(sources, p.sources == 0 ? 1 : p.sources), *out.buffer);
  }
}

std::vector<int64_t> Layout::slice_shape(std::span<const int64_t> x_shape, std::span<const int64_t> starts,
                                         std::span<const int64_t> ends, std::span<const int64_t> axes,
                                         std::span<const int64_t> steps) {
  int64_t shape[layout::kMaxRank];
  const uint32_t r = layout::slice_shape(x_shape, starts, ends, axes, steps, shape);
  return std::vector<int64_t>(shape, shape + r);
}

std::vector<int64_t> Layout::expand_shape(std::span<const int64_t> x_shape, std::span<const int64_t> shape) {
  int64_t out[layout::kMaxRank];
  const uint32_t r = layout::expand_shape(x_shape, shape, out);
  return std::vector<int64_t>(out, out + r);
}

std::vector<int64_t> Layout::transpose_shape(std::span<const int64_t> x_shape, std::span<const int64_t> perm) {
  int64_t out[layout::kMaxRank];
  const uint32_t r = layout::transpose_shape(x_shape, perm, out);
  return std::vector<int64_t>(out, out + r);
}

std::vector<int64_t> Layout::concat_shape(std::span<const std::span<const int64_t>> shapes, int64_t axis) {
  if (shapes.empty()) throw KernelShapeError("Concat", "inputs", "no input");
  std::vector<int64_t> out(shapes[0].begin(), shapes[0].end());
  const int64_t r = int64_t(out.size());
  if (r == 0 || axis < -r || axis >= r) throw KernelShapeError("Concat", "axis", "axis " + std::to_string(axis) + " is outside the rank");
  const size_t a = size_t(axis < 0 ? axis + r : axis);
  out[a] = 0;
  for (auto s : shapes) {
    const int64_t length = s.size() == out.size() ? s[a] : 0;
    if (length < 0 || __builtin_add_overflow(out[a], length, &out[a]))
      throw KernelShapeError("Concat", "inputs", "the lengths along the axis are negative or add up past 2^63");
  }
  std::vector<TensorRef> refs;
  for (auto s : shapes) refs.push_back(TensorRef{nullptr, 0, s, {}, DataType::float32});
  layout::concat_check(refs, axis, layout::operand_of(TensorRef{nullptr, 0, out, {}, DataType::float32}));
  return out;
}

std::string_view Layout::transpose_variant(const TensorRef& x, std::span<const int64_t> perm,
                                           const TensorRef& out) const {
  const layout::Copy c = layout::transpose_copy(layout::operand_of(x), perm, layout::operand_of(out));
  return variant_of(layout::plan("Transpose", c, out.type, out.offset)).name();
}

std::string_view Layout::slice_variant(const TensorRef& x, std::span<const int64_t> starts,
                                       std::span<const int64_t> ends, std::span<const int64_t> axes,
                                       std::span<const int64_t> steps, const TensorRef& out) const {
  const layout::Copy c = layout::slice_copy(layout::operand_of(x), starts, ends, axes, steps, layout::operand_of(out));
  return variant_of(layout::plan("Slice", c, out.type, out.offset)).name();
}

std::string_view Layout::concat_variant(std::span<const TensorRef> inputs, int64_t axis, const TensorRef& out) const {
  const uint32_t a = layout::concat_check(inputs, axis, layout::operand_of(out));
  size_t next = 0;
  if (layout::concat_by_blocks(inputs, a, layout::operand_of(out)))
    for (size_t k = 0; k < inputs.size(); ++k)
      if (const layout::Pass p = layout::concat_block(inputs, a, layout::operand_of(out), k); !p.empty())
        return variant_of(p).name();
  return variant_of(layout::concat_pass(inputs, a, layout::operand_of(out), 0, next)).name();
}

std::string_view Layout::expand_variant(const TensorRef& x, const TensorRef& out) const {
  const layout::Copy c = layout::expand_copy(layout::operand_of(x), layout::operand_of(out));
  return variant_of(layout::plan("Expand", c, out.type, out.offset)).name();
}

}  // namespace onegpu::kernels
