// Reading adapters and their capabilities from Vulkan physical devices.
#pragma once

#include <vector>

#include "onegpu/adapter.h"
#include "vulkan/instance.h"

namespace onegpu::vulkan {

struct PhysicalAdapter {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  AdapterInfo info;
  uint32_t queue_family = UINT32_MAX;  // first family with compute; UINT32_MAX when none
  uint32_t timestamp_valid_bits = 0;
  bool has_cooperative_matrix_ext = false;
  bool has_cooperative_matrix2_ext = false;
  // VK_NV_cooperative_matrix2 features as reported (all enabled at creation; pNext unused).
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV cooperative_matrix2{};
  bool has_bfloat16_ext = false;
  bool has_pipeline_executable_properties_ext = false;
  bool has_swapchain_ext = false;
  bool bfloat16_cooperative_matrix = false;
  bool vulkan_memory_model = false;
  bool vulkan_memory_model_device_scope = false;
  bool subgroup_extended_types = false;
  bool maintenance4 = false;
  bool timeline_semaphore = false;
  bool synchronization2 = false;
  bool buffer_device_address = false;
};

// Every adapter of the instance, in adapter order.
std::vector<PhysicalAdapter> physical_adapters(const Instance& instance);

}  // namespace onegpu::vulkan
