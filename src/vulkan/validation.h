// Routing validation-layer messages to the device that owns the objects they name.
//
// Devices share one instance and one messenger. Every object a device creates is registered here
// with the device's id; a message goes to the owner of the first registered object it names, to
// the device being created or destroyed on this thread when it names none, and to every live
// device otherwise (dropping it would hide a real problem).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vulkan/compat.h"

namespace onegpu::vulkan {

// Messages collected for one device; outlives the device so they can be read after destroy.
class ValidationLog {
 public:
  void add(std::string message);
  std::vector<std::string> take();

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
};

namespace validation {

// Registers a device's log; returns its id.
uint32_t add_device(std::shared_ptr<ValidationLog> log);
// Drops the device and every object registered to it.
void remove_device(uint32_t device);
void track(uint64_t handle, uint32_t device);
void untrack(uint64_t handle);
template <class H>
void track(H handle, uint32_t device) { track(reinterpret_cast<uint64_t>(handle), device); }
template <class H>
void untrack(H handle) { untrack(reinterpret_cast<uint64_t>(handle)); }

// While alive, messages that name no registered object go to `device` (device creation and
// destruction).
class ScopedCurrentDevice {
 public:
  explicit ScopedCurrentDevice(uint32_t device);
  ~ScopedCurrentDevice();

 private:
  uint32_t previous_;
};

VKAPI_ATTR VkBool32 VKAPI_CALL messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void* user);

}  // namespace validation
}  // namespace onegpu::vulkan
