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
#include <span>
#include <string>
#include <string_view>
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

// Whether the message with this ID and text is dropped: only messages about calls the library
// never makes and, from layers that predate VK_KHR_shader_bfloat16, those saying they do not know
// it (its extension and structure at device creation; SPV_KHR_bfloat16 and its capabilities in a
// module that declares bfloat16: `bfloat16_module`).
// `matrix_columns`: the vertex-input locations that hold a second or later column of a matrix
// input in the graphics pipeline being created (see ScopedMatrixColumns).
bool ignored_message(std::string_view id, std::string_view text, bool bfloat16_module,
                     std::span<const uint32_t> matrix_columns = {});

// While alive, the shader module this thread creates declares bfloat16 (SPV_KHR_bfloat16) when
// `bfloat16` is true: the messages of validation layers before 1.4.311 saying only that they do not
// know that extension and its capabilities are dropped for it (see docs/gpu-machine.md).
class ScopedBfloat16Module {
 public:
  explicit ScopedBfloat16Module(bool bfloat16);
  ~ScopedBfloat16Module();

 private:
  bool previous_;
};

// While alive, the graphics pipeline this thread creates reads matrix inputs whose second and later
// columns sit at `locations`. Layers up to at least 1.4.309 count a matrix input as one location
// and warn that the attributes feeding its other columns go unconsumed; the library hands the
// driver only attributes the vertex shader reads, so for these locations that warning is dropped.
class ScopedMatrixColumns {
 public:
  explicit ScopedMatrixColumns(std::vector<uint32_t> locations);
  ~ScopedMatrixColumns();

 private:
  std::vector<uint32_t> locations_;
  const std::vector<uint32_t>* previous_;
};

VKAPI_ATTR VkBool32 VKAPI_CALL messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void* user);

}  // namespace validation
}  // namespace onegpu::vulkan
