// Gemm: the matrix-hardware choice at construction, and encode in its steps (check, plan, push
// constants, record). The decisions live in gemm_plan.cpp.
#include "onegpu/kernels/gemm.h"

#include <cstdlib>
#include <optional>

#include "core/env.h"
#include "kernels/common/family.h"
#include "kernels/common/matrix_hardware.h"
#include "kernels/gemm/gemm_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

namespace {

bool gemm_type(DataType t) { return t == DataType::float32 || t == DataType::float16 || t == DataType::bfloat16; }

DataType checked_type(DataType t) {
  if (!gemm_type(t))
    throw UnsupportedError("Gemm element type", "float32, float16 or bfloat16", std::string(data_type_name(t)));
  return t;
}

// The matrix kernels need full subgroups, the subgroup-scope ones subgroups of exactly 32.
KernelOptions coop_options(const gemm::CoopTile& t) {
  return {.require_full_subgroups = true, .required_subgroup_size = t.workgroup_scope ? 0u : 32u};
}

}  // namespace

struct Gemm::Impl {
  KernelSet& set;  // pipelines by variant name, bind groups
  Device* device;
  GemmOptions options;
  gemm::Config config;
  gemm::Config float16;  // float32 products on float16 hardware: the float16 product's configuration
  Buffer<float> no_bias;
  Buffer<float> scratch;  // split k: the range planes (allocated on first use)
  // Float32 products on float16 hardware: the parts of A and B, the float16 product and the
  // exponents, each grown on need (a recorded submission keeps the buffers it bound).
  Buffer<float> split_a, split_b, split_d, split_exp;

  Impl(KernelSet& k, Device& d, DataType t, GemmOptions o)
      : set(k), device(&d), options(o), no_bias(d.create_buffer<float>(4)) {
    config.type = t;
    config.mode = o.mode;
    config.max_workgroup_memory = d.capabilities().max_workgroup_memory_bytes;
    if ((t == DataType::float16 || t == DataType::bfloat16) && o.mode == KernelMode::fast && o.allow_matrix_hardware)
      choose_matrix_tile(config);
    // ONEGPU_GEMM_COOPMAT_SPLITS: k ranges for the matrix kernels instead of the policy's, for tuning
    // (1: none).
    if (auto v = core::env("ONEGPU_GEMM_COOPMAT_SPLITS"); v && !v->empty())
      config.coop_splits = uint32_t(std::strtoul(v->c_str(), nullptr, 10));
    // Few rows with B stored K x N and 16-bit operands, for tuning: ONEGPU_GEMM_ROWS_KN picks the
    // kernel (old, kn64, kn256), ONEGPU_GEMM_ROWS_KN_SPLITS the k ranges of the 16-byte-word ones
    // (1: none).
    if (auto v = core::env("ONEGPU_GEMM_ROWS_KN"); v) config.rows_kn = gemm::parse_rows_kn(*v);
    if (auto v = core::env("ONEGPU_GEMM_ROWS_KN_SPLITS"); v && !v->empty())
      config.rows_kn_splits = uint32_t(std::strtoul(v->c_str(), nullptr, 10));
    if (t == DataType::float32 && o.mode == KernelMode::fast && o.float32_products != Float32Products::exact) {
      float16 = config;
      float16.type = DataType::float16;
      if (o.allow_matrix_hardware) choose_matrix_tile(float16);
      // ONEGPU_GEMM_F32SPLIT_TILE: 64x128 or 128x128 for the products' small grids, for measurement.
      float16 = gemm::split_products_config(
          float16, gemm::split_products_tile(core::env("ONEGPU_GEMM_F32SPLIT_TILE").value_or("")));
      config.float32_split = gemm::float32_split(t, o.mode, o.float32_products, float16.coop != nullptr);
    }
  }

  // Once, from the device's capabilities and each kernel's own requirements (a pipeline the build
  // lacks or the device rejects throws UnsupportedError and the next candidate serves); never from
  // the vendor. ONEGPU_GEMM_COOPMAT_TILE names a tile (or its number in declaration order) for
  // tuning on a new GPU (one it does not name: none); a bfloat16 Gemm takes the bfloat16 tile of the
  // named tile's shape, a float16 one the float16 tile.
  void choose_matrix_tile(gemm::Config& c) {
    const gemm::CoopTile* forced = nullptr;
    if (auto v = core::env("ONEGPU_GEMM_COOPMAT_TILE"); v && !v->empty()) {
      forced = gemm::coop_tile(*v);
      if (!forced) return;
    }
    const std::vector<const gemm::CoopTile*> candidates = gemm::coop_candidates(device->capabilities(), c.type, forced);
    // The other orientations, and the companions of the same workgroup size, have the same
    // requirements.
    const auto make = [&](const gemm::CoopTile* t) { set.kernel(t->kernel(0, false), coop_options(*t)); };
    const auto chosen = first_accepted(std::span(candidates), make);
    if (!chosen) return;
    c.coop = candidates[*chosen];
    // The unsplit small-grid companion has a workgroup size of its own: small grids take it only
    // where the device lists its shape and accepts its pipeline.
    const gemm::CoopTile* unsplit = gemm::unsplit_companion(*c.coop);
    bool has_unsplit = unsplit && gemm::device_has_tile(device->capabilities(), *unsplit);
    if (has_unsplit) {
      try {
        make(unsplit);
      } catch (const UnsupportedError&) {
        has_unsplit = false;
      }
    }
    c.unsplit_grid = has_unsplit ? gemm::kSmallGrid : 0;
  }

  const ComputeKernel& kernel(const gemm::Plan& p) {
    return p.coop ? set.kernel(p.variant, coop_options(*p.coop)) : set.kernel(p.variant);
  }

  // A product in pieces under the submission budget: each piece keeps the whole product's plan.
  struct Piece {
    gemm::Shape shape;
    gemm::Plan plan;
    gemm::Bindings bound;
  };
  std::vector<Piece> prepare(const gemm::Shape& s, const gemm::Plan& p, DataType type, const gemm::OperandSizes& sizes);
  void record_pieces(CommandEncoder& encoder, const std::vector<Piece>& pieces, const gemm::Epilogue& epilogue,
                     const RawBuffer& a, const RawBuffer& b, const Buffer<float>& c, const Buffer<float>* bias);
  void record(CommandEncoder& encoder, const gemm::Plan& p, const GemmPush& push, const gemm::Bindings& bound,
              const RawBuffer& a, const RawBuffer& b, const Buffer<float>& c, const Buffer<float>* bias);
  void encode_split(CommandEncoder& encoder, const gemm::Shape& s, const GemmProblem& problem,
                    const gemm::OperandSizes& sizes, const RawBuffer& a, const RawBuffer& b, const Buffer<float>& c,
                    const gemm::Epilogue& epilogue, const Buffer<float>* bias);
};

Gemm::Gemm(Device& device, DataType type, GemmOptions options)
    : KernelFamily(device, options.max_cached_bind_groups),
      impl_(std::make_unique<Impl>(kernels(), device, checked_type(type), options)) {}
Gemm::~Gemm() = default;
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

DataType Gemm::element_type() const { return impl_->config.type; }
KernelMode Gemm::mode() const { return impl_->options.mode; }

std::string Gemm::variant(const GemmProblem& problem, const GemmEpilogue& epilogue) const {
  const gemm::Shape s = gemm::resolve(problem);
  if (impl_->config.float32_split && s.k > 0)
    return gemm::split_variant_name(gemm::split_plan(s, problem, impl_->float16));
  return gemm::variant_name(gemm::plan_for(s, problem, impl_->config, epilogue.activation));
}

namespace {
uint64_t saturating_work(const gemm::Shape& s) {
  uint64_t w = 2;
  for (uint64_t f : {s.m, s.n, s.k, s.batch}) w = f != 0 && w > UINT64_MAX / f ? UINT64_MAX : w * f;
  return w;
}
}  // namespace

void Gemm::encode(CommandEncoder& encoder, const GemmProblem& problem, const RawBuffer& a, const RawBuffer& b,
                  const Buffer<float>& c, const GemmEpilogue& epilogue) {
  Impl& im = *impl_;
  // Check: every argument before anything is recorded.
  const gemm::Shape s = gemm::resolve(problem);
  if (!a) throw KernelShapeError("Gemm", "a", "the buffer is empty");
  if (!b) throw KernelShapeError("Gemm", "b", "the buffer is empty");
  if (!c) throw KernelShapeError("Gemm", "c", "the buffer is empty");
  if (epilogue.bias != nullptr && !*epilogue.bias) throw KernelShapeError("Gemm", "bias", "the buffer is empty");
  gemm::OperandSizes sizes{.a_bytes = a.size_bytes(), .b_bytes = b.size_bytes(), .c_bytes = c.size_bytes()};
  if (epilogue.bias != nullptr) sizes.bias_elements = epilogue.bias->size();
  sizes.bias_offset = epilogue.bias_offset;
  sizes.a_buffer = a.id(), sizes.b_buffer = b.id(), sizes.c_buffer = c.id();
  if (epilogue.bias != nullptr) sizes.bias_buffer = epilogue.bias->id();
  gemm::check_operands(s, im.config.type, sizes, epilogue.activation);
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;
  const gemm::Epilogue product_epilogue{
      .bias = epilogue.bias != nullptr, .bias_offset = epilogue.bias_offset, .activation = epilogue.activation};
  if (im.config.float32_split && s.k > 0) {
    im.encode_split(encoder, s, problem, sizes, a, b, c, product_epilogue, epilogue.bias);
    return;
  }
  // Plan: the variant, the split of k and the grid, for the whole product; the pieces, every one
  // checked before any is recorded.
  const gemm::Plan p = gemm::plan_for(s, problem, im.config, epilogue.activation);
  const uint64_t budget = im.options.allow_splitting ? im.device->submission_work_budget() : 0;
  if (budget == 0 || saturating_work(s) <= budget) {
    // One piece, without allocating.
    const gemm::Bindings bound = gemm::bind_ranges(s, im.config.type, sizes, im.device->capabilities());
    gemm::check_grid(p, im.device->capabilities());
    im.record(encoder, p, gemm::push_constants(s, p, bound, product_epilogue), bound, a, b, c, epilogue.bias);
    encoder.report_work(saturating_work(s));
    return;
  }
  im.record_pieces(encoder, im.prepare(s, p, im.config.type, sizes), product_epilogue, a, b, c, epilogue.bias);
}

// The whole product as one piece, or over the device's budget pieces that keep the whole
// product's plan (whole batch entries or bands of rows), so that the encoder can start a new
// submission between them.
std::vector<Gemm::Impl::Piece> Gemm::Impl::prepare(const gemm::Shape& s, const gemm::Plan& p, DataType type,
                                                   const gemm::OperandSizes& sizes) {
  const ComputeCapabilities& caps = device->capabilities();
  const uint64_t budget = options.allow_splitting ? device->submission_work_budget() : 0;
  std::vector<Piece> list;
  if (budget == 0 || saturating_work(s) <= budget) {
    list.push_back({s, p, gemm::bind_ranges(s, type, sizes, caps)});
    gemm::check_grid(p, caps);
    return list;
  }
  for (const gemm::Shape& piece : gemm::pieces(s, budget)) {
    Piece x{piece, gemm::piece_plan(p, piece), gemm::bind_ranges(piece, type, sizes, caps)};
    gemm::check_grid(x.plan, caps);
    list.push_back(x);
  }
  return list;
}

// Push constants and recording; multiply-adds count twice, and the encoder starts a new
// submission at a later pass boundary once the device's budget is passed.
void Gemm::Impl::record_pieces(CommandEncoder& encoder, const std::vector<Piece>& pieces, const gemm::Epilogue& epilogue,
                               const RawBuffer& a, const RawBuffer& b, const Buffer<float>& c,
                               const Buffer<float>* bias) {
  for (const Piece& x : pieces) {
    record(encoder, x.plan, gemm::push_constants(x.shape, x.plan, x.bound, epilogue), x.bound, a, b, c, bias);
    encoder.report_work(saturating_work(x.shape));
  }
}

// Float32 products on float16 hardware: the exponents of op(A)'s rows and op(B)'s columns, the
// split of both into float16 parts, the float16 products of the parts (the family's own float16
// plans), each into its plane of D, and the epilogue that adds the planes and scales them back.
// Everything is checked before the first pass.
void Gemm::Impl::encode_split(CommandEncoder& encoder, const gemm::Shape& s, const GemmProblem& problem,
                              const gemm::OperandSizes& sizes, const RawBuffer& a, const RawBuffer& b,
                              const Buffer<float>& c, const gemm::Epilogue& epilogue, const Buffer<float>* bias) {
  const ComputeCapabilities& caps = device->capabilities();
  const gemm::SplitPlan sp = gemm::split_plan(s, problem, float16);
  gemm::check_split(sp, caps);
  const gemm::Bindings bound = gemm::bind_ranges(s, DataType::float32, sizes, caps);
  const gemm::SplitPasses passes = gemm::split_passes(s, sp, bound);
  const GemmSplitEpiloguePush last = gemm::split_epilogue(s, sp, bound, epilogue);
  const gemm::OperandSizes parts{.a_bytes = sp.a_words * 4, .b_bytes = sp.b_words * 4, .c_bytes = sp.d_words * 4};
  std::vector<Piece> product;
  for (const gemm::SplitProduct& x : sp.products)
    for (const Piece& piece : prepare(x.shape, x.plan, DataType::float16, parts)) product.push_back(piece);
  const ComputeKernel& clear = set.kernel(gemm::variants().at("gemm.f32split.clear"));
  const ComputeKernel& exponents = set.kernel(gemm::variants().at("gemm.f32split.exponents"));
  const ComputeKernel& split_a_kernel = set.kernel(gemm::variants().at("gemm.f32split.split_a"));
  const ComputeKernel& split_b_kernel = set.kernel(gemm::variants().at("gemm.f32split.split_b"));
  const ComputeKernel& scale_back = set.kernel(gemm::variants().at("gemm.f32split.epilogue"));
  for (const Piece& x : product) {
    kernel(x.plan);
    if (x.plan.splits > 1) set.kernel(gemm::splitk_reduce_variant(x.shape.n));
  }

  auto grow = [&](Buffer<float>& buffer, uint64_t words) {
    if (!buffer || buffer.size() < words) buffer = device->create_buffer<float>(std::max<uint64_t>(words, 4));
  };
  grow(split_a, sp.a_words);
  grow(split_b, sp.b_words);
  grow(split_d, sp.d_words);
  grow(split_exp, sp.exp_words);
  const BufferBinding bind_a(a, bound.a.offset_bytes, bound.a.size_bytes);
  const BufferBinding bind_b(b, bound.b.offset_bytes, bound.b.size_bytes);
  const BufferBinding bind_c(c, bound.c.offset_bytes, bound.c.size_bytes);
  const BufferBinding bind_bias = bias ? BufferBinding(*bias) : BufferBinding(no_bias);
  const BufferBinding exps(split_exp), parts_a(split_a), parts_b(split_b), d(split_d);
  const BufferBinding g_clear[] = {exps};
  const BufferBinding g_exp_a[] = {bind_a, exps}, g_exp_b[] = {bind_b, exps};
  const BufferBinding g_split_a[] = {bind_a, exps, parts_a}, g_split_b[] = {bind_b, exps, parts_b};
  const BufferBinding g_last[] = {d, bind_c, bind_bias, exps};
  const auto bg_clear = set.bind(clear, g_clear);
  const auto bg_exp_a = set.bind(exponents, g_exp_a);
  const auto bg_exp_b = set.bind(exponents, g_exp_b);
  const auto bg_split_a = set.bind(split_a_kernel, g_split_a);
  const auto bg_split_b = set.bind(split_b_kernel, g_split_b);
  const auto bg_last = set.bind(scale_back, g_last);
  auto bytes = [](const auto& push) { return std::as_bytes(std::span(&push, 1)); };

  encoder.begin_compute_pass().dispatch_linear(clear, *bg_clear, bytes(passes.clear), passes.clear_workgroups);
  {
    ComputePass pass = encoder.begin_compute_pass();
    pass.dispatch(exponents, *bg_exp_a, passes.exponents_a, passes.exponents_a_grid);
    pass.dispatch(exponents, *bg_exp_b, passes.exponents_b, passes.exponents_b_grid);
  }
  {
    ComputePass pass = encoder.begin_compute_pass();
    pass.dispatch_linear(split_a_kernel, *bg_split_a, bytes(passes.split_a), passes.split_a_workgroups);
    pass.dispatch_linear(split_b_kernel, *bg_split_b, bytes(passes.split_b), passes.split_b_workgroups);
  }
  record_pieces(encoder, product, gemm::Epilogue{}, split_a, split_b, split_d, nullptr);
  encoder.begin_compute_pass().dispatch_linear(scale_back, *bg_last, bytes(last), gemm::split_epilogue_workgroups(s));
}

// One pass, or with split k the product into the scratch planes and a second pass that adds them
// and applies the epilogue. Allocates nothing once the pipelines and bind groups exist.
void Gemm::Impl::record(CommandEncoder& encoder, const gemm::Plan& p, const GemmPush& push, const gemm::Bindings& bound,
                        const RawBuffer& a, const RawBuffer& b, const Buffer<float>& c, const Buffer<float>* bias) {
  const ComputeKernel& main = kernel(p);
  const BufferBinding bind_a(a, bound.a.offset_bytes, bound.a.size_bytes);
  const BufferBinding bind_b(b, bound.b.offset_bytes, bound.b.size_bytes);
  const BufferBinding bind_c(c, bound.c.offset_bytes, bound.c.size_bytes);
  const BufferBinding bind_bias = bias ? BufferBinding(*bias) : BufferBinding(no_bias);
  if (p.splits > 1) {
    if (!scratch) scratch = device->create_buffer<float>(gemm::kSplitScratchFloats);
    const ComputeKernel& reduce = set.kernel(gemm::splitk_reduce_variant(push.n));
    GemmPush partial = push;
    partial.flags = (push.flags & (OG_GEMM_TRANS_A | OG_GEMM_TRANS_B)) | OG_GEMM_SPLIT;
    const BufferBinding first[] = {bind_a, bind_b, BufferBinding(scratch), bind_bias};
    const auto g1 = set.bind(main, first);
    const BufferBinding second[] = {BufferBinding(scratch), bind_c, bind_bias};
    const auto g2 = set.bind(reduce, second);
    encoder.begin_compute_pass().dispatch(main, *g1, partial, p.grid);
    encoder.begin_compute_pass().dispatch_linear(reduce, *g2, std::as_bytes(std::span(&push, 1)),
                                                 gemm::splitk_reduce_workgroups(p, push.n));
    return;
  }
  const BufferBinding bindings[] = {bind_a, bind_b, bind_c, bind_bias};
  const auto group = set.bind(main, bindings);
  encoder.begin_compute_pass().dispatch(main, *group, push, p.grid);
}

}  // namespace onegpu::kernels
