#include "vulkan/instance.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/validation.h"

namespace onegpu::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool has_extension(const char* name) {
  const Loader& l = loader();
  uint32_t n = 0;
  l.vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  l.vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::unique_ptr<Instance> create(bool validation) {
  const Loader& l = loader();
  if (!l.available) throw UnsupportedError("vulkan loader", l.tried, "not found");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "onegpu";
  app.pEngineName = "onegpu";
  app.apiVersion = VK_API_VERSION_1_3;
  std::vector<const char*> exts, layers;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  if (has_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    exts.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    ci.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  // Window surfaces only where the loader offers them: without a window system the rest works.
  const bool surfaces = has_extension(VK_KHR_SURFACE_EXTENSION_NAME) && has_extension("VK_KHR_xcb_surface");
  if (surfaces) {
    exts.push_back(VK_KHR_SURFACE_EXTENSION_NAME);
    exts.push_back("VK_KHR_xcb_surface");
  }
  VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = validation::messenger_callback;
  if (validation) {
    layers.push_back(kValidationLayer);
    exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    ci.pNext = &messenger;
  }
  ci.pApplicationInfo = &app;
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  auto inst = std::make_unique<Instance>();
  inst->validation = validation;
  inst->surfaces = surfaces;
  call_checked("vkCreateInstance", 0, [&] { return l.vkCreateInstance(&ci, nullptr, &inst->handle); });
  inst->fn.load(inst->handle);
  if (validation) {
    VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;  // kept with the instance, for the process
    if (inst->fn.vkCreateDebugUtilsMessengerEXT == nullptr)
      throw UnsupportedError("validation messages", VK_EXT_DEBUG_UTILS_EXTENSION_NAME, "missing");
    call_checked("vkCreateDebugUtilsMessengerEXT", 0, [&] {
      return inst->fn.vkCreateDebugUtilsMessengerEXT(inst->handle, &messenger, nullptr, &m);
    });
  }
  return inst;
}

}  // namespace

bool loader_available() { return loader().available; }

bool validation_layer_available() {
  const Loader& l = loader();
  if (!l.available) return false;
  uint32_t n = 0;
  l.vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  l.vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& p : layers)
    if (std::strcmp(p.layerName, kValidationLayer) == 0) return true;
  return false;
}

const Instance& instance(bool validation) {
  static std::mutex mu;
  static Instance* instances[2] = {nullptr, nullptr};  // never destroyed: kept for the process
  std::lock_guard lock(mu);
  Instance*& slot = instances[validation ? 1 : 0];
  if (slot == nullptr) slot = create(validation).release();
  return *slot;
}

}  // namespace onegpu::vulkan
