#include "vulkan/pipeline_layout.h"

namespace onegpu::vulkan {

VkDescriptorType descriptor_type(const ShaderBinding& b) {
  switch (b.kind) {
    case BindingKind::uniform_buffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case BindingKind::storage_buffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case BindingKind::sampled_texture:
      return b.combined_sampler ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case BindingKind::storage_texture: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case BindingKind::sampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

UniqueHandle<VkDescriptorSetLayout> create_set_layout(Context& c, const std::vector<ShaderBinding>& bindings,
                                                      VkShaderStageFlags stages) {
  std::vector<VkDescriptorSetLayoutBinding> items;
  items.reserve(bindings.size());
  for (const ShaderBinding& b : bindings) {
    VkDescriptorSetLayoutBinding lb{};
    lb.binding = b.binding;
    lb.descriptorType = descriptor_type(b);
    lb.descriptorCount = 1;
    lb.stageFlags = stages;
    items.push_back(lb);
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = static_cast<uint32_t>(items.size());
  li.pBindings = items.data();
  return create_owned<VkDescriptorSetLayout>(c, "vkCreateDescriptorSetLayout", [&](VkDescriptorSetLayout* h) {
    return c.fn.vkCreateDescriptorSetLayout(c.device, &li, nullptr, h);
  });
}

UniqueHandle<VkPipelineLayout> create_pipeline_layout(Context& c, VkDescriptorSetLayout set_layout,
                                                      VkShaderStageFlags stages, uint32_t push_constant_size) {
  const VkPushConstantRange range{stages, 0, push_constant_size};
  VkPipelineLayoutCreateInfo pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pi.setLayoutCount = 1;
  pi.pSetLayouts = &set_layout;
  pi.pushConstantRangeCount = push_constant_size ? 1 : 0;
  pi.pPushConstantRanges = &range;
  return create_owned<VkPipelineLayout>(c, "vkCreatePipelineLayout", [&](VkPipelineLayout* h) {
    return c.fn.vkCreatePipelineLayout(c.device, &pi, nullptr, h);
  });
}

}  // namespace onegpu::vulkan
