// What compute and render pipelines share: handles created straight into their owners, and the
// descriptor-set and pipeline layouts built from a shader's reflection.
#pragma once

#include <vector>

#include "onegpu/shader.h"
#include "vulkan/check.h"
#include "vulkan/context.h"
#include "vulkan/validation.h"

namespace onegpu::vulkan {

// Each handle goes into its owner as soon as it exists, so a later failure releases it.
template <class Handle, class Make>
UniqueHandle<Handle> create_owned(Context& c, const char* call, Make make) {
  Handle h = VK_NULL_HANDLE;
  call_checked(call, 0, [&] { return make(&h); });
  validation::track(h, c.id);
  return UniqueHandle<Handle>(c, h);
}

VkDescriptorType descriptor_type(const ShaderBinding& binding);

// One set layout over `bindings` (set 0), every binding visible to `stages`.
UniqueHandle<VkDescriptorSetLayout> create_set_layout(Context& c, const std::vector<ShaderBinding>& bindings,
                                                      VkShaderStageFlags stages);

// A pipeline layout of that set and one push-constant range of `push_constant_size` bytes (none
// when 0), visible to `stages`.
UniqueHandle<VkPipelineLayout> create_pipeline_layout(Context& c, VkDescriptorSetLayout set_layout,
                                                      VkShaderStageFlags stages, uint32_t push_constant_size);

}  // namespace onegpu::vulkan
