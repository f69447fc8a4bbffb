// ConvInteger: encode in its steps (resolve and check, scratch and chunks, check every product,
// record). The decisions live in conv_integer_plan.cpp; the products run on IntegerGemm.
#include "onegpu/kernels/conv_integer.h"

#include <algorithm>
#include <span>

#include "conv_integer_variants.h"
#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/conv_integer/conv_integer_plan.h"
#include "kernels/integer_gemm/integer_gemm_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {

namespace ci = conv_integer;
namespace ig = integer_gemm;

static_assert(ci::kVariants.push_constants_are("conv_integer.", sizeof(ConvIntegerPush)));
static_assert(sizeof(ConvIntegerPush) <= 128, "every Vulkan device offers 128 bytes of push constants");

Extent2 ConvIntegerProblem::output() const {
  const ci::Geometry g = ci::resolve(*this);
  return {int64_t(g.oh), int64_t(g.ow)};
}

namespace {

constexpr Variant kUnfold = ci::kVariants.at("conv_integer.unfold");

std::string s(uint64_t v) { return std::to_string(v); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

int32_t type_min(bool is_signed) { return is_signed ? -128 : 0; }
int32_t type_max(bool is_signed) { return is_signed ? 127 : 255; }

// A zero point's value range, or its elements inside its buffer; the byte range it is read from.
ByteRange check_zero(const char* name, const ZeroPoint& z, bool is_signed, uint64_t channels,
                     const ComputeCapabilities& caps) {
  const char* op = ci::kOp;
  if (z.buffer == nullptr) {
    if (z.value < type_min(is_signed) || z.value > type_max(is_signed))
      throw KernelShapeError(op, name, std::to_string(z.value) + " is outside " + (is_signed ? "int8" : "uint8"));
    return {};
  }
  if (!*z.buffer) throw KernelShapeError(op, name, "the buffer is empty");
  const uint64_t count = z.per_channel ? channels : 1, held = z.buffer->size_bytes();
  if (z.offset > held || count > held - z.offset)
    throw KernelShapeError(op, name, "needs " + s(count) + " elements from offset " + s(z.offset) +
                                         ", the buffer holds " + s(held));
  if (z.offset + count > UINT32_MAX) throw KernelShapeError(op, name, "offset " + s(z.offset) + " is not below 2^32");
  check_bindable(op, *z.buffer, caps);
  return tensor_bytes(op, name, z.buffer->id(), z.offset, count, 1);
}

}  // namespace

namespace {
// A per-channel w zero point is one read from a buffer; a value is the same for every channel.
bool w_per_channel(const ConvIntegerZeroPoints& zp) { return zp.w.buffer != nullptr && zp.w.per_channel; }
}  // namespace

struct ConvInteger::Impl {
  KernelSet& set;
  Device* device;
  ConvIntegerOptions options;
  IntegerGemm gemm;
  ig::Config product_config;
  Buffer<uint32_t> own_scratch;  // grown on need, up to options.max_scratch_bytes (one image at least)
  Buffer<uint32_t> placeholder;  // bound where x_zero is a value

  Impl(KernelSet& k, Device& d, ConvIntegerOptions o)
      : set(k), device(&d), options(o), gemm(d, o.product), placeholder(d.create_buffer<uint32_t>(4)) {
    product_config.packed_dot = gemm.packed_dot();
    product_config.coopmat = gemm.matrix_hardware();
    product_config.small_tiles = o.product.allow_small_tiles;
    product_config.skinny = o.product.allow_skinny;
  }

  std::string variant(const ci::Geometry& g, bool w_per_channel) const {
    const ci::Grouping grouping = ci::grouping(g, w_per_channel);
    const ci::Product x = ci::product(g, grouping, 0, std::max<uint64_t>(g.batch, 1), 0, 0);
    return "conv_integer.unfold+" + gemm.variant(x.problem);
  }

  ByteRange check_tensor(const char* name, const RawBuffer* b, uint64_t offset, uint64_t count, uint64_t bytes) {
    const char* op = ci::kOp;
    if (b == nullptr || !*b) throw KernelShapeError(op, name, "no buffer");
    check_elements(op, name, *b, offset, count, bytes);
    return tensor_bytes(op, name, b->id(), offset, count, bytes);
  }

  // What IntegerGemm::encode checks and cannot know in advance here: a product's grid and the
  // ranges it binds. Run for every product of the first and the last chunk before any recording.
  // `scratch_bytes`: the size the scratch buffer will have when the product runs (the family's own
  // is allocated only after every check).
  void check_product(const IntegerGemmProblem& problem, const RawBuffer& w, uint64_t scratch_bytes,
                     const Buffer<int32_t>& y) {
    const char* op = ci::kOp;
    const ComputeCapabilities& caps = device->capabilities();
    const ig::Shape x = ig::resolve(problem, op);
    ig::check_grid(ig::plan(x, product_config).grid, caps, op);
    const uint64_t align = std::max<uint64_t>(16, caps.min_storage_buffer_offset_alignment);
    struct Operand {
      const char* name;
      ig::Extent e;
      uint64_t element_bytes, buffer_bytes;
    } operands[] = {{"w", ig::extent_a(x), 1, w.size_bytes()},
                    {"scratch", ig::extent_b(x), 1, scratch_bytes},
                    {"y", ig::extent_c(x), 4, y.size_bytes()}};
    for (const Operand& o : operands) {
      const uint64_t bytes = ig::bound_range(o.e, o.element_bytes, align, o.buffer_bytes).size_bytes;
      if (bytes > caps.max_storage_buffer_range)
        throw UnsupportedError("max_storage_buffer_range",
                               std::string(op) + " product operand " + o.name + " of " + s(bytes) + " bytes",
                               s(caps.max_storage_buffer_range));
      if (bytes >= (uint64_t(1) << 32))
        throw UnsupportedError(std::string(op) + " 32-bit indices",
                               std::string("product operand ") + o.name + " below 2^32 bytes", s(bytes));
    }
  }

  void encode(CommandEncoder& encoder, const ci::Geometry& g, const ConvIntegerZeroPoints& zp,
              const ConvIntegerTensors& t) {
    const char* op = ci::kOp;
    const ComputeCapabilities& caps = set.caps();
    // The tensors, the zero points and the overlaps, before anything is recorded.
    const ci::Counts n = ci::counts(g);
    const ByteRange xr = check_tensor("x", t.x, g.x_offset, n.x, 1);
    const ByteRange wr = check_tensor("w", t.w, g.w_offset, n.w, 1);
    const ByteRange yr = check_tensor("y", t.y, g.y_offset, n.y, 4);
    check_bindable(op, *t.x, caps);  // the unfold pass binds the whole buffer
    if (zp.x.per_channel) throw KernelShapeError(op, "x_zero_point", "must be one value (per_channel is for w only)");
    const ByteRange xzr = check_zero("x_zero_point", zp.x, g.x_signed, 1, caps);
    const ByteRange wzr = check_zero("w_zero_point", zp.w, g.w_signed, g.cout, caps);
    check_disjoint(op, "y", yr, "x", xr);
    check_disjoint(op, "y", yr, "w", wr);
    check_disjoint(op, "y", yr, "x_zero_point", xzr);
    check_disjoint(op, "y", yr, "w_zero_point", wzr);

    // The scratch: the caller's range or the family's own, and the images per chunk.
    const uint64_t per_image = g.image_bytes();
    const uint64_t whole = per_image * g.batch;  // below 2^62
    const RawBuffer* scratch = &own_scratch;
    uint64_t scratch_offset = 0, bytes = 0;
    if (t.scratch != nullptr) {
      if (!*t.scratch) throw KernelShapeError(op, "scratch", "no buffer");
      if (t.scratch_offset % 4 != 0)
        throw KernelShapeError(op, "scratch", "offset " + s(t.scratch_offset) + " is not a multiple of 4 bytes");
      if (t.scratch_offset > t.scratch->size_bytes())
        throw KernelShapeError(op, "scratch", "the offset lies past the buffer");
      const uint64_t held = t.scratch->size_bytes() - t.scratch_offset;
      if (held < per_image)
        throw KernelShapeError(op, "scratch", s(held) + " bytes hold less than one image (" + s(per_image) + ")");
      check_bindable(op, *t.scratch, caps);
      scratch = t.scratch, scratch_offset = t.scratch_offset;
      // Whole images within the caller's range, one binding and 32-bit byte indices.
      const uint64_t reach = std::min<uint64_t>(caps.max_storage_buffer_range, (uint64_t(1) << 32) - 4 - scratch_offset);
      bytes = std::max(per_image, std::min({held, whole, reach}));
    } else {
      bytes = std::max(per_image, std::min({whole, options.max_scratch_bytes, caps.max_storage_buffer_range}));
    }
    // A chunk's images also index a grid dimension of the product (z, or y for few rows).
    const uint64_t grid_images = std::min(caps.max_workgroup_count[1], caps.max_workgroup_count[2]);
    const uint64_t chunk = g.batch == 0 ? 0 : std::max<uint64_t>(1, std::min(ci::chunk_images(g, bytes), grid_images));
    const uint64_t used = chunk * per_image;
    if (t.scratch == nullptr && used > caps.max_storage_buffer_range)
      throw UnsupportedError(std::string(op) + " scratch of " + s(used) + " bytes",
                             "at most one storage binding (" + s(caps.max_storage_buffer_range) + " bytes)", "larger");
    if (scratch_offset + used >= (uint64_t(1) << 32))
      throw KernelShapeError(op, "scratch", "the scratch range passes 2^32 bytes");
    if (t.scratch != nullptr) {
      const ByteRange sr = tensor_bytes(op, "scratch", t.scratch->id(), scratch_offset, used, 1);
      check_disjoint(op, "scratch", sr, "x", xr);
      check_disjoint(op, "scratch", sr, "w", wr);
      check_disjoint(op, "scratch", sr, "y", yr);
      check_disjoint(op, "scratch", sr, "x_zero_point", xzr);
      check_disjoint(op, "scratch", sr, "w_zero_point", wzr);
    }
    if (g.batch == 0) return;
    if (ceil_div(used / 4, 256) > uint64_t(caps.max_workgroup_count[0]) * caps.max_workgroup_count[1])
      throw UnsupportedError(std::string(op) + " unfold grid of " + s(ceil_div(used / 4, 256)) + " workgroups",
                             "within the device's limits", "more");
    // The products are checked against the scratch's size when they run; the family's own grows
    // only after every check has passed.
    const bool grow = scratch == &own_scratch && own_scratch.size() * 4 < used;
    const uint64_t scratch_bytes = grow ? used : scratch->size_bytes();
    const ci::Grouping grouping = ci::grouping(g, w_per_channel(zp));
    const uint64_t last = (g.batch - 1) / chunk * chunk;
    for (const uint64_t first : {uint64_t(0), last}) {
      const uint64_t images = std::min(chunk, g.batch - first);
      for (uint64_t i = 0; i < ci::product_count(g, grouping, images); ++i)
        check_product(ci::product(g, grouping, first, images, i, scratch_offset).problem, *t.w, scratch_bytes, *t.y);
    }
    if (grow) own_scratch = device->create_buffer<uint32_t>(used / 4);

    // Record, chunk by chunk: the unfold pass, then the products.
    const ComputeKernel& k = set.kernel(kUnfold);
    const BufferBinding slots[3] = {BufferBinding(*t.x), BufferBinding(*scratch),
                                    BufferBinding(zp.x.buffer ? *zp.x.buffer : static_cast<const RawBuffer&>(placeholder))};
    const auto group = set.bind(k, declared_bindings(k, slots).span());
    const IntegerGemmZeroPoints zero{.a = zp.w, .b = zp.x};
    for (uint64_t first = 0; first < g.batch; first += chunk) {
      const uint64_t images = std::min(chunk, g.batch - first);
      ConvIntegerPush push = ci::unfold_push(g, first, images, scratch_offset);
      if (zp.x.buffer) {
        push.flags |= OG_CI_ZERO_BUFFER;
        push.zero_offset = uint32_t(zp.x.offset);
      } else {
        push.zero = uint32_t(zp.x.value) & 0xffu;
      }
      encoder.begin_compute_pass().dispatch_linear(k, *group, std::as_bytes(std::span(&push, 1)),
                                                   ceil_div(push.words, 256));
      encoder.report_work(uint64_t(push.words) * 4);  // a byte of the columns is a few operations
      for (uint64_t i = 0; i < ci::product_count(g, grouping, images); ++i) {
        const ci::Product x = ci::product(g, grouping, first, images, i, scratch_offset);
        IntegerGemmZeroPoints z = zero;
        if (z.a.buffer && z.a.per_channel) z.a.offset += x.w_zero_shift;
        gemm.encode(encoder, x.problem, *t.w, *scratch, z, *t.y);
      }
    }
  }
};

ConvInteger::ConvInteger(Device& device, ConvIntegerOptions options)
    : KernelFamily(device, options.max_cached_bind_groups),
      impl_(std::make_unique<Impl>(kernels(), device, options)) {}
ConvInteger::~ConvInteger() = default;
ConvInteger::ConvInteger(ConvInteger&&) noexcept = default;
ConvInteger& ConvInteger::operator=(ConvInteger&&) noexcept = default;

void ConvInteger::encode(CommandEncoder& encoder, const ConvIntegerProblem& problem,
                         const ConvIntegerZeroPoints& zero_points, const ConvIntegerTensors& tensors) {
  impl_->encode(encoder, ci::resolve(problem), zero_points, tensors);
}

std::string ConvInteger::variant(const ConvIntegerProblem& problem, const ConvIntegerZeroPoints& zero_points) const {
  return impl_->variant(ci::resolve(problem), w_per_channel(zero_points));
}

ConvIntegerScratch ConvInteger::scratch_bytes(const ConvIntegerProblem& problem) const {
  const ci::Geometry g = ci::resolve(problem);
  return {g.image_bytes() * g.batch, g.image_bytes()};
}

}  // namespace onegpu::kernels
