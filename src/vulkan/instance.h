// The process's Vulkan instances: one plain, one with the validation layer, each created on first
// use and kept for the life of the process (drivers refuse new instances after some dozens of
// create/destroy pairs).
#pragma once

#include <string>

#include "vulkan/loader.h"

namespace onegpu::vulkan {

struct Instance {
  VkInstance handle = VK_NULL_HANDLE;
  InstanceFunctions fn;
  bool validation = false;
  // VK_KHR_surface and VK_KHR_xcb_surface are enabled (the loader listed both).
  bool surfaces = false;
};

// Throws UnsupportedError when no loader is installed, CommandError when creation fails.
const Instance& instance(bool validation);
bool loader_available();
bool validation_layer_available();

}  // namespace onegpu::vulkan
