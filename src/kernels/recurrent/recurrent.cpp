// Recurrent: plans the layer (recurrent_plan.cpp), checks the buffers, then records the
// projection, the state set-up, the steps and the outputs.
#include "onegpu/kernels/recurrent.h"

#include <array>
#include <cstdlib>
#include <optional>

#include "kernels/common/aliasing.h"
#include "core/env.h"
#include "kernels/common/family.h"
#include "kernels/common/matrix_hardware.h"
#include "kernels/recurrent/recurrent_plan.h"
#include "onegpu/adapter.h"
#include "onegpu/errors.h"
#include "onegpu/kernels/gemm.h"
#include "recurrent_variants.h"

namespace onegpu::kernels {

static_assert(recurrent::kVariants.push_constants_are("step.", sizeof(RecurrentPush)));
static_assert(recurrent::kVariants.push_constants_are("sequence.", sizeof(RecurrentPush)));
static_assert(recurrent::kVariants.push_constants_are("persistent.", sizeof(RecurrentPush)));
static_assert(recurrent::kVariants.push_constants_are("setup.", sizeof(RecurrentPush)));
static_assert(recurrent::kVariants.push_constants_are("output.", sizeof(RecurrentPush)));
static_assert(sizeof(RecurrentPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

namespace {

std::span<const std::byte> bytes_of(const RecurrentPush& p) { return std::as_bytes(std::span(&p, 1)); }

// The persistent schedule's matrix product: eight subgroups of exactly 32, full.
constexpr KernelOptions kMatrixOptions{.require_full_subgroups = true, .required_subgroup_size = 32};

// The family's scratch: one buffer, replaced by a larger one when a layer needs more (what an
// encoder recorded keeps the old one alive).
struct OwnScratch {
  std::optional<Buffer<float>> buffer;
  const Buffer<float>& at_least(Device& device, const char* op, const char* name, uint64_t floats) {
    const uint64_t n = floats == 0 ? 1 : floats;
    if (!buffer || buffer->size() < n) {
      if (n * 4 > device.capabilities().max_storage_buffer_range)
        throw UnsupportedError("max_storage_buffer_range",
                               std::string(op) + " " + name + " of " + std::to_string(n * 4) + " bytes",
                               std::to_string(device.capabilities().max_storage_buffer_range));
      buffer.emplace(device.create_buffer<float>(n));
    }
    return *buffer;
  }
};

}  // namespace

struct Recurrent::Impl {
  KernelSet& set;
  Device& device;
  DataType type;
  Gemm gemm;
  RecurrentSchedule schedule;
  bool software;  // a CPU driver: the one-dispatch schedules launch one workgroup
  bool matrix = false;  // the persistent schedule may multiply on cooperative matrices
  uint64_t workgroup_cap = 0;
  bool wide_ok = false;  // the device accepts the matrix product in sixteen subgroups
  uint32_t forced_subgroups = 0;

  bool wide(const RecurrentProblem& pr) const { return wide_ok && recurrent::persistent_wide(pr, forced_subgroups); }
  OwnScratch own_xw, own_state;
  // Where a buffer bound writable may not be bound again (WebGPU): what the step kernels' vector
  // view of the state (binding 7, unread there) binds instead of the state.
  std::optional<Buffer<uint32_t>> state_vector_stand_in;

  // Whether the one-dispatch schedules' kernels run on the device: they have no WGSL (their
  // workgroups wait on each other within a dispatch), so a device without SPIR-V kernels runs the
  // steps as passes.
  static bool one_dispatch_runs(const ComputeCapabilities& caps) {
    return caps.spirv_kernels || (recurrent::kVariants.at("sequence.lstm.f32.rows1.default").has_wgsl() &&
                                  recurrent::kVariants.at("persistent.lstm.f32.scalar.default").has_wgsl());
  }
  static RecurrentSchedule checked_schedule(const ComputeCapabilities& caps, RecurrentSchedule s) {
    if (one_dispatch_runs(caps)) return s;
    if (s == RecurrentSchedule::sequence || s == RecurrentSchedule::persistent)
      throw UnsupportedError("spirv_kernels",
                             std::string("Recurrent ") + (s == RecurrentSchedule::sequence ? "sequence" : "persistent") +
                                 " schedule (SPIR-V only: its workgroups synchronise within a dispatch)",
                             "false");
    return RecurrentSchedule::passes;
  }

  Impl(KernelSet& k, Device& d, DataType t, const RecurrentOptions& o)
      : set(k),
        device(d),
        type(t),
        gemm(d, t, GemmOptions{.mode = o.mode}),
        schedule(checked_schedule(d.capabilities(), o.schedule)),
        software(d.adapter().kind == AdapterKind::software) {
    // From the capabilities and the kernel itself (the build having compiled it, the device
    // accepting subgroups of 32), never from the vendor.
    if (t == DataType::float16 && o.mode == KernelMode::fast &&
        has_subgroup_matrix_shape(d.capabilities(), 16, 16, 16, {DataType::float16, DataType::float32})) {
      try {
        set.kernel(recurrent::kVariants.at("persistent.lstm.f16.coopmat.default"), kMatrixOptions);
        matrix = true;
      } catch (const UnsupportedError&) {
      }
    }
    if (!d.capabilities().aliased_writable_bindings) state_vector_stand_in.emplace(d.create_buffer<uint32_t>(4));
    // ONEGPU_RNN_PERSISTENT_WORKGROUPS: at most this many workgroups in the persistent schedule
    // (tests check that the bits do not depend on it).
    if (auto v = core::env("ONEGPU_RNN_PERSISTENT_WORKGROUPS"); v && !v->empty())
      workgroup_cap = std::strtoull(v->c_str(), nullptr, 10);
    // ONEGPU_RNN_PERSISTENT_SUBGROUPS=8 or 16: the matrix product's subgroups whatever the size
    // (tuning; recurrent::persistent_wide).
    if (auto v = core::env("ONEGPU_RNN_PERSISTENT_SUBGROUPS"); v && !v->empty())
      forced_subgroups = uint32_t(std::strtoul(v->c_str(), nullptr, 10));
    if (matrix) {
      try {
        set.kernel(recurrent::kVariants.at("persistent.lstm.f16.coopmat16.default"), kMatrixOptions);
        wide_ok = true;
      } catch (const UnsupportedError&) {
      }
    }
  }

  struct Named {
    const char* name;
    ByteRange range;
  };

  // Where writable bindings may not alias (WebGPU), each written tensor apart from the buffers
  // bound beside it in one dispatch: the projection scratch from x and w (the Gemm), the state
  // scratch from initial_h and initial_c (the set-up) and from the projection scratch, r, b, p and
  // sequence_lens (the steps), each output from the state scratch and sequence_lens (or r, which
  // the output pass binds in that slot without sequence_lens).
  void check_separate(const char* op, const std::array<Named, 12>& inputs, size_t n_in,
                      const std::array<Named, 5>& outputs, size_t n_out) {
    const ComputeCapabilities& caps = set.caps();
    if (caps.aliased_writable_bindings) return;
    auto find = [&](std::string_view name) -> const Named* {
      for (size_t i = 0; i < n_in; ++i)
        if (name == inputs[i].name) return &inputs[i];
      for (size_t i = 0; i < n_out; ++i)
        if (name == outputs[i].name) return &outputs[i];
      return nullptr;
    };
    auto apart = [&](std::string_view written, std::initializer_list<std::string_view> others) {
      const Named* w = find(written);
      if (w == nullptr) return;
      for (std::string_view o : others)
        if (const Named* other = find(o)) check_separate_buffers(caps, op, w->name, w->range, other->name, other->range);
    };
    apart("xw_scratch", {"x", "w"});
    apart("state_scratch", {"initial_h", "initial_c", "xw_scratch", "r", "b", "p", "sequence_lens"});
    for (const char* out : {"y", "y_h", "y_c"}) apart(out, {"state_scratch", find("sequence_lens") ? "sequence_lens" : "r"});
  }

  ByteRange check_buffer(const char* op, const char* name, const TensorRef& t, uint64_t count) {
    const uint64_t bytes = data_type_size(t.type);
    check_elements(op, name, *t.buffer, t.offset, count, bytes);
    const ByteRange r = tensor_bytes(op, name, t.buffer->id(), t.offset, count, bytes);
    if (r.end > t.buffer->size_bytes())
      throw KernelShapeError(op, name, "the buffer ends inside the tensor's last word (allocate padded_length)");
    check_bindable(op, *t.buffer, set.caps());
    return r;
  }

  const ComputeKernel& kernel(std::string_view name) { return set.kernel(recurrent::kVariants.at(name)); }
  const ComputeKernel& persistent_kernel(const recurrent::Plan& pl) {
    return pl.persistent_matrix ? set.kernel(recurrent::kVariants.at(pl.persistent_kernel), kMatrixOptions)
                                : kernel(pl.persistent_kernel);
  }

  void encode(CommandEncoder& encoder, const RecurrentProblem& pr, const RecurrentTensors& t,
              const RecurrentScratch& scratch) {
    const char* op = recurrent::operation_name(pr.cell);
    if (pr.type != type)
      throw KernelShapeError(
          op, "type",
          std::string(data_type_name(pr.type)) + " is not the family's " + std::string(data_type_name(type)));
    const uint64_t xw_offset = scratch.xw ? scratch.xw_offset : 0;
    const uint64_t state_offset = scratch.state ? scratch.state_offset : 0;
    const recurrent::Operands ops = recurrent::operands_of(t);
    const recurrent::Plan pl = recurrent::plan(pr, ops, xw_offset, state_offset, schedule, software, matrix, workgroup_cap, wide(pr));

    // Buffers: inside their ranges, bindable, outputs overlapping nothing else.
    if (t.x.buffer == nullptr) throw KernelShapeError(op, "x", "no buffer");
    if (t.w.buffer == nullptr) throw KernelShapeError(op, "w", "no buffer");
    if (t.r.buffer == nullptr) throw KernelShapeError(op, "r", "no buffer");
    std::array<Named, 12> inputs{};
    size_t n_in = 0;
    inputs[n_in++] = {"x", check_buffer(op, "x", t.x, pl.x_count)};
    inputs[n_in++] = {"w", check_buffer(op, "w", t.w, pl.w_count)};
    inputs[n_in++] = {"r", check_buffer(op, "r", t.r, pl.r_count)};
    if (ops.has_b) inputs[n_in++] = {"b", check_buffer(op, "b", t.b, pl.b_count)};
    if (ops.has_lens)
      inputs[n_in++] = {"sequence_lens", check_buffer(op, "sequence_lens", t.sequence_lens, pl.lens_count)};
    if (ops.has_initial_h) inputs[n_in++] = {"initial_h", check_buffer(op, "initial_h", t.initial_h, pl.state_count)};
    if (ops.has_initial_c) inputs[n_in++] = {"initial_c", check_buffer(op, "initial_c", t.initial_c, pl.state_count)};
    if (ops.has_p) inputs[n_in++] = {"p", check_buffer(op, "p", t.p, pl.p_count)};
    std::array<Named, 5> outputs{};
    size_t n_out = 0;
    if (ops.has_y) outputs[n_out++] = {"y", check_buffer(op, "y", t.y, pl.y_count)};
    if (ops.has_y_h) outputs[n_out++] = {"y_h", check_buffer(op, "y_h", t.y_h, pl.yh_count)};
    if (ops.has_y_c) outputs[n_out++] = {"y_c", check_buffer(op, "y_c", t.y_c, pl.yh_count)};
    const recurrent::Sizes& s = pl.sizes;
    if (scratch.xw) {
      check_elements(op, "xw_scratch", *scratch.xw, xw_offset, s.xw_length, 4);
      check_bindable(op, *scratch.xw, set.caps());
      outputs[n_out++] = {"xw_scratch", tensor_bytes(op, "xw_scratch", scratch.xw->id(), xw_offset, s.xw_length, 4)};
    }
    if (scratch.state) {
      check_elements(op, "state_scratch", *scratch.state, state_offset, s.state_length, 4);
      check_bindable(op, *scratch.state, set.caps());
      outputs[n_out++] = {"state_scratch",
                          tensor_bytes(op, "state_scratch", scratch.state->id(), state_offset, s.state_length, 4)};
    }
    for (size_t i = 0; i < n_out; ++i) {
      for (size_t k = 0; k < n_in; ++k)
        check_disjoint(op, outputs[i].name, outputs[i].range, inputs[k].name, inputs[k].range);
      for (size_t k = 0; k < i; ++k)
        check_disjoint(op, outputs[i].name, outputs[i].range, outputs[k].name, outputs[k].range);
    }
    check_separate(op, inputs, n_in, outputs, n_out);
    if (pl.nothing) return;

    const Buffer<float>& xw = scratch.xw ? *scratch.xw : own_xw.at_least(device, op, "xw_scratch", s.xw_length);
    const Buffer<float>& state =
        scratch.state ? *scratch.state : own_state.at_least(device, op, "state_scratch", s.state_length);
    const ComputeKernel& setup = kernel(pl.setup);
    const ComputeKernel& output = kernel(pl.output);
    const ComputeKernel* first = s.steps == 0    ? nullptr
                                 : pl.persistent ? &persistent_kernel(pl)
                                 : pl.sequence   ? &kernel(pl.sequence_kernel)
                                                 : &kernel(pl.steps.first);
    const ComputeKernel* second = s.steps > 0 && !pl.sequence && !pl.persistent && !pl.steps.second.empty()
                                      ? &kernel(pl.steps.second)
                                      : nullptr;

    // 1. The projection of every step and direction: Xw[d] = X W[d]^T.
    if (s.xw_rows > 0) {
      GemmProblem g;
      g.m = s.xw_rows, g.n = s.gates * pr.hidden, g.k = pr.input;
      g.transpose_b = true;
      g.batch = s.dirs;
      g.offset_a = t.x.offset, g.offset_b = t.w.offset, g.offset_c = xw_offset;
      g.stride_a = 0, g.stride_b = g.n * g.k, g.stride_c = g.m * g.n;
      gemm.encode(encoder, g, *t.x.buffer, *t.w.buffer, xw);
    }
    const RawBuffer& dummy = *t.r.buffer;
    // 2. The first state.
    {
      RecurrentPush p = pl.push;
      p.r_offset = ops.has_initial_h ? uint32_t(t.initial_h.offset) : 0u;
      p.b_offset = ops.has_initial_c ? uint32_t(t.initial_c.offset) : 0u;
      const BufferBinding b[] = {ops.has_initial_h ? *t.initial_h.buffer : dummy,
                                 ops.has_initial_c ? *t.initial_c.buffer : dummy, BufferBinding(state)};
      const auto group = set.bind(setup, b);
      encoder.begin_compute_pass().dispatch_linear(setup, *group, bytes_of(p), pl.setup_workgroups);
    }
    // 3. The steps: one pass each (two for a GRU with linear_before_reset = 0), or one pass for
    // all of them (the sequence schedule).
    if (s.steps > 0) {
      const RawBuffer& lens = ops.has_lens ? *t.sequence_lens.buffer : dummy;
      const RawBuffer& bias = ops.has_b ? *t.b.buffer : dummy;
      const RawBuffer& peep = ops.has_p ? *t.p.buffer : dummy;
      const BufferBinding state_vectors =
          state_vector_stand_in ? BufferBinding(*state_vector_stand_in) : BufferBinding(state);
      const BufferBinding b[] = {BufferBinding(xw), *t.r.buffer,         bias, peep, lens, BufferBinding(state),
                                 *t.r.buffer,       state_vectors};
      // The persistent kernel reads the state a second time as vectors (binding 6).
      const BufferBinding bp[] = {BufferBinding(xw), *t.r.buffer, bias, peep, lens, BufferBinding(state),
                                  BufferBinding(state)};
      const auto g1 = pl.persistent ? set.bind(*first, bp) : set.bind(*first, b);
      const auto g2 = second ? set.bind(*second, b) : nullptr;
      const uint64_t work = 2 * s.state_units * s.gates * pr.hidden;
      RecurrentPush p = pl.push;
      if (pl.persistent) {
        p.step = uint32_t(s.steps);
        p.kind = uint32_t(pl.persistent_workgroups);
        encoder.begin_compute_pass().dispatch_linear(*first, *g1, bytes_of(p), pl.persistent_workgroups);
        encoder.report_work(work * s.steps);
      } else if (pl.sequence) {
        p.step = uint32_t(s.steps);
        encoder.begin_compute_pass().dispatch_linear(*first, *g1, bytes_of(p), pl.sequence_workgroups);
        encoder.report_work(work * s.steps);
      }
      for (uint64_t step = 0; step < s.steps && !pl.sequence && !pl.persistent; ++step) {
        p.step = uint32_t(step);
        encoder.begin_compute_pass().dispatch_linear(*first, *g1, bytes_of(p), pl.first_workgroups);
        if (second) encoder.begin_compute_pass().dispatch_linear(*second, *g2, bytes_of(p), pl.second_workgroups);
        encoder.report_work(work);
      }
    }
    // 4. The outputs.
    const auto out = [&](const TensorRef& o, uint32_t kind, uint64_t count) {
      RecurrentPush p = pl.push;
      p.kind = kind;
      p.step = uint32_t(s.steps);
      p.out_offset = uint32_t(o.offset);
      const uint64_t items = type == DataType::float16 ? ((o.offset + count + 1) >> 1) - (o.offset >> 1) : count;
      if (items == 0) return;
      const BufferBinding b[] = {BufferBinding(state), ops.has_lens ? *t.sequence_lens.buffer : dummy, *o.buffer};
      const auto group = set.bind(output, b);
      encoder.begin_compute_pass().dispatch_linear(output, *group, bytes_of(p),
                                                   (items + OG_RNN_WORKGROUP - 1) / OG_RNN_WORKGROUP);
    };
    if (ops.has_y) out(t.y, OG_RNN_OUT_Y, pl.y_count);
    if (ops.has_y_h) out(t.y_h, OG_RNN_OUT_YH, pl.yh_count);
    if (ops.has_y_c) out(t.y_c, OG_RNN_OUT_YC, pl.yh_count);
  }
};

Recurrent::Recurrent(Device& device, DataType type, RecurrentOptions options)
    : KernelFamily(device, options.max_cached_bind_groups) {
  if (type != DataType::float32 && type != DataType::float16)
    throw UnsupportedError("Recurrent element type", "float32 or float16", std::string(data_type_name(type)));
  impl_ = std::make_unique<Impl>(kernels(), device, type, options);
}
Recurrent::~Recurrent() = default;
Recurrent::Recurrent(Recurrent&&) noexcept = default;
Recurrent& Recurrent::operator=(Recurrent&&) noexcept = default;

void Recurrent::encode(CommandEncoder& encoder, const RecurrentProblem& problem, const RecurrentTensors& tensors,
                       const RecurrentScratch& scratch) {
  impl_->encode(encoder, problem, tensors, scratch);
}

uint64_t Recurrent::xw_length(const RecurrentProblem& problem) { return recurrent::sizes(problem).xw_length; }
uint64_t Recurrent::state_length(const RecurrentProblem& problem) { return recurrent::sizes(problem).state_length; }

std::string Recurrent::variant(const RecurrentProblem& problem) const {
  if (recurrent::runs_persistent(problem, impl_->schedule, impl_->software, impl_->matrix))
    return std::string(recurrent::persistent_variant(problem, impl_->matrix, impl_->wide(problem)));
  if (recurrent::runs_as_sequence(problem, impl_->schedule, impl_->software))
    return std::string(recurrent::sequence_variant(problem));
  const recurrent::StepVariants v = recurrent::step_variants(problem);
  return v.second.empty() ? std::string(v.first) : std::string(v.first) + "+" + std::string(v.second);
}

DataType Recurrent::element_type() const { return impl_->type; }
uint64_t Recurrent::bind_groups_created() const {
  return KernelFamily::bind_groups_created() + impl_->gemm.bind_groups_created();
}
void Recurrent::release_bindings() {
  KernelFamily::release_bindings();
  impl_->gemm.release_bindings();
}

}  // namespace onegpu::kernels
