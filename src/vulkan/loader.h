// Opening the Vulkan loader at run time and the function tables the backend calls through.
#pragma once

#include <string>

#include "vulkan/compat.h"

namespace onegpu::vulkan {

#define ONEGPU_VK_INSTANCE_FUNCTIONS(X)                                                         \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)          \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2)                            \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceQueueFamilyProperties)           \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceProcAddr)              \
  X(vkGetPhysicalDeviceFormatProperties) X(vkGetPhysicalDeviceImageFormatProperties)

#define ONEGPU_VK_DEVICE_FUNCTIONS(X)                                                           \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer)                  \
  X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory)   \
  X(vkMapMemory) X(vkCreateShaderModule) X(vkDestroyShaderModule)                              \
  X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout)     \
  X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline)                  \
  X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)             \
  X(vkFreeDescriptorSets) X(vkUpdateDescriptorSets) X(vkCreateCommandPool)                     \
  X(vkDestroyCommandPool) X(vkResetCommandPool) X(vkAllocateCommandBuffers)                    \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) \
  X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdDispatchIndirect) X(vkCmdCopyBuffer)           \
  X(vkCmdPipelineBarrier) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) X(vkCreateQueryPool)   \
  X(vkDestroyQueryPool) X(vkGetQueryPoolResults) X(vkCreateSemaphore) X(vkDestroySemaphore)    \
  X(vkWaitSemaphores) X(vkGetSemaphoreCounterValue) X(vkQueueSubmit) X(vkDeviceWaitIdle)     \
  X(vkCreateGraphicsPipelines) X(vkCmdBeginRendering) X(vkCmdEndRendering)                    \
  X(vkCmdBindVertexBuffers) X(vkCmdBindIndexBuffer) X(vkCmdSetViewport) X(vkCmdSetScissor)     \
  X(vkCmdDraw) X(vkCmdDrawIndexed) X(vkCmdDrawIndirect) X(vkCmdDrawIndexedIndirect)            \
  X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory)      \
  X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateSampler) X(vkDestroySampler)            \
  X(vkCmdCopyBufferToImage) X(vkCmdCopyImageToBuffer) X(vkCmdCopyImage) X(vkCmdBlitImage)

#define ONEGPU_VK_MEMBER(name) PFN_##name name = nullptr;

struct InstanceFunctions {
  ONEGPU_VK_INSTANCE_FUNCTIONS(ONEGPU_VK_MEMBER)
  // Optional: present only when the extension is.
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR = nullptr;
  PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
      vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV = nullptr;
  // Optional: present only when VK_KHR_surface (and VK_KHR_xcb_surface) are enabled.
  PFN_vkDestroySurfaceKHR vkDestroySurfaceKHR = nullptr;
  PFN_vkGetPhysicalDeviceSurfaceSupportKHR vkGetPhysicalDeviceSurfaceSupportKHR = nullptr;
  PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR vkGetPhysicalDeviceSurfaceCapabilitiesKHR = nullptr;
  PFN_vkGetPhysicalDeviceSurfaceFormatsKHR vkGetPhysicalDeviceSurfaceFormatsKHR = nullptr;
  PFN_vkGetPhysicalDeviceSurfacePresentModesKHR vkGetPhysicalDeviceSurfacePresentModesKHR = nullptr;
  PFN_vkVoidFunction vkCreateXcbSurfaceKHR = nullptr;  // a PFN_vkCreateXcbSurfaceKHR (needs xcb's types)
  void load(VkInstance instance);
};

struct DeviceFunctions {
  ONEGPU_VK_DEVICE_FUNCTIONS(ONEGPU_VK_MEMBER)
  // Optional: loaded only when the device enabled VK_KHR_pipeline_executable_properties.
  PFN_vkGetPipelineExecutablePropertiesKHR vkGetPipelineExecutablePropertiesKHR = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR = nullptr;
  void load_pipeline_statistics(const InstanceFunctions& fi, VkDevice device);
  // Optional: loaded only when the device enabled VK_KHR_swapchain.
  PFN_vkCreateSwapchainKHR vkCreateSwapchainKHR = nullptr;
  PFN_vkDestroySwapchainKHR vkDestroySwapchainKHR = nullptr;
  PFN_vkGetSwapchainImagesKHR vkGetSwapchainImagesKHR = nullptr;
  PFN_vkAcquireNextImageKHR vkAcquireNextImageKHR = nullptr;
  PFN_vkQueuePresentKHR vkQueuePresentKHR = nullptr;
  PFN_vkQueueWaitIdle vkQueueWaitIdle = nullptr;
  void load_swapchain(const InstanceFunctions& fi, VkDevice device);
  void load(const InstanceFunctions& fi, VkDevice device);
};

// The loader's global entry points. Opened once per process (ONEGPU_VULKAN_LIBRARY first, then
// the platform's loader name) and never closed. `available` is false when no loader was found.
struct Loader {
  bool available = false;
  std::string tried;  // names tried, for the error message
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceLayerProperties vkEnumerateInstanceLayerProperties = nullptr;
  PFN_vkEnumerateInstanceExtensionProperties vkEnumerateInstanceExtensionProperties = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
};
const Loader& loader();

}  // namespace onegpu::vulkan
