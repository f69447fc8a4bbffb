// The public RenderPipeline handle and Device::create_render_pipeline: checks, then the backend.
#include "backend/backend.h"
#include "core/render_checks.h"
#include "core/spirv_structure.h"
#include "onegpu/device.h"
#include "onegpu/errors.h"
#include "onegpu/render.h"

namespace onegpu {

RenderPipeline Device::create_render_pipeline(const RenderPipelineDescriptor& descriptor) {
  backend::Device& d = live();
  if (descriptor.vertex == nullptr)
    throw KernelShapeError("create_render_pipeline", "vertex", "no shader given");
  const ShaderSource& v = *descriptor.vertex;
  core::check_spirv_structure(v.spirv, v.entry_point, v.name, ShaderStage::vertex, "create_render_pipeline", "vertex");
  if (descriptor.fragment != nullptr) {
    const ShaderSource& f = *descriptor.fragment;
    core::check_spirv_structure(f.spirv, f.entry_point, f.name, ShaderStage::fragment, "create_render_pipeline",
                                "fragment");
  }
  core::RenderPipelinePlan plan = core::plan_render_pipeline(descriptor, d.render_limits());
  const std::string& label = descriptor.label.empty() ? v.name : descriptor.label;
  return RenderPipeline(d.create_render_pipeline(descriptor, std::move(plan), label));
}

RenderPipeline::RenderPipeline(std::shared_ptr<backend::RenderPipeline> impl) : impl_(std::move(impl)) {}
const ShaderReflection& RenderPipeline::reflection() const { return impl().reflection(); }
const std::string& RenderPipeline::label() const { return impl().label(); }
backend::RenderPipeline& RenderPipeline::impl() const {
  if (!impl_) throw UsageError("render pipeline", "the pipeline is empty");
  return *impl_;
}

VertexFormatInfo vertex_format_info(VertexFormat format) {
  using K = ComponentKind;
  static constexpr VertexFormatInfo kInfo[kVertexFormatCount] = {
      {"float32", 4, 1, K::float_},  {"float32x2", 8, 2, K::float_}, {"float32x3", 12, 3, K::float_},
      {"float32x4", 16, 4, K::float_}, {"uint32", 4, 1, K::uint},     {"uint32x2", 8, 2, K::uint},
      {"uint32x3", 12, 3, K::uint},    {"uint32x4", 16, 4, K::uint},   {"sint32", 4, 1, K::sint},
      {"sint32x2", 8, 2, K::sint},     {"sint32x3", 12, 3, K::sint},   {"sint32x4", 16, 4, K::sint},
      {"unorm8x4", 4, 4, K::float_},   {"snorm8x4", 4, 4, K::float_},  {"uint8x4", 4, 4, K::uint},
      {"float16x2", 4, 2, K::float_},  {"float16x4", 8, 4, K::float_},
  };
  const uint32_t i = static_cast<uint32_t>(format);
  return i < kVertexFormatCount ? kInfo[i] : VertexFormatInfo{"invalid", 0, 0, K::float_};
}

}  // namespace onegpu
