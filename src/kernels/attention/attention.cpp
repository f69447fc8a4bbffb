// Attention: the kernel choice at construction, and encode in its steps (check, plan, push
// constants, record). The decisions live in attention_plan.cpp.
#include "onegpu/kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "attention_variants.h"
#include "kernels/attention/attention_plan.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/common/matrix_hardware.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

// Layout factories.
AttentionLayout AttentionLayout::head_first(uint64_t heads, uint64_t length, uint64_t head_dim, uint64_t offset) {
  return {offset, heads * length * head_dim, length * head_dim, head_dim};
}
AttentionLayout AttentionLayout::position_first(uint64_t heads, uint64_t length, uint64_t head_dim, uint64_t offset) {
  return {offset, length * heads * head_dim, head_dim, heads * head_dim};
}
AttentionLayout AttentionLayout::packed_qkv(Part part, uint64_t heads, uint64_t kv_heads, uint64_t length,
                                            uint64_t head_dim) {
  const uint64_t row = (heads + 2 * kv_heads) * head_dim;
  const uint64_t offset = part == Part::query ? 0 : part == Part::key ? heads * head_dim : (heads + kv_heads) * head_dim;
  return {offset, length * row, head_dim, row};
}
AttentionMaskLayout AttentionMaskLayout::broadcast(uint64_t mask_batch, uint64_t mask_heads, uint64_t mask_rows,
                                                   uint64_t key_length, uint64_t offset) {
  const uint64_t row = key_length, head = mask_rows * row, batch = mask_heads * head;
  return {offset, mask_batch > 1 ? batch : 0, mask_heads > 1 ? head : 0, mask_rows > 1 ? row : 0};
}

namespace {

DataType checked_type(DataType t) {
  if (t != DataType::float32 && t != DataType::float16 && t != DataType::bfloat16)
    throw UnsupportedError("Attention element type", "float32, float16 or bfloat16", std::string(data_type_name(t)));
  return t;
}

// Where a buffer bound writable may not be bound again in a dispatch (WebGPU): the output and the
// caller's scratch each in a buffer of their own, apart from every input (Q, K and V may share one,
// read-only). Ranges are widened to whole words, as the kernels access them.
void check_separate_outputs(const ComputeCapabilities& caps, const attention::Shape& s, DataType type,
                            const RawBuffer& q, const RawBuffer& k, const RawBuffer& v, const RawBuffer& o,
                            const AttentionInputs& in, uint64_t scratch_floats) {
  if (caps.aliased_writable_bindings) return;
  constexpr const char* kOp = "Attention";
  const uint64_t esize = data_type_size(type);
  auto range = [&](const char* name, const RawBuffer& b, const attention::Layout& l, uint64_t bytes) {
    return tensor_bytes(kOp, name, b.id(), l.offset, l.end - l.offset, bytes);
  };
  std::pair<const char*, ByteRange> inputs[5] = {
      {"q", range("q", q, s.q, esize)}, {"k", range("k", k, s.k, esize)}, {"v", range("v", v, s.v, esize)}, {}, {}};
  size_t n = 3;
  if (in.mask && s.has_mask) inputs[n++] = {"mask", range("mask", *in.mask, s.mask, 4)};
  if (in.key_lengths) inputs[n++] = {"key_lengths", ByteRange{in.key_lengths->id(), 0, in.key_lengths->size_bytes()}};
  const ByteRange out = range("o", o, s.o, esize);
  for (size_t i = 0; i < n; ++i) check_separate_buffers(caps, kOp, "o", out, inputs[i].first, inputs[i].second);
  if (in.scratch && scratch_floats > 0) {
    const ByteRange sr{in.scratch->id(), 0, scratch_floats * 4};
    check_separate_buffers(caps, kOp, "scratch", sr, "o", out);
    for (size_t i = 0; i < n; ++i) check_separate_buffers(caps, kOp, "scratch", sr, inputs[i].first, inputs[i].second);
  }
}

}  // namespace

struct Attention::Impl {
  KernelSet& set;
  Device* device;
  DataType type;
  AttentionOptions options;
  attention::Kernel kernel;
  Buffer<float> scratch;  // split keys without a caller's scratch (grown on need)

  Impl(KernelSet& k, Device& d, DataType t, AttentionOptions o) : set(k), device(&d), type(t), options(o) {
    const ComputeCapabilities& caps = d.capabilities();
    attention::Choice c;
    c.preference = o.variant;
    c.type = t;
    c.allow_subgroups = o.allow_subgroups;
    c.allow_matrix_hardware = o.allow_matrix_hardware;
    c.has_shuffle = caps.subgroup_operations.shuffle && caps.min_subgroup_size >= 2;
    c.cooperative_available = t == DataType::float16 && o.allow_matrix_hardware && cooperative_runs(caps);
    c.cooperative2_available = t == DataType::float16 && o.allow_matrix_hardware && cooperative2_runs(caps);
    kernel = attention::choose_kernel(c);
  }

  // The matrix kernel runs where the device lists 16 x 16 x 16 float16 matrices with float32
  // accumulation and accepts the kernel itself (subgroups of 32, full subgroups, the build having
  // compiled it): decided from capabilities and the pipeline, never from the vendor.
  bool cooperative_runs(const ComputeCapabilities& caps) {
    if (!has_subgroup_matrix_shape(caps, 16, 16, 16, {DataType::float16, DataType::float32})) return false;
    try {
      set.kernel(attention::variants().at("attention.cooperative.f16.d64"), kCooperativeOptions);
      return true;
    } catch (const UnsupportedError&) {
      return false;
    }
  }

  // The workgroup-scope kernel runs where the device lists float16 workgroup matrices with float32
  // accumulation for each head dimension's tile (both products: rows x keys x dim and rows x dim x
  // keys) and accepts the pipelines.
  bool cooperative2_runs(const ComputeCapabilities& caps) {
    try {
      for (uint64_t pd : {32u, 64u, 128u}) {
        const Variant v = attention::cooperative2_variant(pd);
        const auto threads = uint32_t(v.param("THREADS")), br = uint32_t(v.param("BR")), bc = uint32_t(v.param("BC"));
        const MatrixTypes types{DataType::float16, DataType::float32};
        if (!has_workgroup_matrix_shape(caps, threads, br, bc, uint32_t(pd), types) ||
            !has_workgroup_matrix_shape(caps, threads, br, uint32_t(pd), bc, types) ||
            !has_workgroup_matrix_shape(caps, threads, br, 16, bc, types))
          return false;
        set.kernel(v, kCooperative2Options);
      }
      return true;
    } catch (const UnsupportedError&) {
      return false;
    }
  }

  static constexpr KernelOptions kCooperativeOptions{.require_full_subgroups = true, .required_subgroup_size = 32};
  static constexpr KernelOptions kCooperative2Options{.require_full_subgroups = true};

  const ComputeKernel& main_kernel(const attention::Plan& p) {
    if (p.kernel == attention::Kernel::cooperative) return set.kernel(p.variant, kCooperativeOptions);
    if (p.kernel == attention::Kernel::cooperative2) return set.kernel(p.variant, kCooperative2Options);
    return set.kernel(p.variant);
  }
};

Attention::Attention(Device& device, DataType type, AttentionOptions options)
    : KernelFamily(device, options.max_cached_bind_groups),
      impl_(std::make_unique<Impl>(kernels(), device, checked_type(type), options)) {}
Attention::~Attention() = default;
Attention::Attention(Attention&&) noexcept = default;
Attention& Attention::operator=(Attention&&) noexcept = default;

DataType Attention::element_type() const { return impl_->type; }
KernelMode Attention::mode() const { return impl_->options.mode; }

uint64_t Attention::scratch_length(const AttentionProblem& problem) {
  return attention::scratch_floats(attention::resolve(problem, DataType::float32, false));
}

std::string Attention::variant(const AttentionProblem& problem) const {
  const attention::Shape s = attention::resolve(problem, impl_->type, false);
  return attention::variant_name(attention::plan(s, impl_->type, impl_->kernel, impl_->options.variant));
}

void Attention::encode(CommandEncoder& encoder, const AttentionProblem& problem, const RawBuffer& q, const RawBuffer& k,
                       const RawBuffer& v, const RawBuffer& o, const AttentionInputs& inputs) {
  Impl& im = *impl_;
  const ComputeCapabilities& caps = im.device->capabilities();
  constexpr const char* kOp = "Attention";
  // Check: every argument before anything is recorded.
  const RawBuffer* buffers[] = {&q, &k, &v, &o};
  const char* names[] = {"q", "k", "v", "o"};
  for (int i = 0; i < 4; ++i)
    if (!*buffers[i]) throw KernelShapeError(kOp, names[i], "the buffer is empty");
  if (inputs.mask && !*inputs.mask) throw KernelShapeError(kOp, "mask", "the buffer is empty");
  if (inputs.key_lengths && !*inputs.key_lengths) throw KernelShapeError(kOp, "key_lengths", "the buffer is empty");
  if (inputs.scratch && !*inputs.scratch) throw KernelShapeError(kOp, "scratch", "the buffer is empty");
  const attention::Shape s = attention::resolve(problem, im.type, inputs.mask != nullptr);
  const attention::Plan p = attention::plan(s, im.type, im.kernel, im.options.variant);
  attention::Buffers info{{q.size_bytes(), q.id()}, {k.size_bytes(), k.id()}, {v.size_bytes(), v.id()},
                          {o.size_bytes(), o.id()}};
  if (inputs.mask) info.mask = attention::BufferInfo{inputs.mask->size_bytes(), inputs.mask->id()};
  if (inputs.key_lengths)
    info.key_lengths = attention::BufferInfo{inputs.key_lengths->size_bytes(), inputs.key_lengths->id()};
  if (inputs.scratch) info.scratch = attention::BufferInfo{inputs.scratch->size_bytes(), inputs.scratch->id()};
  attention::check_buffers(s, im.type, p, info);
  check_separate_outputs(caps, s, im.type, q, k, v, o, inputs, p.split.splits > 1 ? attention::scratch_floats(s) : 0);
  for (const RawBuffer* b : buffers) check_bindable(kOp, *b, caps);
  if (inputs.mask) check_bindable(kOp, *inputs.mask, caps);
  if (inputs.key_lengths) check_bindable(kOp, *inputs.key_lengths, caps);
  if (s.empty()) return;
  const uint64_t max_grid = uint64_t(caps.max_workgroup_count[0]) * caps.max_workgroup_count[1];
  if (p.workgroups >= (1ull << 32) || p.workgroups > max_grid)
    throw UnsupportedError("max_workgroup_count", "Attention grid of at most " + std::to_string(max_grid) + " workgroups",
                           std::to_string(p.workgroups));
  const bool split = p.split.splits > 1;
  const uint64_t scratch_floats = split ? attention::scratch_floats(s) : 0;
  const uint64_t budget = im.options.submission_work_budget.value_or(im.device->submission_work_budget());
  const attention::Cut cut = attention::cut(p, budget);

  // Pipelines, scratch and bind groups, all before the first dispatch is recorded.
  const ComputeKernel& main = im.main_kernel(p);
  const Buffer<float>* scratch = inputs.scratch;
  if (split && scratch == nullptr) {
    if (im.scratch.size() < scratch_floats) {
      if (scratch_floats * 4 > caps.max_storage_buffer_range)
        throw UnsupportedError("max_storage_buffer_range", "Attention scratch of " + std::to_string(scratch_floats * 4) + " bytes",
                               std::to_string(caps.max_storage_buffer_range));
      im.scratch = im.device->create_buffer<float>(scratch_floats);
    }
    scratch = &im.scratch;
  }
  if (scratch) check_bindable(kOp, *scratch, caps);
  // Unused slots bind Q (read-only, never read there).
  const BufferBinding main_bindings[] = {
      BufferBinding(q), BufferBinding(k), BufferBinding(v),
      split ? BufferBinding(*scratch) : BufferBinding(o),
      inputs.mask ? BufferBinding(*inputs.mask) : BufferBinding(q),
      inputs.key_lengths ? BufferBinding(*inputs.key_lengths) : BufferBinding(q)};
  const auto main_group = im.set.bind(main, main_bindings);
  const ComputeKernel* merge = nullptr;
  std::shared_ptr<const BindGroup> merge_group;
  if (split) {
    merge = &im.set.kernel(attention::merge_variant(im.type));
    const BufferBinding merge_bindings[] = {BufferBinding(*scratch), BufferBinding(o)};
    merge_group = im.set.bind(*merge, merge_bindings);
  }

  // Record: each piece in its own pass, its work reported so the encoder may end a submission
  // after it; then the merge.
  AttentionPush push = attention::push_constants(s, p, inputs.key_lengths != nullptr, im.options.masked_rows);
  for (uint64_t first = 0; first < p.workgroups; first += cut.step) {
    const uint64_t count = std::min(cut.step, p.workgroups - first);
    push.first_workgroup = uint32_t(first);
    push.workgroup_count = uint32_t(count);
    encoder.begin_compute_pass().dispatch_linear(main, *main_group, std::as_bytes(std::span(&push, 1)), count);
    encoder.report_work(count * cut.work_per_workgroup);
  }
  if (split) {
    const AttentionMergePush mp = attention::merge_push_constants(s, p, im.type, im.options.masked_rows);
    encoder.begin_compute_pass().dispatch_linear(*merge, *merge_group, std::as_bytes(std::span(&mp, 1)),
                                                 (uint64_t(mp.count) + OG_ATTN_WORKGROUP - 1) / OG_ATTN_WORKGROUP);
  }
}

}  // namespace onegpu::kernels
