// IntegerGemm: the packed-dot choice at construction, and each encode in its steps (check, plan,
// push constants, record). The decisions live in integer_gemm_plan.cpp.
#include "onegpu/kernels/integer_gemm.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>
#include <vector>

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/common/matrix_hardware.h"
#include "core/env.h"
#include "kernels/integer_gemm/integer_gemm_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

namespace ig = integer_gemm;

namespace {

std::string s(uint64_t v) { return std::to_string(v); }

// The cooperative-matrix kernel's four subgroups are full and 32 wide.
constexpr KernelOptions kCoopOptions{.require_full_subgroups = true, .required_subgroup_size = 32};
constexpr KernelOptions kCoop2Options{.require_full_subgroups = true};

// What the workgroup-scope tile's store needs besides the shape.
ig::Extras extras_of(const IntegerGemmZeroPoints& zp, const IntegerGemmPush& push) {
  return {.zero_points = zp.a.buffer || zp.b.buffer || zp.a.value != 0 || zp.b.value != 0,
          .epilogue = (push.flags & (OG_IG_INT_BIAS | OG_IG_OUT_FLOAT)) != 0u};
}

int32_t type_min(bool is_signed) { return is_signed ? -128 : 0; }
int32_t type_max(bool is_signed) { return is_signed ? 127 : 255; }

// An auxiliary input (zero point, scale, bias) as the checks and bindings see it.
struct Aux {
  const RawBuffer* buffer = nullptr;
  uint64_t first = 0, count = 0, element_bytes = 1;
  const char* name = "";
};

// Throws unless the aux input's elements lie in its buffer and its offset fits the push constants.
void check_aux(const char* op, const Aux& x, const ComputeCapabilities& caps) {
  if (!x.buffer) return;
  if (!*x.buffer) throw KernelShapeError(op, x.name, "the buffer is empty");
  const uint64_t held = x.buffer->size_bytes() / x.element_bytes;
  if (x.first > held || x.count > held - x.first)
    throw KernelShapeError(op, x.name, "needs " + s(x.count) + " elements from offset " + s(x.first) +
                                           ", the buffer holds " + s(held));
  if (x.first + x.count > UINT32_MAX) throw KernelShapeError(op, x.name, "offset " + s(x.first) + " is not below 2^32");
  check_bindable(op, *x.buffer, caps);
}

// Every input besides A and B (two zero points, a scale or multiplier, two biases), in place: a
// warm encode allocates nothing.
struct AuxList {
  std::array<Aux, 5> items{};
  size_t size = 0;
  void add(const Aux& a) { items[size++] = a; }
  std::span<const Aux> view() const { return std::span(items.data(), size); }
};

uint32_t zero_mode(const ZeroPoint& z) {
  if (!z.buffer) return OG_IG_ZP_VALUE;
  return z.per_channel ? OG_IG_ZP_PER_CHANNEL : OG_IG_ZP_SCALAR;
}

}  // namespace

struct IntegerGemm::Impl {
  KernelSet& set;
  Device* device;
  IntegerGemmOptions options;
  ig::Config config;
  Buffer<uint32_t> dummy;      // bound where an input is absent
  Buffer<int32_t> scratch;     // the requantized form's sums (grows on demand)
  Buffer<int32_t> sums;        // the sums pass's records, two words each (grows on demand)
  Buffer<int32_t> partials;    // the rows kernel's slices of k (grows on demand)

  Impl(KernelSet& k, Device& d, IntegerGemmOptions o)
      : set(k), device(&d), options(o), dummy(d.create_buffer<uint32_t>(4)) {
    config.small_tiles = o.allow_small_tiles;
    config.skinny = o.allow_skinny;
    // ONEGPU_INT8_ROWS_SPLITS asks the rows kernel for that many slices of k (tuning on a new GPU).
    if (auto v = core::env("ONEGPU_INT8_ROWS_SPLITS"); v && !v->empty())
      config.rows_splits = uint32_t(std::min<unsigned long>(std::strtoul(v->c_str(), nullptr, 10), 1u << 16));
    if (o.allow_matrix_hardware) choose_coop2_tile();
    if (o.allow_matrix_hardware && ig::device_has_coopmat_shape(d.capabilities())) {
      const Variant candidates[] = {ig::coopmat_variant()};
      config.coopmat = first_accepted(std::span<const Variant>(candidates), [&](const Variant& v) {
                         set.kernel(v, kCoopOptions);
                       }).has_value();
    }
    if (o.allow_packed_dot && d.capabilities().features.has(ShaderFeature::integer_dot_product)) {
      // Built and accepted by the device, or the portable tile serves.
      const Variant candidates[] = {ig::variants().at("integer_gemm.dot4.64x64x32")};
      config.packed_dot = first_accepted(std::span<const Variant>(candidates), [&](const Variant& v) { set.kernel(v); }).has_value();
      if (config.packed_dot && o.allow_skinny) choose_rows_kernel();
    }
  }

  // Once, from the device's capabilities and the pipeline's acceptance, never from the vendor.
  // ONEGPU_INT8_COOPMAT2_TILE names a tile (or its number in declaration order) for tuning on a new
  // GPU; one it does not name: none.
  void choose_coop2_tile() {
    const ig::Coop2Tile* forced = nullptr;
    if (auto v = core::env("ONEGPU_INT8_COOPMAT2_TILE"); v && !v->empty()) {
      forced = ig::coop2_tile(*v);
      if (!forced) return;
    }
    const std::vector<const ig::Coop2Tile*> candidates = ig::coop2_candidates(device->capabilities(), forced);
    const auto chosen = first_accepted(std::span(candidates), [&](const ig::Coop2Tile* t) {
      set.kernel(ig::variants().at(std::string(t->name) + ".a_mk.b_kn.ss.direct"), kCoop2Options);
    });
    if (chosen) config.coop2 = candidates[*chosen];
  }

  // The rows kernels need 28 KiB of workgroup memory: the default one if the device accepts it,
  // else the other, else the tiles serve. ONEGPU_INT8_ROWS_KERNEL names one (or its number) for
  // tuning; one it does not name: none.
  void choose_rows_kernel() {
    std::vector<const ig::RowsKernel*> candidates;
    if (auto v = core::env("ONEGPU_INT8_ROWS_KERNEL"); v && !v->empty()) {
      if (const ig::RowsKernel* k = ig::rows_kernel(*v)) candidates.push_back(k);
    } else {
      candidates.push_back(ig::rows_kernel(ig::kDefaultRowsKernel));
      for (const ig::RowsKernel& k : ig::rows_kernels())
        if (&k != candidates[0]) candidates.push_back(&k);
    }
    const auto chosen = first_accepted(std::span<const ig::RowsKernel* const>(candidates),
                                       [&](const ig::RowsKernel* k) { set.kernel(ig::variant_of(*k)); });
    if (chosen) config.rows = candidates[*chosen];
  }

  // The plan, its pipeline built before anything is recorded: a device that rejects the
  // workgroup-scope tile's epilogue forms (the shifted operands, the per-element epilogue) keeps the
  // tile for the direct int8 x int8 store only, and the other products go to the other kernels.
  ig::Plan checked_plan(const ig::Shape& x, const ig::Extras& extras) {
    ig::Plan p = ig::plan(x, config, extras);
    if (p.kernel != ig::Kernel::coopmat2) return p;
    try {
      kernel_of(p.kernel, p.variant);
    } catch (const UnsupportedError&) {
      if (!config.coop2_epilogue || p.variant.name().ends_with(".direct")) throw;
      config.coop2_epilogue = false;
      p = ig::plan(x, config, extras);
    }
    return p;
  }

  const ComputeKernel& kernel_of(ig::Kernel kind, const Variant& v) {
    if (kind == ig::Kernel::coopmat) return set.kernel(v, kCoopOptions);
    if (kind == ig::Kernel::coopmat2) return set.kernel(v, kCoop2Options);
    return set.kernel(v);
  }

  // Checks common to every form: the shape, A, B, the zero points, the output's bytes and its
  // overlap with every input. `out_bytes`: element size of the output.
  ig::Shape check(const char* op, const IntegerGemmProblem& problem, const RawBuffer& a, const RawBuffer& b,
                  const IntegerGemmZeroPoints& zp, const RawBuffer& out, uint64_t out_bytes, const char* out_name,
                  const AuxList& extra) {
    const ComputeCapabilities& caps = device->capabilities();
    const ig::Shape x = ig::resolve(problem, op);
    AuxList aux;
    if (!a) throw KernelShapeError(op, "a", "the buffer is empty");
    if (!b) throw KernelShapeError(op, "b", "the buffer is empty");
    if (!out) throw KernelShapeError(op, out_name, "the buffer is empty");
    auto fits = [&](const char* name, const ig::Extent& e, uint64_t bytes, uint64_t element_bytes) {
      if (e.end > e.first && e.end > bytes / element_bytes)
        throw KernelShapeError(op, name, "needs elements up to " + s(e.end) + ", the buffer holds " + s(bytes / element_bytes));
    };
    fits("a", ig::extent_a(x), a.size_bytes(), 1);
    fits("b", ig::extent_b(x), b.size_bytes(), 1);
    fits(out_name, ig::extent_c(x), out.size_bytes(), out_bytes);
    auto zero = [&](const ZeroPoint& z, bool is_signed, uint64_t channels, const char* name) {
      if (!z.buffer) {
        if (z.value < type_min(is_signed) || z.value > type_max(is_signed))
          throw KernelShapeError(op, name, std::to_string(z.value) + " is outside " + (is_signed ? "int8" : "uint8"));
        return;
      }
      aux.add({z.buffer, z.offset, z.per_channel ? channels : 1, 1, name});
    };
    zero(zp.a, x.a_signed, x.m, "zero_point_a");
    zero(zp.b, x.b_signed, x.n, "zero_point_b");
    for (const Aux& e : extra.view()) aux.add(e);
    for (const Aux& e : aux.view()) check_aux(op, e, caps);
    // The output is written while every input is read: no byte of them may share a word with it.
    auto range = [&](const char* name, uint64_t id, const ig::Extent& e, uint64_t element_bytes) {
      return tensor_bytes(op, name, id, e.first, e.end - e.first, element_bytes);
    };
    const ByteRange o = range(out_name, out.id(), ig::extent_c(x), out_bytes);
    check_disjoint(op, out_name, o, "a", range("a", a.id(), ig::extent_a(x), 1));
    check_disjoint(op, out_name, o, "b", range("b", b.id(), ig::extent_b(x), 1));
    for (const Aux& e : aux.view())
      check_disjoint(op, out_name, o, e.name, tensor_bytes(op, e.name, e.buffer->id(), e.first, e.count, e.element_bytes));
    return x;
  }

  ig::BoundRange bind_range(const char* op, const char* name, const ig::Extent& e, uint64_t element_bytes,
                            uint64_t buffer_bytes) {
    const ComputeCapabilities& caps = device->capabilities();
    const uint64_t align = std::max<uint64_t>(16, caps.min_storage_buffer_offset_alignment);
    const ig::BoundRange r = e.end > e.first ? ig::bound_range(e, element_bytes, align, buffer_bytes)
                                             : ig::BoundRange{0, std::min<uint64_t>(buffer_bytes, 16), 0};
    if (r.size_bytes > caps.max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range", std::string(op) + " operand " + name + " of " + s(r.size_bytes) + " bytes",
                             s(caps.max_storage_buffer_range));
    if (r.size_bytes >= (uint64_t(1) << 32))
      throw UnsupportedError(std::string(op) + " 32-bit indices", std::string("operand ") + name + " below 2^32 bytes",
                             s(r.size_bytes));
    return r;
  }

  // Records the sums into `c` (the caller's C, or the scratch): one pass, or, over the device's
  // submission budget, one per piece (each checked before any is recorded, each reported to the
  // encoder, which starts a new submission between them once the budget is passed).
  void record_sums(const char* op, CommandEncoder& encoder, const ig::Shape& x, const RawBuffer& a, const RawBuffer& b,
                   const IntegerGemmZeroPoints& zp, const RawBuffer& c, const IntegerGemmPush& push,
                   const RawBuffer* scale, const RawBuffer* int_bias, const RawBuffer* bias) {
    const ig::Plan whole = checked_plan(x, extras_of(zp, push));
    const uint64_t budget = device->submission_work_budget();
    if (budget == 0 || ig::work(x) <= budget) {
      record_piece(op, encoder, whole, {x, 0}, a, b, zp, c, push, scale, int_bias, bias, false);
      return;
    }
    const std::vector<ig::Piece> list = ig::pieces(x, budget);
    for (const ig::Piece& piece : list) record_piece(op, encoder, whole, piece, a, b, zp, c, push, scale, int_bias, bias, true);
    for (const ig::Piece& piece : list) record_piece(op, encoder, whole, piece, a, b, zp, c, push, scale, int_bias, bias, false);
  }

  // Checks one piece (check_only) or records it.
  void record_piece(const char* op, CommandEncoder& encoder, const ig::Plan& plan, const ig::Piece& piece, const RawBuffer& a, const RawBuffer& b, const IntegerGemmZeroPoints& zp,
                    const RawBuffer& c, IntegerGemmPush push, const RawBuffer* scale, const RawBuffer* int_bias,
                    const RawBuffer* bias, bool check_only) {
    const ig::Shape& x = piece.shape;
    const ig::Kernel kind = plan.kernel;
    const ig::RowsSplit split = kind == ig::Kernel::rows ? ig::rows_split(x, *plan.rows, config.rows_splits) : ig::RowsSplit{};
    const Grid grid = ig::grid_of(kind, x, plan.tile, plan.rows, split);
    ig::check_grid(grid, device->capabilities(), op);
    const uint64_t partial_words = split.splits > 1 ? uint64_t(split.splits) * x.batch * x.m * x.n : 0;  // below 2^31
    if (partial_words * 4 > device->capabilities().max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range", std::string(op) + " partial sums of " + s(partial_words * 4) + " bytes",
                             s(device->capabilities().max_storage_buffer_range));
    const uint64_t records = x.batch * (x.m + x.n);  // the sums pass's, each below 2^32 * 2
    if (plan.sums) {
      ig::check_grid(ig::sums_grid(x), device->capabilities(), op);
      if (records * 8 > device->capabilities().max_storage_buffer_range || records >= (uint64_t(1) << 31))
        throw UnsupportedError("max_storage_buffer_range", std::string(op) + " zero-point sums of " + s(records * 8) + " bytes",
                               s(device->capabilities().max_storage_buffer_range));
    }
    const ig::BoundRange ra = bind_range(op, "a", ig::extent_a(x), 1, a.size_bytes());
    const ig::BoundRange rb = bind_range(op, "b", ig::extent_b(x), 1, b.size_bytes());
    const ig::BoundRange rc = bind_range(op, "c", ig::extent_c(x), 4, c.size_bytes());
    if (check_only) return;
    push.m = uint32_t(x.m), push.n = uint32_t(x.n), push.k = uint32_t(x.k), push.batch = uint32_t(x.batch);
    push.lda = uint32_t(x.lda), push.ldb = uint32_t(x.ldb), push.ldc = uint32_t(x.ldc);
    push.offset_a = uint32_t(x.offset_a - ra.base_elements);
    push.offset_b = uint32_t(x.offset_b - rb.base_elements);
    push.offset_c = uint32_t(x.offset_c - rc.base_elements);
    push.stride_a = x.batch > 1 ? uint32_t(x.stride_a) : 0;
    push.stride_b = x.batch > 1 ? uint32_t(x.stride_b) : 0;
    push.stride_c = x.batch > 1 ? uint32_t(x.stride_c) : 0;
    const bool a_words = x.lda % 4 == 0 && push.offset_a % 4 == 0 && push.stride_a % 4 == 0;
    const bool b_words = x.ldb % 4 == 0 && push.offset_b % 4 == 0 && push.stride_b % 4 == 0;
    push.flags |= (x.a_signed ? OG_IG_A_SIGNED : 0u) | (x.b_signed ? OG_IG_B_SIGNED : 0u) |
                  (x.trans_a ? OG_IG_TRANS_A : 0u) | (x.trans_b ? OG_IG_TRANS_B : 0u) |
                  (zero_mode(zp.a) << OG_IG_ZA_SHIFT) | (zero_mode(zp.b) << OG_IG_ZB_SHIFT) |
                  (a_words ? OG_IG_A_WORDS : 0u) | (b_words ? OG_IG_B_WORDS : 0u);
    push.zero_a = uint32_t(zp.a.value), push.zero_b = uint32_t(zp.b.value);
    push.zero_a_offset = zp.a.buffer ? uint32_t(zp.a.offset + (zp.a.per_channel ? piece.first_row : 0)) : 0;
    push.zero_b_offset = zp.b.buffer ? uint32_t(zp.b.offset) : 0;
    if (plan.sums) {
      // The records the tile's epilogue reads: zero points and operand sums per row and column.
      if (!sums || sums.size() < 2 * records) sums = device->create_buffer<int32_t>(2 * records);
      IntegerGemmPush q = push;
      q.sums_per_batch = uint32_t(x.m + x.n);
      const ComputeKernel& pass = set.kernel(ig::sums_variant());
      const BufferBinding inputs[] = {
          BufferBinding(a, ra.offset_bytes, ra.size_bytes),
          BufferBinding(b, rb.offset_bytes, rb.size_bytes),
          BufferBinding(sums, 0, 8 * records),
          BufferBinding(zp.a.buffer ? *zp.a.buffer : static_cast<const RawBuffer&>(dummy)),
          BufferBinding(zp.b.buffer ? *zp.b.buffer : static_cast<const RawBuffer&>(dummy)),
          BufferBinding(dummy), BufferBinding(dummy), BufferBinding(dummy)};
      const auto group = set.bind(pass, declared_bindings(pass, inputs).span());
      encoder.begin_compute_pass().dispatch(pass, *group, q, ig::sums_grid(x));
      push.flags |= OG_IG_SUMS;
      push.sums_per_batch = q.sums_per_batch;
    }
    push.splits = split.splits, push.split_k = split.split_k;
    if (partial_words != 0) {
      if (!partials || partials.size() < partial_words) partials = device->create_buffer<int32_t>(partial_words);
      push.flags |= OG_IG_PARTIAL;
    }
    const ComputeKernel& kernel = kernel_of(kind, plan.variant);
    const BufferBinding bindings[] = {
        BufferBinding(a, ra.offset_bytes, ra.size_bytes),
        BufferBinding(b, rb.offset_bytes, rb.size_bytes),
        partial_words != 0 ? BufferBinding(partials, 0, partial_words * 4) : BufferBinding(c, rc.offset_bytes, rc.size_bytes),
        BufferBinding(plan.sums ? static_cast<const RawBuffer&>(sums)
                                : zp.a.buffer ? *zp.a.buffer : static_cast<const RawBuffer&>(dummy)),
        BufferBinding(zp.b.buffer ? *zp.b.buffer : static_cast<const RawBuffer&>(dummy)),
        BufferBinding(scale ? *scale : static_cast<const RawBuffer&>(dummy)),
        BufferBinding(int_bias ? *int_bias : static_cast<const RawBuffer&>(dummy)),
        BufferBinding(bias ? *bias : static_cast<const RawBuffer&>(dummy))};
    const auto group = set.bind(kernel, declared_bindings(kernel, bindings).span());
    encoder.begin_compute_pass().dispatch(kernel, *group, push, grid);
    if (partial_words != 0) {
      // The slices' sums added and stored: the partial buffer read where A was bound.
      push.flags &= ~OG_IG_PARTIAL;
      const ComputeKernel& finish = set.kernel(ig::rows_finish_variant());
      const BufferBinding finishing[] = {
          BufferBinding(partials, 0, partial_words * 4), BufferBinding(dummy),
          BufferBinding(c, rc.offset_bytes, rc.size_bytes), BufferBinding(dummy), BufferBinding(dummy),
          BufferBinding(scale ? *scale : static_cast<const RawBuffer&>(dummy)),
          BufferBinding(int_bias ? *int_bias : static_cast<const RawBuffer&>(dummy)),
          BufferBinding(bias ? *bias : static_cast<const RawBuffer&>(dummy))};
      const auto finish_group = set.bind(finish, declared_bindings(finish, finishing).span());
      const uint64_t outputs = x.batch * x.m * x.n;
      encoder.begin_compute_pass().dispatch_linear(finish, *finish_group, std::as_bytes(std::span(&push, 1)),
                                                   (outputs + 255) / 256);
    }
    encoder.report_work(ig::work(x));
  }
};

IntegerGemm::IntegerGemm(Device& device, IntegerGemmOptions options)
    : KernelFamily(device, options.max_cached_bind_groups),
      impl_(std::make_unique<Impl>(kernels(), device, options)) {}
IntegerGemm::~IntegerGemm() = default;
IntegerGemm::IntegerGemm(IntegerGemm&&) noexcept = default;
IntegerGemm& IntegerGemm::operator=(IntegerGemm&&) noexcept = default;

bool IntegerGemm::packed_dot() const { return impl_->config.packed_dot; }
bool IntegerGemm::matrix_hardware() const { return impl_->config.coopmat; }
std::string IntegerGemm::workgroup_tile() const {
  return impl_->config.coop2 ? std::string(impl_->config.coop2->name) : std::string();
}

std::string IntegerGemm::variant(const IntegerGemmProblem& problem) const {
  return std::string(ig::plan(ig::resolve(problem, ig::kMatMulInteger), impl_->config).variant.name());
}

namespace {
Aux int_bias_aux(const Buffer<int32_t>* b, uint64_t offset, uint64_t n) { return {b, offset, n, 4, "int_bias"}; }
Aux factor_aux(const ColumnFactor& f, uint64_t n, const char* name) {
  return {f.buffer, f.offset, f.per_column ? n : 1, 4, name};
}
uint32_t factor_flags(const ColumnFactor& f, uint32_t buffer_bit, uint32_t per_col_bit) {
  return f.buffer ? buffer_bit | (f.per_column ? per_col_bit : 0u) : 0u;
}
}  // namespace

void IntegerGemm::encode(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a,
                         const RawBuffer& b, const IntegerGemmZeroPoints& zero_points, const Buffer<int32_t>& c,
                         const IntegerGemmInt32Output& output) {
  Impl& im = *impl_;
  const char* op = ig::kMatMulInteger;
  AuxList extra;
  if (output.int_bias) extra.add(int_bias_aux(output.int_bias, output.int_bias_offset, problem.n));
  const ig::Shape x = im.check(op, problem, a, b, zero_points, c, 4, "c", extra);
  if (x.m == 0 || x.n == 0 || x.batch == 0) return;
  IntegerGemmPush push{};
  if (output.int_bias) push.flags |= OG_IG_INT_BIAS, push.int_bias_offset = uint32_t(output.int_bias_offset);
  im.record_sums(op, encoder, x, a, b, zero_points, c, push, nullptr, output.int_bias, nullptr);
}

void IntegerGemm::encode_scaled(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a,
                                const RawBuffer& b, const IntegerGemmZeroPoints& zero_points, const Buffer<float>& c,
                                const IntegerGemmScaledOutput& output) {
  Impl& im = *impl_;
  const char* op = ig::kQLinearMatMul;
  AuxList extra;
  if (output.scale.buffer) extra.add(factor_aux(output.scale, problem.n, "scale"));
  if (output.int_bias) extra.add(int_bias_aux(output.int_bias, output.int_bias_offset, problem.n));
  if (output.bias) extra.add({output.bias, output.bias_offset, problem.n, 4, "bias"});
  const ig::Shape x = im.check(op, problem, a, b, zero_points, c, 4, "c", extra);
  if (x.m == 0 || x.n == 0 || x.batch == 0) return;
  IntegerGemmPush push{};
  push.flags = OG_IG_OUT_FLOAT | factor_flags(output.scale, OG_IG_SCALE_BUFFER, OG_IG_SCALE_PER_COL);
  push.scale = output.scale.value;
  push.scale_offset = output.scale.buffer ? uint32_t(output.scale.offset) : 0;
  if (output.int_bias) push.flags |= OG_IG_INT_BIAS, push.int_bias_offset = uint32_t(output.int_bias_offset);
  if (output.bias) push.flags |= OG_IG_FLOAT_BIAS, push.bias_offset = uint32_t(output.bias_offset);
  im.record_sums(op, encoder, x, a, b, zero_points, c, push, output.scale.buffer, output.int_bias, output.bias);
}

void IntegerGemm::encode_requantized(CommandEncoder& encoder, const IntegerGemmProblem& problem, const RawBuffer& a,
                                     const RawBuffer& b, const IntegerGemmZeroPoints& zero_points, const RawBuffer& y,
                                     const IntegerGemmRequantizedOutput& output) {
  Impl& im = *impl_;
  const char* op = ig::kQLinearMatMul;
  if (output.type != DataType::uint8 && output.type != DataType::int8)
    throw UnsupportedError(std::string(op) + " output type", "uint8 or int8", std::string(data_type_name(output.type)));
  const bool y_signed = output.type == DataType::int8;
  if (output.zero_point < type_min(y_signed) || output.zero_point > type_max(y_signed))
    throw KernelShapeError(op, "zero_point_y", std::to_string(output.zero_point) + " is outside " +
                                                   std::string(data_type_name(output.type)));
  AuxList extra;
  if (output.multiplier.buffer) extra.add(factor_aux(output.multiplier, problem.n, "multiplier"));
  if (output.int_bias) extra.add(int_bias_aux(output.int_bias, output.int_bias_offset, problem.n));
  const ig::Shape x = im.check(op, problem, a, b, zero_points, y, 1, "y", extra);
  if (x.m == 0 || x.n == 0 || x.batch == 0) return;
  // Sums (bias included) into the scratch, dense batch x m x n.
  const uint64_t sums = x.batch * x.m * x.n;  // each below 2^31: fits 64 bits
  if (sums >= (uint64_t(1) << 31))
    throw UnsupportedError(std::string(op) + " 32-bit indices", "batch x m x n below 2^31", s(sums));
  const uint64_t threads = x.batch * x.m * ig::words_per_row(x.n);
  if (threads > UINT32_MAX)
    throw UnsupportedError(std::string(op) + " 32-bit indices", "batch x m x words per row below 2^32", s(threads));
  const ComputeCapabilities& caps = im.device->capabilities();
  const uint64_t align = std::max<uint64_t>(16, caps.min_storage_buffer_offset_alignment);
  const ig::BoundRange ry = ig::bound_range(ig::extent_c(x), 1, align, y.size_bytes());
  if (ry.size_bytes > caps.max_storage_buffer_range)
    throw UnsupportedError("max_storage_buffer_range", std::string(op) + " output y of " + s(ry.size_bytes) + " bytes",
                           s(caps.max_storage_buffer_range));
  if (!im.scratch || im.scratch.size() < sums) {
    const uint64_t need = sums * 4;
    if (need > caps.max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range", std::string(op) + " scratch of " + s(need) + " bytes",
                             s(caps.max_storage_buffer_range));
  }
  ig::Shape inner = x;
  inner.ldc = x.n, inner.offset_c = 0, inner.stride_c = x.m * x.n;
  if (!im.scratch || im.scratch.size() < sums) im.scratch = im.device->create_buffer<int32_t>(sums);
  IntegerGemmPush push{};
  if (output.int_bias) push.flags |= OG_IG_INT_BIAS, push.int_bias_offset = uint32_t(output.int_bias_offset);
  im.record_sums(op, encoder, inner, a, b, zero_points, im.scratch, push, nullptr, output.int_bias, nullptr);
  // Then the bytes of Y.
  RequantizePush q{};
  q.m = uint32_t(x.m), q.n = uint32_t(x.n), q.batch = uint32_t(x.batch);
  q.ldy = uint32_t(x.ldc), q.offset_y = uint32_t(x.offset_c - ry.base_elements);
  q.stride_y = x.batch > 1 ? uint32_t(x.stride_c) : 0;
  q.flags = (y_signed ? OG_IG_Y_SIGNED : 0u) | factor_flags(output.multiplier, OG_IG_MUL_BUFFER, OG_IG_MUL_PER_COL);
  q.words_per_row = uint32_t(ig::words_per_row(x.n));
  q.multiplier = output.multiplier.value;
  q.multiplier_offset = output.multiplier.buffer ? uint32_t(output.multiplier.offset) : 0;
  q.zero_point = uint32_t(output.zero_point);
  q.threads = uint32_t(threads);
  const ComputeKernel& kernel = im.set.kernel(ig::requantize_variant());
  const BufferBinding bindings[] = {BufferBinding(im.scratch, 0, sums * 4), BufferBinding(y, ry.offset_bytes, ry.size_bytes),
                                    BufferBinding(output.multiplier.buffer ? static_cast<const RawBuffer&>(*output.multiplier.buffer) : im.dummy)};
  const auto group = im.set.bind(kernel, bindings);
  encoder.begin_compute_pass().dispatch_linear(kernel, *group, std::as_bytes(std::span(&q, 1)), (threads + 255) / 256);
}

}  // namespace onegpu::kernels
