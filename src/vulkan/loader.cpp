#include "vulkan/loader.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "core/env.h"

namespace onegpu::vulkan {

namespace {

Loader open_loader() {
  Loader l;
  std::vector<std::string> names;
  if (auto v = core::env("ONEGPU_VULKAN_LIBRARY")) names.push_back(*v);
  names.push_back("libvulkan.so.1");
  for (const auto& n : names) {
    l.tried += (l.tried.empty() ? "" : ", ") + n;
    void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) continue;
    l.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(h, "vkGetInstanceProcAddr"));
    if (l.vkGetInstanceProcAddr == nullptr) continue;
    auto get = [&](const char* f) { return l.vkGetInstanceProcAddr(VK_NULL_HANDLE, f); };
    l.vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(get("vkCreateInstance"));
    l.vkEnumerateInstanceLayerProperties =
        reinterpret_cast<PFN_vkEnumerateInstanceLayerProperties>(get("vkEnumerateInstanceLayerProperties"));
    l.vkEnumerateInstanceExtensionProperties =
        reinterpret_cast<PFN_vkEnumerateInstanceExtensionProperties>(get("vkEnumerateInstanceExtensionProperties"));
    l.vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(get("vkEnumerateInstanceVersion"));
    l.available = l.vkCreateInstance != nullptr;
    if (l.available) break;
  }
  return l;
}

}  // namespace

const Loader& loader() {
  static const Loader l = open_loader();
  return l;
}

#define ONEGPU_VK_LOAD_INSTANCE(name) name = reinterpret_cast<PFN_##name>(gipa(instance, #name));
#define ONEGPU_VK_LOAD_DEVICE(name) name = reinterpret_cast<PFN_##name>(fi.vkGetDeviceProcAddr(device, #name));

void InstanceFunctions::load(VkInstance instance) {
  auto gipa = loader().vkGetInstanceProcAddr;
  ONEGPU_VK_INSTANCE_FUNCTIONS(ONEGPU_VK_LOAD_INSTANCE)
  vkCreateDebugUtilsMessengerEXT =
      reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(gipa(instance, "vkCreateDebugUtilsMessengerEXT"));
  vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
          gipa(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV>(
          gipa(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  ONEGPU_VK_LOAD_INSTANCE(vkDestroySurfaceKHR)
  ONEGPU_VK_LOAD_INSTANCE(vkGetPhysicalDeviceSurfaceSupportKHR)
  ONEGPU_VK_LOAD_INSTANCE(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)
  ONEGPU_VK_LOAD_INSTANCE(vkGetPhysicalDeviceSurfaceFormatsKHR)
  ONEGPU_VK_LOAD_INSTANCE(vkGetPhysicalDeviceSurfacePresentModesKHR)
  vkCreateXcbSurfaceKHR = gipa(instance, "vkCreateXcbSurfaceKHR");
}

void DeviceFunctions::load(const InstanceFunctions& fi, VkDevice device) {
  ONEGPU_VK_DEVICE_FUNCTIONS(ONEGPU_VK_LOAD_DEVICE)
}

void DeviceFunctions::load_pipeline_statistics(const InstanceFunctions& fi, VkDevice device) {
  ONEGPU_VK_LOAD_DEVICE(vkGetPipelineExecutablePropertiesKHR)
  ONEGPU_VK_LOAD_DEVICE(vkGetPipelineExecutableStatisticsKHR)
}

void DeviceFunctions::load_swapchain(const InstanceFunctions& fi, VkDevice device) {
  ONEGPU_VK_LOAD_DEVICE(vkCreateSwapchainKHR)
  ONEGPU_VK_LOAD_DEVICE(vkDestroySwapchainKHR)
  ONEGPU_VK_LOAD_DEVICE(vkGetSwapchainImagesKHR)
  ONEGPU_VK_LOAD_DEVICE(vkAcquireNextImageKHR)
  ONEGPU_VK_LOAD_DEVICE(vkQueuePresentKHR)
  ONEGPU_VK_LOAD_DEVICE(vkQueueWaitIdle)
}

}  // namespace onegpu::vulkan
