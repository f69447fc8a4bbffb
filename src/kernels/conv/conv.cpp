// Conv: encode in its steps (resolve and check, plan, chunks of images, record). The decisions
// live in conv_plan.cpp; the products of the unfold, pointwise and transpose paths run on Gemm.
#include "onegpu/kernels/conv.h"

#include <array>
#include <cstdlib>

#include "conv_variants.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/common/matrix_hardware.h"
#include "kernels/conv/conv_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

static_assert(conv::kVariants.push_constants_are("conv.", sizeof(ConvPush)));
static_assert(sizeof(ConvPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

const char* conv_variant_name(ConvVariant v) {
  switch (v) {
    case ConvVariant::automatic: return "automatic";
    case ConvVariant::direct: return "direct";
    case ConvVariant::implicit: return "implicit";
    case ConvVariant::unfold: return "unfold";
    case ConvVariant::pointwise: return "pointwise";
    case ConvVariant::implicit_matrix: return "implicit_matrix";
    case ConvVariant::col2im: return "col2im";
    case ConvVariant::phases: return "phases";
    case ConvVariant::winograd: return "winograd";
  }
  return "unknown";
}

Extent2 ConvProblem::output() const {
  const conv::Geometry g = conv::resolve(*this);
  return {int64_t(g.oh), int64_t(g.ow)};
}
Extent2 ConvTransposeProblem::output() const {
  const conv::Geometry g = conv::resolve(*this);
  return {int64_t(g.oh), int64_t(g.ow)};
}
Window ConvTransposeProblem::resolved_window() const { return conv::resolve(*this).window; }

namespace {

DataType checked_type(DataType t) {
  if (t != DataType::float32 && t != DataType::float16)
    throw UnsupportedError("Conv element type", "float32 or float16", std::string(data_type_name(t)));
  return t;
}

// Every name the family records is declared (at() fails to compile otherwise).
struct Kernels {
  Variant direct, implicit, im2col, pad_weights, epilogue, col2im, phase_weights;
};
constexpr Kernels kF32{conv::kVariants.at("conv.direct.f32"),      conv::kVariants.at("conv.implicit.f32"),
                       conv::kVariants.at("conv.im2col.f32"),      conv::kVariants.at("conv.pad_weights.f32"),
                       conv::kVariants.at("conv.epilogue.f32"),    conv::kVariants.at("conv.col2im.f32"),
                       conv::kVariants.at("conv.phase_weights.f32")};
constexpr Kernels kF16{conv::kVariants.at("conv.direct.f16"),      conv::kVariants.at("conv.implicit.f16"),
                       conv::kVariants.at("conv.im2col.f16"),      conv::kVariants.at("conv.pad_weights.f16"),
                       conv::kVariants.at("conv.epilogue.f16"),    conv::kVariants.at("conv.col2im.f16"),
                       conv::kVariants.at("conv.phase_weights.f16")};

// The float32 implicit GEMM's 64 x 128 tile.
constexpr Variant kImplicitWide = conv::kVariants.at("conv.implicit_wide.f32");

// Winograd F(2x2, 3x3)'s transforms (float32 only).
struct WinogradKernels {
  Variant weights, input, product, output;
};
constexpr WinogradKernels kWinograd{conv::kVariants.at("conv.winograd_weights.f32"),
                                    conv::kVariants.at("conv.winograd_input.f32"),
                                    conv::kVariants.at("conv.winograd_product.f32"),
                                    conv::kVariants.at("conv.winograd_output.f32")};

// The float16 implicit GEMM on cooperative matrices, one per tile of conv::kMatrixTiles.
constexpr std::array<Variant, conv::kMatrixTileCount> kMatrixKernels{
    conv::kVariants.at("conv.implicit_coopmat.f16.64x64.4sg"), conv::kVariants.at("conv.implicit_coopmat.f16.64x128.4sg"),
    conv::kVariants.at("conv.implicit_coopmat.f16.128x128.4sg"), conv::kVariants.at("conv.implicit_coopmat.f16.64x256.8sg")};
// The ConvTranspose phase-pairs form of the 64 x 64 tile (conv::matrix_tile_pairs).
constexpr Variant kMatrixPairsKernel = conv::kVariants.at("conv.implicit_coopmat.f16.64x64.4sg.pairs");
constexpr KernelOptions kMatrixOptions{.require_full_subgroups = true, .required_subgroup_size = 32};

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// ONEGPU_CONV_COOPMAT_TILE=<index of conv::kMatrixTiles> forces the implicit_matrix tile and
// ONEGPU_CONV_IMPLICIT_WIDE=0 / 1 the float32 implicit kernel's 64 x 64 / 64 x 128 tile (for
// measuring); -1 when unset.
int number_from_environment(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v >= '0' && *v <= '9' ? std::atoi(v) : -1;
}

}  // namespace

struct Conv::Impl {
  KernelSet& set;
  Device* device;
  DataType type;
  ConvOptions options;
  const Kernels* kernels;
  Gemm gemm;
  bool matrix_f16 = false;
  bool implicit_matrix = false;
  int matrix_tile = number_from_environment("ONEGPU_CONV_COOPMAT_TILE");
  int implicit_wide = number_from_environment("ONEGPU_CONV_IMPLICIT_WIDE");
  Buffer<float> own_scratch;  // grown on need, up to options.max_scratch_bytes (one image at least)
  Buffer<float> placeholder;  // bound where a kernel declares a binding the call does not use
  // Bound at the scratch slot when the call has no scratch: that slot is writable, and WebGPU
  // refuses a buffer bound writable and again in a dispatch (the placeholder above may be bias and
  // residual).
  Buffer<float> scratch_placeholder;

  Impl(KernelSet& k, Device& d, DataType t, ConvOptions o)
      : set(k),
        device(&d),
        type(t),
        options(o),
        kernels(t == DataType::float16 ? &kF16 : &kF32),
        gemm(d, t, GemmOptions{.mode = o.mode, .allow_matrix_hardware = o.allow_matrix_hardware}),
        placeholder(d.create_buffer<float>(4)),
        scratch_placeholder(d.create_buffer<float>(4)) {
    if (t == DataType::float16 && o.mode == KernelMode::fast && o.allow_matrix_hardware) {
      GemmProblem probe;
      probe.m = probe.n = probe.k = 256;
      matrix_f16 = gemm.variant(probe).find("coopmat") != std::string::npos;
      implicit_matrix = implicit_matrix_runs();
    }
  }

  // The matrix kernel runs where the device lists 16 x 16 x 16 float16 matrices with float32
  // accumulation and builds the pipeline (subgroups of 32, full subgroups, the build having
  // compiled it): decided from capabilities and the pipeline, never from the vendor. Every tile
  // has the same requirements; the automatic one is probed.
  bool implicit_matrix_runs() {
    if (!has_subgroup_matrix_shape(set.caps(), 16, 16, 16, {DataType::float16, DataType::float32})) return false;
    try {
      set.kernel(kMatrixKernels[0], kMatrixOptions);
      return true;
    } catch (const UnsupportedError&) {
      return false;
    }
  }

  conv::Config config() const {
    return {type,          options.mode, options.variant, matrix_f16, implicit_matrix, matrix_tile, implicit_wide,
            set.caps().aliased_writable_bindings};
  }

  std::string variant(const conv::Geometry& g) const {
    const conv::Plan p = conv::plan(g, config());
    std::string name = conv::path_name(p);
    if (p.path == conv::Path::unfold || p.path == conv::Path::pointwise || p.path == conv::Path::transpose) {
      const auto list = conv::products(g, p, type, 0, g.batch, 0, 0);
      if (!list.empty()) name += " [" + gemm.variant(list.front().problem) + "]";
    }
    return name;
  }

  ByteRange check_tensor(const char* op, const char* name, const RawBuffer* b, uint64_t offset, uint64_t count) {
    if (b == nullptr || !*b) throw KernelShapeError(op, name, "no buffer");
    const uint64_t bytes = data_type_size(type);
    check_elements(op, name, *b, offset, count, bytes);
    const ByteRange r = tensor_bytes(op, name, b->id(), offset, count, bytes);
    if (r.end > b->size_bytes())
      throw KernelShapeError(op, name, "the buffer ends inside the tensor's last word (allocate padded_length)");
    check_bindable(op, *b, set.caps());
    return r;
  }

  void encode(CommandEncoder& encoder, const conv::Geometry& g, const ConvTensors& t) {
    const char* op = g.op;
    // Check: every tensor, the overlaps and the scratch, before anything is recorded.
    const conv::Counts n = conv::counts(g);
    const ByteRange xr = check_tensor(op, "x", t.x, g.x_offset, n.x);
    const ByteRange wr = check_tensor(op, "w", t.w, g.w_offset, n.w);
    const ByteRange br = g.bias ? check_tensor(op, "bias", t.bias, g.bias_offset, n.bias) : ByteRange{};
    const ByteRange rr = g.residual ? check_tensor(op, "residual", t.residual, g.residual_offset, n.residual) : ByteRange{};
    const ByteRange yr = check_tensor(op, "y", t.y, g.y_offset, n.y);
    check_disjoint(op, "y", yr, "x", xr);
    check_disjoint(op, "y", yr, "w", wr);
    check_disjoint(op, "y", yr, "bias", br);
    check_disjoint(op, "y", yr, "residual", rr);
    check_separate_buffers(set.caps(), op, "y", yr, "x", xr);
    check_separate_buffers(set.caps(), op, "y", yr, "w", wr);
    check_separate_buffers(set.caps(), op, "y", yr, "bias", br);
    check_separate_buffers(set.caps(), op, "y", yr, "residual", rr);
    const conv::Plan p = conv::plan(g, config());
    const uint64_t per_image = p.scratch_words(g, type, 1);
    const Buffer<float>* scratch = nullptr;
    uint64_t scratch_offset = 0, words = 0;
    if (per_image > 0) {
      if (t.scratch != nullptr) {
        if (!*t.scratch) throw KernelShapeError(op, "scratch", "no buffer");
        if (t.scratch_offset > t.scratch->size()) throw KernelShapeError(op, "scratch", "the offset lies past the buffer");
        words = t.scratch->size() - t.scratch_offset;
        if (words < per_image)
          throw KernelShapeError(op, "scratch", std::to_string(words) + " words hold less than one image (" +
                                                    std::to_string(per_image) + ")");
        check_bindable(op, *t.scratch, set.caps());
        const uint64_t used = std::min(words, p.scratch_words(g, type, g.batch));
        const ByteRange sr = tensor_bytes(op, "scratch", t.scratch->id(), t.scratch_offset, used, 4);
        const char* names[] = {"x", "w", "bias", "residual", "y"};
        const ByteRange* ranges[] = {&xr, &wr, &br, &rr, &yr};
        for (int i = 0; i < 5; ++i) check_disjoint(op, "scratch", sr, names[i], *ranges[i]);
        for (int i = 0; i < 5; ++i) check_separate_buffers(set.caps(), op, "scratch", sr, names[i], *ranges[i]);
        scratch = t.scratch, scratch_offset = t.scratch_offset;
      } else {
        words = std::max(per_image, std::min(p.scratch_words(g, type, g.batch), options.max_scratch_bytes / 4));
        if (words * 4 > set.caps().max_storage_buffer_range)
          throw UnsupportedError(std::string(op) + " scratch of " + std::to_string(words * 4) + " bytes",
                                 "at most one storage binding (" +
                                     std::to_string(set.caps().max_storage_buffer_range) + " bytes)",
                                 "larger");
        scratch = &own_scratch;
      }
      // Word indices (and the halves of a float16 column matrix) stay below 2^32.
      if (scratch_offset + std::min(words, p.scratch_words(g, type, g.batch)) >= (uint64_t(1) << 31))
        throw KernelShapeError(op, "scratch", "the scratch range passes 2^31 words");
    }
    // The grid of the tile products (x: column tiles of the whole batch at most) within the device's
    // workgroup counts.
    std::array<uint64_t, 3> grid{0, 0, 0};
    if (p.path == conv::Path::implicit || p.path == conv::Path::implicit_matrix) {
      const conv::TileShape tile = conv::tile_shape(p);
      grid = {ceil_div(g.batch * p.product_pixels(g), tile.columns), ceil_div(g.cout_g, tile.rows),
              g.groups * p.splits * p.views()};
    } else if (p.path == conv::Path::winograd) {
      grid = {ceil_div(g.batch * conv::winograd_tiles(g), conv::kWinogradColumns), ceil_div(g.cout, 64), 16};
    }
    for (int i = 0; i < 3; ++i)
      if (grid[i] > set.caps().max_workgroup_count[i])
        throw UnsupportedError(std::string(op) + " tile grid of " + std::to_string(grid[i]) + " workgroups in dimension " +
                                   std::to_string(i),
                               "at most " + std::to_string(set.caps().max_workgroup_count[i]), "more");
    if (g.batch == 0) return;
    const uint64_t chunk = per_image > 0 ? conv::chunk_images(p, g, type, words) : g.batch;
    if (scratch == &own_scratch && own_scratch.size() < words) own_scratch = device->create_buffer<float>(words);
    const Buffer<float>& sbuf = scratch != nullptr ? *scratch : scratch_placeholder;
    const BufferBinding slots[6] = {BufferBinding(*t.x), BufferBinding(*t.w),
                                    BufferBinding(g.bias ? *t.bias : placeholder),
                                    BufferBinding(g.residual ? *t.residual : placeholder), BufferBinding(*t.y),
                                    BufferBinding(sbuf)};
    if (p.phases != 0) {  // the phases' weights, once for every chunk
      ConvPush w = conv::push_constants(g, p, 0, 0);
      const uint64_t words = ceil_div(n.w, type == DataType::float16 ? 2 : 1);
      w.t_off = uint32_t(scratch_offset * (type == DataType::float16 ? 2 : 1)), w.splits = uint32_t(words);
      dispatch(encoder, kernels->phase_weights, slots, w, words);
    }
    for (uint64_t first = 0; first < g.batch; first += chunk) {
      const uint64_t images = std::min(chunk, g.batch - first);
      record_chunk(encoder, g, p, slots, t, sbuf, scratch_offset, first, images);
    }
  }

  void dispatch(CommandEncoder& encoder, const Variant& v, std::span<const BufferBinding, 6> slots, const ConvPush& push,
                uint64_t words) {
    const ComputeKernel& k = set.kernel(v);
    const auto group = set.bind(k, declared_bindings(k, slots).span());
    encoder.begin_compute_pass().dispatch_linear(k, *group, std::as_bytes(std::span(&push, 1)), ceil_div(words, 256));
  }

  uint64_t output_words(const ConvPush& c) const {
    const uint64_t total = uint64_t(c.images) * c.cout_g * c.groups * c.oh * c.ow;
    return type == DataType::float16 ? ((c.y_off & 1u) + total + 1) / 2 : total;
  }

  void record_chunk(CommandEncoder& encoder, const conv::Geometry& g, const conv::Plan& p,
                    std::span<const BufferBinding, 6> slots, const ConvTensors& t, const Buffer<float>& sbuf,
                    uint64_t s0, uint64_t first, uint64_t images) {
    ConvPush c = conv::push_constants(g, p, first, images);
    const uint64_t pix = g.pixels();
    switch (p.path) {
      case conv::Path::direct:
        dispatch(encoder, kernels->direct, slots, c, output_words(c));
        return;
      case conv::Path::implicit:
      case conv::Path::implicit_matrix: {
        const ComputeKernel& k = p.path == conv::Path::implicit_matrix
                                     ? set.kernel(p.phase_pairs ? kMatrixPairsKernel : kMatrixKernels[p.tile],
                                                  kMatrixOptions)
                                 : set.kernel(p.wide ? kImplicitWide : kernels->implicit);
        const conv::TileShape tile = conv::tile_shape(p);
        // Phases read their rearranged weights at the scratch's start as w; where a buffer may not
        // be bound read-only and writable in one dispatch, the kernel (its WebGPU dialect) reads
        // them through the scratch binding and w keeps its slot.
        std::array<BufferBinding, 6> phase_slots{slots[0], BufferBinding(sbuf), slots[2], slots[3], slots[4], slots[5]};
        if (!set.caps().aliased_writable_bindings) phase_slots[1] = slots[1];
        if (p.phases != 0) {
          c.flags |= OG_CONV_PHASES;
          c.w_off = uint32_t(s0 * (type == DataType::float16 ? 2 : 1));
        }
        const auto group =
            set.bind(k, declared_bindings(k, p.phases != 0 ? std::span<const BufferBinding, 6>(phase_slots) : slots).span());
        if (p.epilogue_pass) {
          c.flags |= OG_CONV_SPLIT;
          c.t_off = uint32_t(s0 + p.layout(g, type, images).sums), c.t_image = uint32_t(pix);
          c.t_chan = uint32_t(images * pix), c.t_plane = uint32_t(g.cout * images * pix);
        }
        const Grid grid{uint32_t(ceil_div(images * p.product_pixels(g), tile.columns)),
                        uint32_t(ceil_div(g.cout_g, tile.rows)), uint32_t(g.groups * p.splits * p.views())};
        encoder.begin_compute_pass().dispatch(k, *group, c, grid);
        if (p.epilogue_pass) {
          c.flags &= ~(OG_CONV_SPLIT | OG_CONV_PHASES);
          dispatch(encoder, kernels->epilogue, slots, c, output_words(c));
        }
        return;
      }
      case conv::Path::unfold: {
        const uint64_t row = conv::Plan::row_length(g, images);
        const uint64_t per_word = type == DataType::float16 ? 2 : 1;
        const conv::Plan::Layout l = p.layout(g, type, images);
        if (p.pad_weights) {  // the weights with rows of the padded depth
          ConvPush w = c;
          const uint64_t words = g.cout * p.depth_padded / per_word;
          w.t_off = uint32_t((s0 + l.weights) * per_word), w.t_chan = uint32_t(p.depth_padded);
          w.splits = uint32_t(words);
          dispatch(encoder, kernels->pad_weights, slots, w, words);
        }
        ConvPush u = c;
        const uint64_t invocations = g.groups * p.depth_padded * ceil_div(row / 8, conv::kUnfoldRuns);
        u.t_off = uint32_t((s0 + l.columns) * per_word);  // elements of the column type
        u.t_image = uint32_t(p.depth_padded), u.t_chan = uint32_t(row);
        u.splits = uint32_t(invocations);
        dispatch(encoder, kernels->im2col, slots, u, invocations);
        for (const conv::Product& x : conv::products(g, p, type, first, images, s0 * per_word, s0))
          gemm.encode(encoder, x.problem, x.a_is_scratch ? static_cast<const RawBuffer&>(sbuf) : *t.w, sbuf, sbuf);
        c.t_off = uint32_t(s0 + l.sums), c.t_image = uint32_t(pix), c.t_chan = uint32_t(row);
        c.splits = p.product_splits, c.t_plane = uint32_t(g.cout * row);
        dispatch(encoder, kernels->epilogue, slots, c, output_words(c));
        return;
      }
      case conv::Path::winograd: {
        // The weights once (their place is the same for every chunk), the windows, the 16
        // products, the inverse transform with the epilogue.
        const conv::Plan::Layout l = p.layout(g, type, images);
        c.t_off = uint32_t(s0 + l.weights), c.t_image = uint32_t(s0 + l.columns), c.t_chan = uint32_t(s0 + l.sums);
        c.t_plane = uint32_t(images * conv::winograd_tiles(g));
        if (first == 0) dispatch(encoder, kWinograd.weights, slots, c, g.cout * g.cin);
        dispatch(encoder, kWinograd.input, slots, c, g.cin * c.t_plane);
        const ComputeKernel& k = set.kernel(kWinograd.product);
        const auto group = set.bind(k, declared_bindings(k, slots).span());
        encoder.begin_compute_pass().dispatch(
            k, *group, c, Grid{uint32_t(ceil_div(c.t_plane, conv::kWinogradColumns)), uint32_t(ceil_div(g.cout, 64)), 16});
        dispatch(encoder, kWinograd.output, slots, c, g.cout * c.t_plane);
        return;
      }
      case conv::Path::pointwise:
      case conv::Path::transpose: {
        for (const conv::Product& x : conv::products(g, p, type, first, images, 0, s0))
          gemm.encode(encoder, x.problem, *t.w, *t.x, sbuf);
        const bool tr = p.path == conv::Path::transpose;
        const uint64_t in_pix = g.in_pixels();
        c.t_off = uint32_t(s0);
        c.t_image = uint32_t(tr ? g.cout * g.taps() * in_pix : g.cout * pix);
        c.t_chan = uint32_t(tr ? in_pix : pix);
        c.splits = 1;
        dispatch(encoder, tr ? kernels->col2im : kernels->epilogue, slots, c, output_words(c));
        return;
      }
    }
  }
};

Conv::Conv(Device& device, DataType type, ConvOptions options)
    : KernelFamily(device, options.max_cached_bind_groups),
      impl_(std::make_unique<Impl>(kernels(), device, checked_type(type), options)) {}
Conv::~Conv() = default;
Conv::Conv(Conv&&) noexcept = default;
Conv& Conv::operator=(Conv&&) noexcept = default;

DataType Conv::element_type() const { return impl_->type; }

void Conv::encode(CommandEncoder& encoder, const ConvProblem& problem, const ConvTensors& tensors) {
  impl_->encode(encoder, conv::resolve(problem), tensors);
}
void Conv::encode(CommandEncoder& encoder, const ConvTransposeProblem& problem, const ConvTensors& tensors) {
  impl_->encode(encoder, conv::resolve(problem), tensors);
}

std::string Conv::variant(const ConvProblem& problem) const { return impl_->variant(conv::resolve(problem)); }
std::string Conv::variant(const ConvTransposeProblem& problem) const {
  return impl_->variant(conv::resolve(problem));
}

namespace {
ConvScratch scratch_of(const conv::Geometry& g, const conv::Config& c) {
  const conv::Plan p = conv::plan(g, c);
  return {p.scratch_words(g, c.type, g.batch), p.scratch_words(g, c.type, 1)};
}
}  // namespace

ConvScratch Conv::scratch(const ConvProblem& problem) const {
  return scratch_of(conv::resolve(problem), impl_->config());
}
ConvScratch Conv::scratch(const ConvTransposeProblem& problem) const {
  return scratch_of(conv::resolve(problem), impl_->config());
}

}  // namespace onegpu::kernels
