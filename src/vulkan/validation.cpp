#include "vulkan/validation.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace onegpu::vulkan {

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mu_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::take() {
  std::lock_guard lock(mu_);
  return std::exchange(messages_, {});
}

namespace validation {
namespace {

struct Router {
  std::mutex mu;
  uint32_t next_id = 1;
  std::unordered_map<uint32_t, std::shared_ptr<ValidationLog>> logs;
  std::unordered_map<uint64_t, uint32_t> owners;
};

Router& router() {
  static Router* r = new Router();  // lives for the process: the messenger can fire at exit
  return *r;
}

thread_local uint32_t t_current = 0;

thread_local bool t_bfloat16_module = false;  // see ScopedBfloat16Module

thread_local const std::vector<uint32_t>* t_matrix_columns = nullptr;  // see ScopedMatrixColumns

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// Performance advice to use a transfer-optimal layout for copies: every texture stays in GENERAL
// by design (docs/textures.md, "Layouts"), so the advice does not apply.
bool ignored_performance_advice(const VkDebugUtilsMessengerCallbackDataEXT* data, VkDebugUtilsMessageTypeFlagsEXT types) {
  return (types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) != 0 && data->pMessageIdName != nullptr &&
         std::string_view(data->pMessageIdName) == "UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout";
}

// The location N of "Vertex attribute at location N not consumed by vertex shader", if `text` is
// that message.
std::optional<uint32_t> unconsumed_attribute(std::string_view text) {
  constexpr std::string_view kHead = "Vertex attribute at location ", kTail = " not consumed by vertex shader";
  const size_t at = text.find(kHead);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kHead.size());
  uint32_t location = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), location);
  if (ec != std::errc() || !rest.substr(static_cast<size_t>(end - rest.data())).starts_with(kTail)) return std::nullopt;
  return location;
}

}  // namespace

bool ignored_message(std::string_view id, std::string_view text, bool bfloat16_module,
                     std::span<const uint32_t> matrix_columns) {
  // Calls the library never makes. The device's function table is fixed at compile time and holds
  // device-level functions only, so a vkGetDeviceProcAddr of an instance-level function comes from
  // a loader or layer above us (seen with loader 1.3.239 and the 1.4.309 layer on NVIDIA 580).
  if (id == "WARNING-vkGetDeviceProcAddr-device") return true;
  // VK_KHR_shader_bfloat16 is younger than layers before 1.4.311 (the GPU machine's is 1.4.309):
  // they do not know its extension name, its feature structure (sType 1000141000) in
  // VkDeviceCreateInfo's chain, nor, in a module that declares bfloat16, SPV_KHR_bfloat16 and its
  // capabilities (BFloat16TypeKHR 5116, BFloat16DotProductKHR 5117,
  // BFloat16CooperativeMatrixKHR 5118), which their spirv-val cannot parse. Exactly these
  // messages are dropped; any other about bfloat16 (from a layer that knows the extension, about a
  // capability the device lacks, about a module that declares no bfloat16) still reaches the log.
  if (id == "WARNING-CreateDevice-extension-not-found") return contains(text, " VK_KHR_shader_bfloat16 ");
  if (id == "VUID-VkDeviceCreateInfo-pNext-pNext") return contains(text, "unknown VkStructureType (1000141000)");
  // A matrix input's later columns, which layers up to 1.4.309 do not count as read (see
  // ScopedMatrixColumns); any other unconsumed attribute still reaches the log.
  if (id == "WARNING-Shader-OutputNotConsumed") {
    const std::optional<uint32_t> location = unconsumed_attribute(text);
    return location && std::find(matrix_columns.begin(), matrix_columns.end(), *location) != matrix_columns.end();
  }
  if (bfloat16_module) {
    if (id == "VUID-VkShaderModuleCreateInfo-pCode-08741")
      return contains(text, "Extension SPV_KHR_bfloat16 was declared");
    if (id == "VUID-VkShaderModuleCreateInfo-pCode-08739") return contains(text, "Capability (Unhandled OpCapability)");
    if (id == "VUID-VkShaderModuleCreateInfo-pCode-08737")
      return contains(text, "Invalid capability operand: 5116.") ||
             contains(text, "Invalid capability operand: 5117.") || contains(text, "Invalid capability operand: 5118.");
  }
  return false;
}

uint32_t add_device(std::shared_ptr<ValidationLog> log) {
  Router& r = router();
  std::lock_guard lock(r.mu);
  uint32_t id = r.next_id++;
  r.logs[id] = std::move(log);
  return id;
}

void remove_device(uint32_t device) {
  Router& r = router();
  std::lock_guard lock(r.mu);
  r.logs.erase(device);
  std::erase_if(r.owners, [&](const auto& kv) { return kv.second == device; });
}

void track(uint64_t handle, uint32_t device) {
  Router& r = router();
  std::lock_guard lock(r.mu);
  r.owners[handle] = device;
}

void untrack(uint64_t handle) {
  Router& r = router();
  std::lock_guard lock(r.mu);
  r.owners.erase(handle);
}

ScopedCurrentDevice::ScopedCurrentDevice(uint32_t device) : previous_(t_current) { t_current = device; }
ScopedCurrentDevice::~ScopedCurrentDevice() { t_current = previous_; }

ScopedBfloat16Module::ScopedBfloat16Module(bool bfloat16) : previous_(t_bfloat16_module) {
  t_bfloat16_module = bfloat16;
}
ScopedBfloat16Module::~ScopedBfloat16Module() { t_bfloat16_module = previous_; }

ScopedMatrixColumns::ScopedMatrixColumns(std::vector<uint32_t> locations)
    : locations_(std::move(locations)), previous_(t_matrix_columns) {
  t_matrix_columns = &locations_;
}
ScopedMatrixColumns::~ScopedMatrixColumns() { t_matrix_columns = previous_; }

VKAPI_ATTR VkBool32 VKAPI_CALL messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void*) {
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT || ignored_performance_advice(data, types))
    return VK_FALSE;
  if (data->pMessageIdName != nullptr &&
      ignored_message(data->pMessageIdName, data->pMessage ? data->pMessage : "", t_bfloat16_module,
                      t_matrix_columns ? std::span<const uint32_t>(*t_matrix_columns) : std::span<const uint32_t>()))
    return VK_FALSE;
  std::string text = std::string(severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error: " : "warning: ") +
                     (data->pMessageIdName ? std::string(data->pMessageIdName) + ": " : "") +
                     (data->pMessage ? data->pMessage : "");
  Router& r = router();
  std::vector<std::shared_ptr<ValidationLog>> targets;
  {
    std::lock_guard lock(r.mu);
    uint32_t owner = 0;
    for (uint32_t i = 0; i < data->objectCount && owner == 0; ++i) {
      auto it = r.owners.find(data->pObjects[i].objectHandle);
      if (it != r.owners.end()) owner = it->second;
    }
    if (owner == 0) owner = t_current;
    if (owner != 0) {
      auto it = r.logs.find(owner);
      if (it != r.logs.end()) targets.push_back(it->second);
    }
    if (targets.empty())
      for (auto& [id, log] : r.logs) targets.push_back(log);
  }
  for (auto& log : targets) log->add(text);
  return VK_FALSE;
}

}  // namespace validation
}  // namespace onegpu::vulkan
