// Resize: the plan's taps (resize_plan.cpp) uploaded once per plan; encode checks the buffers and
// records one dispatch.
#include "onegpu/kernels/resize.h"

#include "kernels/common/aliasing.h"
#include "kernels/common/family.h"
#include "kernels/resize/resize_plan.h"
#include "onegpu/errors.h"
#include "resize_variants.h"

namespace onegpu::kernels {

static_assert(resize::kVariants.push_constants_are("resize.", sizeof(ResizePush)));
static_assert(sizeof(ResizePush) <= 128, "every Vulkan device offers 128 bytes of push constants");
static_assert(sizeof(ResizeTap) == 4 * OG_RESIZE_TAP_WORDS, "a tap is three words in the tap buffer");

namespace {

constexpr Variant kVariantList[] = {
    resize::kVariants.at("resize.nearest.b32"),
    resize::kVariants.at("resize.nearest.b16"),
    resize::kVariants.at("resize.linear.f32"),
    resize::kVariants.at("resize.linear.f16"),
};

Variant variant_named(std::string_view name) {
  for (const Variant& v : kVariantList)
    if (v.name() == name) return v;
  return kVariantList[0];
}

RawBuffer upload(Device& device, const ResizeTaps& taps) {
  std::vector<ResizeTap> all(taps.rows);
  all.insert(all.end(), taps.columns.begin(), taps.columns.end());
  return device.create_buffer(all);
}

}  // namespace

ResizePlan::ResizePlan(Device& device, const ResizeProblem& problem)
    : problem_(problem), taps_(ResizeTaps::of(problem)), buffer_(upload(device, taps_)) {}

uint64_t ResizePlan::input_elements() const { return resize::plan(problem_).input_count; }
uint64_t ResizePlan::output_elements() const { return resize::plan(problem_).output_count; }
std::string ResizePlan::describe() const { return std::string(resize::plan(problem_).variant); }

struct Resize::Impl {
  KernelSet& set;

  ByteRange check_buffer(const char* name, const RawBuffer& b, uint64_t offset, uint64_t count, DataType type) {
    const uint64_t bytes = data_type_size(type);
    check_elements("Resize", name, b, offset, count, bytes);
    const ByteRange r = tensor_bytes("Resize", name, b.id(), offset, count, bytes);
    if (r.end > b.size_bytes())
      throw KernelShapeError("Resize", name, "the buffer ends inside the tensor's last word (allocate padded_length)");
    check_bindable("Resize", b, set.caps());
    return r;
  }

  void encode(CommandEncoder& encoder, const ResizePlan& plan, const RawBuffer& x, const RawBuffer& y) {
    const ResizeProblem& pr = plan.problem();
    const resize::Plan p = resize::plan(pr);
    const ByteRange xr = check_buffer("x", x, pr.x_offset, p.input_count, pr.type);
    const ByteRange yr = check_buffer("y", y, pr.y_offset, p.output_count, pr.type);
    check_disjoint("Resize", "y", yr, "x", xr);
    check_separate_buffers(set.caps(), "Resize", "y", yr, "x", xr);
    const ComputeKernel& k = set.kernel(variant_named(p.variant));
    const BufferBinding buffers[] = {BufferBinding(x), BufferBinding(plan.tap_buffer()), BufferBinding(y)};
    const auto group = set.bind(k, buffers);
    encoder.begin_compute_pass().dispatch_linear(k, *group, std::as_bytes(std::span(&p.push, 1)), p.workgroups);
  }
};

Resize::Resize(Device& device, ResizeOptions options)
    : KernelFamily(device, options.max_cached_bind_groups), impl_(std::make_unique<Impl>(Impl{kernels()})) {}
Resize::~Resize() = default;
Resize::Resize(Resize&&) noexcept = default;
Resize& Resize::operator=(Resize&&) noexcept = default;

void Resize::encode(CommandEncoder& encoder, const ResizePlan& plan, const RawBuffer& x, const RawBuffer& y) {
  impl_->encode(encoder, plan, x, y);
}

}  // namespace onegpu::kernels
