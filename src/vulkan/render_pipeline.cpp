// Graphics pipelines for dynamic rendering, and what the device offers them.
#include <algorithm>
#include <vector>

#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/formats.h"
#include "vulkan/objects.h"
#include "vulkan/pipeline_layout.h"
#include "vulkan/validation.h"

namespace onegpu::vulkan {
namespace {

VkPrimitiveTopology topology(PrimitiveTopology t) {
  switch (t) {
    case PrimitiveTopology::point_list: return VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    case PrimitiveTopology::line_list: return VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    case PrimitiveTopology::line_strip: return VK_PRIMITIVE_TOPOLOGY_LINE_STRIP;
    case PrimitiveTopology::triangle_list: return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    case PrimitiveTopology::triangle_strip: return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  }
  return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
}

VkCullModeFlags cull(CullMode m) {
  switch (m) {
    case CullMode::none: return VK_CULL_MODE_NONE;
    case CullMode::front: return VK_CULL_MODE_FRONT_BIT;
    case CullMode::back: return VK_CULL_MODE_BACK_BIT;
  }
  return VK_CULL_MODE_NONE;
}

VkBlendFactor factor(BlendFactor f) {
  switch (f) {
    case BlendFactor::zero: return VK_BLEND_FACTOR_ZERO;
    case BlendFactor::one: return VK_BLEND_FACTOR_ONE;
    case BlendFactor::src: return VK_BLEND_FACTOR_SRC_COLOR;
    case BlendFactor::one_minus_src: return VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR;
    case BlendFactor::src_alpha: return VK_BLEND_FACTOR_SRC_ALPHA;
    case BlendFactor::one_minus_src_alpha: return VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    case BlendFactor::dst: return VK_BLEND_FACTOR_DST_COLOR;
    case BlendFactor::one_minus_dst: return VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR;
    case BlendFactor::dst_alpha: return VK_BLEND_FACTOR_DST_ALPHA;
    case BlendFactor::one_minus_dst_alpha: return VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA;
    case BlendFactor::src_alpha_saturated: return VK_BLEND_FACTOR_SRC_ALPHA_SATURATE;
    case BlendFactor::constant: return VK_BLEND_FACTOR_CONSTANT_COLOR;
    case BlendFactor::one_minus_constant: return VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR;
  }
  return VK_BLEND_FACTOR_ONE;
}

VkBlendOp blend_op(BlendOperation o) {
  switch (o) {
    case BlendOperation::add: return VK_BLEND_OP_ADD;
    case BlendOperation::subtract: return VK_BLEND_OP_SUBTRACT;
    case BlendOperation::reverse_subtract: return VK_BLEND_OP_REVERSE_SUBTRACT;
    case BlendOperation::min: return VK_BLEND_OP_MIN;
    case BlendOperation::max: return VK_BLEND_OP_MAX;
  }
  return VK_BLEND_OP_ADD;
}

VkCompareOp compare_op(CompareFunction f) {
  switch (f) {
    case CompareFunction::never: return VK_COMPARE_OP_NEVER;
    case CompareFunction::less: return VK_COMPARE_OP_LESS;
    case CompareFunction::equal: return VK_COMPARE_OP_EQUAL;
    case CompareFunction::less_equal: return VK_COMPARE_OP_LESS_OR_EQUAL;
    case CompareFunction::greater: return VK_COMPARE_OP_GREATER;
    case CompareFunction::not_equal: return VK_COMPARE_OP_NOT_EQUAL;
    case CompareFunction::greater_equal: return VK_COMPARE_OP_GREATER_OR_EQUAL;
    case CompareFunction::always: return VK_COMPARE_OP_ALWAYS;
  }
  return VK_COMPARE_OP_ALWAYS;
}

}  // namespace

core::RenderLimits read_render_limits(const Instance& instance, const PhysicalAdapter& adapter) {
  const InstanceFunctions& f = instance.fn;
  const VkPhysicalDevice pd = adapter.handle;
  core::RenderLimits l;
  uint32_t n = 0;
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  f.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  l.graphics = adapter.queue_family < n && (families[adapter.queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT);
  VkPhysicalDeviceProperties props{};
  f.vkGetPhysicalDeviceProperties(pd, &props);
  l.max_vertex_buffers = props.limits.maxVertexInputBindings;
  l.max_vertex_attributes = props.limits.maxVertexInputAttributes;
  l.max_vertex_stride = props.limits.maxVertexInputBindingStride;
  l.max_color_attachments = props.limits.maxColorAttachments;
  l.max_push_constants_bytes = props.limits.maxPushConstantsSize;
  l.features = adapter.info.compute.features;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f.vkGetPhysicalDeviceFeatures2(pd, &features);
  l.vertex_stores = features.features.vertexPipelineStoresAndAtomics;  // enabled at creation
  l.fragment_stores = features.features.fragmentStoresAndAtomics;
  l.independent_blend = features.features.independentBlend;
  for (uint32_t i = 0; i < kTextureFormatCount; ++i) {
    const TextureFormat format = static_cast<TextureFormat>(i);
    VkFormatProperties fp{};
    f.vkGetPhysicalDeviceFormatProperties(pd, vk_format(format), &fp);
    core::RenderFormatSupport& s = l.formats[i];
    const VkFormatFeatureFlags tiled = fp.optimalTilingFeatures;
    const bool depth = is_depth_format(format);
    s.color_attachment = !depth && (tiled & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT);
    s.blendable = s.color_attachment && (tiled & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT);
    s.depth_attachment = depth && (tiled & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
    if (!s.color_attachment && !s.depth_attachment) continue;
    VkImageFormatProperties ip{};
    const VkImageUsageFlags usage =
        depth ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    if (f.vkGetPhysicalDeviceImageFormatProperties(pd, vk_format(format), VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                   usage, 0, &ip) == VK_SUCCESS)
      s.sample_counts = ip.sampleCounts;
  }
  return l;
}

VulkanRenderPipeline::VulkanRenderPipeline(std::shared_ptr<Context> ctx, const RenderPipelineDescriptor& desc,
                                           core::RenderPipelinePlan plan, std::string label)
    : ctx_(std::move(ctx)), reflection_(std::move(plan.reflection)), label_(std::move(label)), buffers_(desc.buffers) {
  for (const ColorTargetState& t : desc.targets) targets_.colors.push_back(t.format);
  if (desc.depth_stencil) targets_.depth = desc.depth_stencil->format;
  targets_.samples = desc.multisample.count;
  owner_ = ctx_.get();
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("create_render_pipeline", "the device is closed");
  Context& c = *ctx_;
  const DeviceFunctions& fn = c.fn;
  VkDevice d = c.device;

  // Released when the constructor ends: the pipeline does not need them.
  auto make_module = [&](const ShaderSource& s) {
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = s.spirv.size() * 4;
    mi.pCode = s.spirv.data();
    return create_owned<VkShaderModule>(
        c, "vkCreateShaderModule", [&](VkShaderModule* h) { return fn.vkCreateShaderModule(d, &mi, nullptr, h); });
  };
  UniqueHandle<VkShaderModule> vertex = make_module(*desc.vertex);
  UniqueHandle<VkShaderModule> fragment;
  if (desc.fragment != nullptr) fragment = make_module(*desc.fragment);

  constexpr VkShaderStageFlags kStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  set_layout_ = create_set_layout(c, reflection_.bindings, kStages);
  layout_ = create_pipeline_layout(c, set_layout_.get(), kStages, reflection_.push_constant_size);

  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex.get();
  stages[0].pName = desc.vertex->entry_point.c_str();
  if (desc.fragment != nullptr) {
    stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = fragment.get();
    stages[1].pName = desc.fragment->entry_point.c_str();
  }

  std::vector<VkVertexInputBindingDescription> vbindings;
  std::vector<VkVertexInputAttributeDescription> vattributes;
  const std::vector<StageVariable>& inputs = desc.vertex->reflection.inputs;
  for (uint32_t i = 0; i < desc.buffers.size(); ++i) {
    const VertexBufferLayout& b = desc.buffers[i];
    vbindings.push_back({i, static_cast<uint32_t>(b.stride),
                         b.step_mode == VertexStepMode::instance ? VK_VERTEX_INPUT_RATE_INSTANCE
                                                                 : VK_VERTEX_INPUT_RATE_VERTEX});
    // An attribute the vertex shader does not read is allowed (as in webgpu.h) but not handed to
    // the driver, which would warn that it goes unconsumed.
    for (const VertexAttribute& a : b.attributes)
      if (std::any_of(inputs.begin(), inputs.end(), [&](const StageVariable& v) { return v.location == a.location; }))
        vattributes.push_back({a.location, i, vk_vertex_format(a.format), static_cast<uint32_t>(a.offset)});
  }
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vi.vertexBindingDescriptionCount = static_cast<uint32_t>(vbindings.size());
  vi.pVertexBindingDescriptions = vbindings.data();
  vi.vertexAttributeDescriptionCount = static_cast<uint32_t>(vattributes.size());
  vi.pVertexAttributeDescriptions = vattributes.data();

  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = topology(desc.primitive.topology);
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.polygonMode = VK_POLYGON_MODE_FILL;
  rs.cullMode = cull(desc.primitive.cull_mode);
  rs.frontFace = desc.primitive.front_face == FrontFace::ccw ? VK_FRONT_FACE_COUNTER_CLOCKWISE : VK_FRONT_FACE_CLOCKWISE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = static_cast<VkSampleCountFlagBits>(desc.multisample.count);
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  if (desc.depth_stencil) {
    ds.depthTestEnable = VK_TRUE;
    ds.depthWriteEnable = desc.depth_stencil->depth_write ? VK_TRUE : VK_FALSE;
    ds.depthCompareOp = compare_op(desc.depth_stencil->depth_compare);
  }
  std::vector<VkPipelineColorBlendAttachmentState> blends;
  std::vector<VkFormat> color_formats;
  for (const ColorTargetState& t : desc.targets) {
    VkPipelineColorBlendAttachmentState a{};
    a.colorWriteMask = t.write_mask;
    if (t.blend) {
      a.blendEnable = VK_TRUE;
      a.srcColorBlendFactor = factor(t.blend->color.src_factor);
      a.dstColorBlendFactor = factor(t.blend->color.dst_factor);
      a.colorBlendOp = blend_op(t.blend->color.operation);
      a.srcAlphaBlendFactor = factor(t.blend->alpha.src_factor);
      a.dstAlphaBlendFactor = factor(t.blend->alpha.dst_factor);
      a.alphaBlendOp = blend_op(t.blend->alpha.operation);
    }
    blends.push_back(a);
    color_formats.push_back(vk_format(t.format));
  }
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = static_cast<uint32_t>(blends.size());
  cb.pAttachments = blends.data();
  // The blend constant is the pipeline's (0, 0, 0, 0) until passes can set it.
  const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dy{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dy.dynamicStateCount = 2;
  dy.pDynamicStates = dynamic;

  VkPipelineRenderingCreateInfo ri{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  ri.colorAttachmentCount = static_cast<uint32_t>(color_formats.size());
  ri.pColorAttachmentFormats = color_formats.data();
  if (desc.depth_stencil) {
    ri.depthAttachmentFormat = vk_format(desc.depth_stencil->format);
  }

  VkGraphicsPipelineCreateInfo gi{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  gi.pNext = &ri;
  gi.stageCount = desc.fragment != nullptr ? 2 : 1;
  gi.pStages = stages;
  gi.pVertexInputState = &vi;
  gi.pInputAssemblyState = &ia;
  gi.pViewportState = &vp;
  gi.pRasterizationState = &rs;
  gi.pMultisampleState = &ms;
  gi.pDepthStencilState = &ds;
  gi.pColorBlendState = &cb;
  gi.pDynamicState = &dy;
  gi.layout = layout_.get();
  std::vector<uint32_t> matrix_columns;
  for (const StageVariable& v : inputs)
    if (v.matrix_column > 0) matrix_columns.push_back(v.location);
  validation::ScopedMatrixColumns matrix_scope(std::move(matrix_columns));
  pipeline_ = create_owned<VkPipeline>(c, "vkCreateGraphicsPipelines", [&](VkPipeline* h) {
    return fn.vkCreateGraphicsPipelines(d, VK_NULL_HANDLE, 1, &gi, nullptr, h);
  });
}

}  // namespace onegpu::vulkan
