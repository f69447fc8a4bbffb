// Gemm: checks, variant choice and recording. The decisions live in gemm_plan.cpp.
#include "onegpu/kernels/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "core/checks.h"
#include "core/env.h"
#include "gemm/gemm_push.h"
#include "gemm_rows_kn16.h"
#include "gemm_rows_kn16_bf16.h"
#include "gemm_rows_kn16_f16.h"
#include "gemm_rows_kn32.h"
#include "gemm_rows_kn32_bf16.h"
#include "gemm_rows_kn32_f16.h"
#include "gemm_rows_nk.h"
#include "gemm_rows_nk_bf16.h"
#include "gemm_rows_nk_f16.h"
#include "gemm_rows_nk_vec4.h"
#ifdef ONEGPU_GEMM_COOPMAT
#include "gemm_coopmat_f16_t0_o0.h"
#include "gemm_coopmat_f16_t0_o1.h"
#include "gemm_coopmat_f16_t0_o2.h"
#include "gemm_coopmat_f16_t0_o3.h"
#include "gemm_coopmat_f16_t1_o0.h"
#include "gemm_coopmat_f16_t1_o1.h"
#include "gemm_coopmat_f16_t1_o2.h"
#include "gemm_coopmat_f16_t1_o3.h"
#include "gemm_coopmat_f16_t2_o0.h"
#include "gemm_coopmat_f16_t2_o1.h"
#include "gemm_coopmat_f16_t2_o2.h"
#include "gemm_coopmat_f16_t2_o3.h"
#include "gemm_coopmat_f16_t3_o0.h"
#include "gemm_coopmat_f16_t3_o1.h"
#include "gemm_coopmat_f16_t3_o2.h"
#include "gemm_coopmat_f16_t3_o3.h"
#ifdef ONEGPU_GEMM_COOPMAT2
#include "gemm_coopmat2_f16_t0_o0.h"
#include "gemm_coopmat2_f16_t0_o0_act.h"
#include "gemm_coopmat2_f16_t0_o1.h"
#include "gemm_coopmat2_f16_t0_o1_act.h"
#include "gemm_coopmat2_f16_t0_o2.h"
#include "gemm_coopmat2_f16_t0_o2_act.h"
#include "gemm_coopmat2_f16_t0_o3.h"
#include "gemm_coopmat2_f16_t0_o3_act.h"
#include "gemm_coopmat2_f16_t1_o0.h"
#include "gemm_coopmat2_f16_t1_o0_act.h"
#include "gemm_coopmat2_f16_t1_o1.h"
#include "gemm_coopmat2_f16_t1_o1_act.h"
#include "gemm_coopmat2_f16_t1_o2.h"
#include "gemm_coopmat2_f16_t1_o2_act.h"
#include "gemm_coopmat2_f16_t1_o3.h"
#include "gemm_coopmat2_f16_t1_o3_act.h"
#include "gemm_coopmat2_f16_t2_o0.h"
#include "gemm_coopmat2_f16_t2_o0_act.h"
#include "gemm_coopmat2_f16_t2_o1.h"
#include "gemm_coopmat2_f16_t2_o1_act.h"
#include "gemm_coopmat2_f16_t2_o2.h"
#include "gemm_coopmat2_f16_t2_o2_act.h"
#include "gemm_coopmat2_f16_t2_o3.h"
#include "gemm_coopmat2_f16_t2_o3_act.h"
#endif
#endif
#include "gemm_bf16_128.h"
#include "gemm_bf16_128_compact.h"
#include "gemm_f16_128.h"
#include "gemm_f16_128_compact.h"
#include "gemm_f32_128.h"
#include "gemm_f32_128_compact.h"
#include "gemm_splitk_reduce.h"
#include "gemm_tile_bf16.h"
#include "gemm_tile_f16.h"
#include "gemm_tile_f32.h"
#include "kernels/common/family.h"
#include "kernels/gemm/gemm_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

static_assert(sizeof(GemmPush) == shaders::gemm_tile_f32::kPushConstantSize);
static_assert(sizeof(GemmPush) == shaders::gemm_splitk_reduce::kPushConstantSize);
static_assert(sizeof(GemmPush) == shaders::gemm_f32_128::kPushConstantSize);
static_assert(sizeof(GemmPush) == shaders::gemm_rows_nk_vec4::kPushConstantSize);
static_assert(sizeof(GemmPush) == shaders::gemm_rows_kn32::kPushConstantSize);

const char* element_type_name(GemmElementType t) {
  switch (t) {
    case GemmElementType::float32: return "float32";
    case GemmElementType::float16: return "float16";
    case GemmElementType::bfloat16: return "bfloat16";
  }
  return "?";
}

namespace {

#ifdef ONEGPU_GEMM_COOPMAT2
constexpr bool kWorkgroupScopeBuilt = true;
#else
constexpr bool kWorkgroupScopeBuilt = false;
#endif

enum class Shader { tile, tile128, tile128_compact, coop_f16, splitk_reduce, rows_kn16, rows_kn32, rows_nk, rows_nk_vec4 };

using SourceFn = const ShaderSource& (*)();

// The variant of a shader for the element type.
const ShaderSource& by_type(GemmElementType type, SourceFn f32, SourceFn f16, SourceFn bf16) {
  return (type == GemmElementType::float16 ? f16 : type == GemmElementType::bfloat16 ? bf16 : f32)();
}
#define OG_BY_TYPE(f32, f16, bf16) \
  by_type(type, &shaders::f32::source, &shaders::f16::source, &shaders::bf16::source)

#ifdef ONEGPU_GEMM_COOPMAT
// Subgroup-scope tiles by index and operand orientation (bit 1: A transposed, bit 0: B).
#define OG_COOP_TILE(t)                                                                         \
  {&shaders::gemm_coopmat_f16_t##t##_o0::source, &shaders::gemm_coopmat_f16_t##t##_o1::source, \
   &shaders::gemm_coopmat_f16_t##t##_o2::source, &shaders::gemm_coopmat_f16_t##t##_o3::source}
constexpr SourceFn kCoopSources[][4] = {OG_COOP_TILE(0), OG_COOP_TILE(1), OG_COOP_TILE(2), OG_COOP_TILE(3)};
static_assert(std::size(kCoopSources) == gemm::kFirstWorkgroupScopeTile);
#ifdef ONEGPU_GEMM_COOPMAT2
#define OG_COOP2_TILE(t, s)                                                                                \
  {&shaders::gemm_coopmat2_f16_t##t##_o0##s::source, &shaders::gemm_coopmat2_f16_t##t##_o1##s::source, \
   &shaders::gemm_coopmat2_f16_t##t##_o2##s::source, &shaders::gemm_coopmat2_f16_t##t##_o3##s::source}
// Workgroup-scope tiles, from kFirstWorkgroupScopeTile on: without and with the activation.
constexpr SourceFn kCoop2Sources[][2][4] = {{OG_COOP2_TILE(0, ), OG_COOP2_TILE(0, _act)},
                                            {OG_COOP2_TILE(1, ), OG_COOP2_TILE(1, _act)},
                                            {OG_COOP2_TILE(2, ), OG_COOP2_TILE(2, _act)}};
static_assert(std::size(kCoop2Sources) == gemm::kCoopTileCount - gemm::kFirstWorkgroupScopeTile);
#undef OG_COOP2_TILE
#define OG_COOP2_CHECK(t)                                            \
  static_assert(shaders::gemm_coopmat2_f16_t##t##_o0::kLocalSizeX == \
                32 * gemm::kCoopTiles[gemm::kFirstWorkgroupScopeTile + t].subgroups);
OG_COOP2_CHECK(0)
OG_COOP2_CHECK(1)
OG_COOP2_CHECK(2)
#undef OG_COOP2_CHECK
#endif
#undef OG_COOP_TILE
// The CMake tile list and kCoopTiles describe the same kernels.
#define OG_COOP_CHECK(t)                                                                                   \
  static_assert(shaders::gemm_coopmat_f16_t##t##_o0::kLocalSizeX == 32 * gemm::kCoopTiles[t].subgroups); \
  static_assert(shaders::gemm_coopmat_f16_t##t##_o0::kWorkgroupMemoryBytes == gemm::coop_workgroup_bytes(gemm::kCoopTiles[t]));
OG_COOP_CHECK(0)
OG_COOP_CHECK(1)
OG_COOP_CHECK(2)
OG_COOP_CHECK(3)
#undef OG_COOP_CHECK
#endif

const ShaderSource& shader_source(Shader s, GemmElementType type, uint32_t coop_tile, uint32_t orient,
                                  bool activation) {
  switch (s) {
    case Shader::tile: return OG_BY_TYPE(gemm_tile_f32, gemm_tile_f16, gemm_tile_bf16);
    case Shader::tile128: return OG_BY_TYPE(gemm_f32_128, gemm_f16_128, gemm_bf16_128);
    case Shader::tile128_compact: return OG_BY_TYPE(gemm_f32_128_compact, gemm_f16_128_compact, gemm_bf16_128_compact);
    case Shader::coop_f16:
#ifdef ONEGPU_GEMM_COOPMAT
      if (coop_tile < gemm::kFirstWorkgroupScopeTile && orient < 4) return kCoopSources[coop_tile][orient]();
#ifdef ONEGPU_GEMM_COOPMAT2
      if (coop_tile >= gemm::kFirstWorkgroupScopeTile && coop_tile < gemm::kCoopTileCount && orient < 4)
        return kCoop2Sources[coop_tile - gemm::kFirstWorkgroupScopeTile][activation ? 1 : 0][orient]();
#endif
#endif
      break;
    case Shader::splitk_reduce: return shaders::gemm_splitk_reduce::source();
    case Shader::rows_kn16: return OG_BY_TYPE(gemm_rows_kn16, gemm_rows_kn16_f16, gemm_rows_kn16_bf16);
    case Shader::rows_kn32: return OG_BY_TYPE(gemm_rows_kn32, gemm_rows_kn32_f16, gemm_rows_kn32_bf16);
    case Shader::rows_nk: return OG_BY_TYPE(gemm_rows_nk, gemm_rows_nk_f16, gemm_rows_nk_bf16);
    case Shader::rows_nk_vec4: return shaders::gemm_rows_nk_vec4::source();
  }
  throw std::logic_error("Gemm: unknown shader");
}
#undef OG_BY_TYPE

Shader shader_of(gemm::Kernel k) {
  switch (k) {
    case gemm::Kernel::tile: return Shader::tile;
    case gemm::Kernel::tile128: return Shader::tile128;
    case gemm::Kernel::coop_f16: return Shader::coop_f16;
    case gemm::Kernel::rows_kn16: return Shader::rows_kn16;
    case gemm::Kernel::rows_kn32: return Shader::rows_kn32;
    case gemm::Kernel::rows_nk: return Shader::rows_nk;
    case gemm::Kernel::rows_nk_vec4: return Shader::rows_nk_vec4;
  }
  return Shader::tile;
}

uint32_t u32(uint64_t v, const char* what) {
  if (v > UINT32_MAX) throw UnsupportedError(std::string("Gemm ") + what, "below 2^32 elements", std::to_string(v));
  return static_cast<uint32_t>(v);
}

}  // namespace

struct Gemm::Impl {
  KernelSet& set;  // pipelines by shader name, bind groups
  Device* device;
  GemmElementType type;
  GemmOptions options;
  Buffer<float> no_bias;
  Buffer<float> scratch;

  // The cooperative-matrix tile built for this device (index into gemm::kCoopTiles), or none.
  std::optional<uint32_t> coop_tile;

  Impl(KernelSet& k, Device& d, GemmElementType t, GemmOptions o)
      : set(k), device(&d), type(t), options(o), no_bias(d.create_buffer<float>(4)) {
#ifdef ONEGPU_GEMM_COOPMAT
    // Chosen once, from the device's capabilities and the kernels' own requirements (a pipeline
    // that cannot be made throws UnsupportedError and the next candidate serves); never from the
    // vendor. ONEGPU_GEMM_COOPMAT_TILE names one tile of the table, for tuning on a new GPU.
    if (t == GemmElementType::float16 && o.mode == KernelMode::fast && o.allow_matrix_hardware) {
      std::optional<uint32_t> forced;
      if (auto v = core::env("ONEGPU_GEMM_COOPMAT_TILE"); v && !v->empty())
        forced = uint32_t(std::strtoul(v->c_str(), nullptr, 10));
      for (uint32_t tile : gemm::coop_candidates(d.capabilities(), true, kWorkgroupScopeBuilt, forced)) {
        try {
          coop_tile = tile;
          // The other orientations, and a small-grid companion, have the same requirements.
          kernel(Shader::coop_f16, tile, 0);
          break;
        } catch (const UnsupportedError&) {
          coop_tile.reset();  // the next candidate, or the tiled kernels
        }
      }
    }
#endif
  }

  // The padded 128 x 128 tile where its workgroup memory fits, else the compact one (same sums).
  Shader tile128_shader() const {
    return device->capabilities().max_workgroup_memory_bytes >= shaders::gemm_f32_128::kWorkgroupMemoryBytes
               ? Shader::tile128
               : Shader::tile128_compact;
  }

  // `coop` (index into gemm::kCoopTiles), `orient` (bit 1: A transposed, bit 0: B) and
  // `activation` (the workgroup-scope kernels compile it in only where it is asked for) select the
  // matrix-hardware kernel's variant; that kernel needs full subgroups, the subgroup-scope ones of
  // 32 invocations.
  const ComputeKernel& kernel(Shader s, uint32_t coop = 0, uint32_t orient = 0, bool activation = false) {
    const ShaderSource& source = shader_source(s, type, coop, orient, activation);
    KernelOptions options;
    if (s == Shader::coop_f16) {
      options.require_full_subgroups = true;
      if (!gemm::kCoopTiles[coop].workgroup_scope) options.required_subgroup_size = 32;
    }
    return set.kernel(source.name, source, options);
  }

  uint64_t element_bytes() const { return type == GemmElementType::float32 ? 4 : 2; }
};

Gemm::Gemm(Device& device, GemmElementType type, GemmOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(kernels(), device, type, options)) {}
Gemm::~Gemm() = default;
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

GemmElementType Gemm::element_type() const { return impl_->type; }
KernelMode Gemm::mode() const { return impl_->options.mode; }

std::string Gemm::variant(const GemmProblem& problem) const {
  return gemm::variant_name(gemm::plan(gemm::resolve(problem), impl_->type, impl_->options.mode, impl_->coop_tile));
}

void Gemm::encode(CommandEncoder& encoder, const GemmProblem& problem, const RawBuffer& a, const RawBuffer& b,
                  const Buffer<float>& c, const GemmEpilogue& epilogue) {
  Impl& im = *impl_;
  const gemm::Shape s = gemm::resolve(problem);
  if (!a) throw KernelShapeError("Gemm", "a", "the buffer is empty");
  if (!b) throw KernelShapeError("Gemm", "b", "the buffer is empty");
  if (!c) throw KernelShapeError("Gemm", "c", "the buffer is empty");
  const uint64_t es = im.element_bytes();
  const gemm::Extent ea = gemm::extent_a(s), eb = gemm::extent_b(s), ec = gemm::extent_c(s);
  auto check_fits = [&](const char* name, const gemm::Extent& e, uint64_t bytes, uint64_t elem) {
    if (e.end > e.first && e.end > bytes / elem)
      throw KernelShapeError("Gemm", name,
                             "needs elements up to " + std::to_string(e.end) + ", the buffer holds " +
                                 std::to_string(bytes / elem));
  };
  check_fits("a", ea, a.size_bytes(), es);
  check_fits("b", eb, b.size_bytes(), es);
  check_fits("c", ec, c.size_bytes(), 4);
  if (epilogue.bias != nullptr) {
    if (!*epilogue.bias) throw KernelShapeError("Gemm", "bias", "the buffer is empty");
    if (epilogue.bias_offset > epilogue.bias->size() || s.n > epilogue.bias->size() - epilogue.bias_offset)
      throw KernelShapeError("Gemm", "bias",
                             "needs " + std::to_string(s.n) + " elements from offset " +
                                 std::to_string(epilogue.bias_offset) + ", the buffer holds " +
                                 std::to_string(epilogue.bias->size()));
  }
  const uint32_t activation = static_cast<uint32_t>(epilogue.activation);
  if (activation > 3) throw KernelShapeError("Gemm", "activation", "unknown activation");
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;

  const gemm::Plan plan = gemm::plan(s, im.type, im.options.mode, im.coop_tile);
  const ComputeCapabilities& caps = im.device->capabilities();
  core::check_grid(plan.grid, caps);
  // Binding offsets aligned to 16 bytes at least, so vec4 and eight-half reads stay aligned.
  const uint64_t align = std::max<uint64_t>(16, caps.min_storage_buffer_offset_alignment);
  auto range = [&](const char* name, const gemm::Extent& e, const RawBuffer& buf, uint64_t elem) {
    gemm::BoundRange r = e.end > e.first ? gemm::bound_range(e, elem, align, buf.size_bytes())
                                         : gemm::BoundRange{0, std::min<uint64_t>(buf.size_bytes(), 16), 0};
    if (r.size_bytes > caps.max_storage_buffer_range)
      throw UnsupportedError("max_storage_buffer_range",
                             std::string("Gemm operand ") + name + " of " + std::to_string(r.size_bytes) + " bytes",
                             std::to_string(caps.max_storage_buffer_range));
    return r;
  };
  const gemm::BoundRange ra = range("a", ea, a, es), rb = range("b", eb, b, es), rc = range("c", ec, c, 4);

  GemmPush push{};
  push.m = u32(s.m, "m");
  push.n = u32(s.n, "n");
  push.k = u32(s.k, "k");
  push.batch = u32(s.batch, "batch");
  push.lda = u32(s.lda, "lda");
  push.ldb = u32(s.ldb, "ldb");
  push.ldc = u32(s.ldc, "ldc");
  push.offset_a = u32(s.offset_a - ra.base_elements, "offset_a");
  push.offset_b = u32(s.offset_b - rb.base_elements, "offset_b");
  push.offset_c = u32(s.offset_c - rc.base_elements, "offset_c");
  push.stride_a = s.batch > 1 ? u32(s.stride_a, "stride_a") : 0;
  push.stride_b = s.batch > 1 ? u32(s.stride_b, "stride_b") : 0;
  push.stride_c = s.batch > 1 ? u32(s.stride_c, "stride_c") : 0;
  push.offset_bias = epilogue.bias ? u32(epilogue.bias_offset, "bias_offset") : 0;
  push.splits = plan.splits;
  push.k_chunk = plan.k_chunk;
  push.alpha = problem.alpha;
  push.beta = problem.beta;
  push.flags = (s.trans_a ? OG_GEMM_TRANS_A : 0u) | (s.trans_b ? OG_GEMM_TRANS_B : 0u) |
               (problem.beta != 0.0f ? OG_GEMM_READ_C : 0u) | (epilogue.bias ? OG_GEMM_BIAS : 0u) |
               (activation << OG_GEMM_ACT_SHIFT);
  const BufferBinding bias = epilogue.bias ? BufferBinding(*epilogue.bias) : BufferBinding(im.no_bias);
  const BufferBinding bind_a(a, ra.offset_bytes, ra.size_bytes), bind_b(b, rb.offset_bytes, rb.size_bytes);
  const BufferBinding bind_c(c, rc.offset_bytes, rc.size_bytes);

  const Shader main_shader = plan.kernel == gemm::Kernel::tile128 ? im.tile128_shader() : shader_of(plan.kernel);
  const ComputeKernel& main =
      im.kernel(main_shader, plan.coop_index, (s.trans_a ? 2u : 0u) | (s.trans_b ? 1u : 0u), activation != 0);
  if (plan.splits > 1) {
    if (!im.scratch) im.scratch = im.device->create_buffer<float>(gemm::kSplitScratchFloats);
    const ComputeKernel& reduce = im.kernel(Shader::splitk_reduce);
    GemmPush partial = push;
    partial.flags = (push.flags & (OG_GEMM_TRANS_A | OG_GEMM_TRANS_B)) | OG_GEMM_SPLIT;
    const BufferBinding first[] = {bind_a, bind_b, BufferBinding(im.scratch), bias};
    const auto g1 = im.set.bind(main, first);
    const BufferBinding second[] = {BufferBinding(im.scratch), bind_c, bias};
    const auto g2 = im.set.bind(reduce, second);
    encoder.begin_compute_pass();
    encoder.dispatch(main, *g1, partial, plan.grid);
    encoder.begin_compute_pass();
    encoder.dispatch_linear(reduce, *g2, std::as_bytes(std::span(&push, 1)), (plan.reduce_elements + 255) / 256);
    return;
  }
  const BufferBinding bindings[] = {bind_a, bind_b, bind_c, bias};
  const auto group = im.set.bind(main, bindings);
  encoder.begin_compute_pass();
  encoder.dispatch(main, *group, push, plan.grid);
}

}  // namespace onegpu::kernels
