#include "vulkan/check.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::vulkan {
namespace {

std::mutex g_mu;
std::map<std::string, std::pair<VkResult, int>> g_injected;
std::atomic<bool> g_any{false};

}  // namespace

const char* result_name(VkResult r) {
  switch (r) {
#define ONEGPU_CASE(x) case x: return #x;
    ONEGPU_CASE(VK_SUCCESS) ONEGPU_CASE(VK_NOT_READY) ONEGPU_CASE(VK_TIMEOUT) ONEGPU_CASE(VK_INCOMPLETE)
    ONEGPU_CASE(VK_ERROR_OUT_OF_HOST_MEMORY) ONEGPU_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    ONEGPU_CASE(VK_ERROR_INITIALIZATION_FAILED) ONEGPU_CASE(VK_ERROR_DEVICE_LOST)
    ONEGPU_CASE(VK_ERROR_MEMORY_MAP_FAILED) ONEGPU_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    ONEGPU_CASE(VK_ERROR_EXTENSION_NOT_PRESENT) ONEGPU_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    ONEGPU_CASE(VK_ERROR_INCOMPATIBLE_DRIVER) ONEGPU_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    ONEGPU_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED) ONEGPU_CASE(VK_ERROR_FRAGMENTED_POOL)
    ONEGPU_CASE(VK_ERROR_UNKNOWN) ONEGPU_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    ONEGPU_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE) ONEGPU_CASE(VK_ERROR_FRAGMENTATION)
#undef ONEGPU_CASE
    default: return "VkResult";
  }
}

void check(VkResult r, const char* call, uint64_t requested_bytes) {
  if (r >= 0) return;
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      throw OutOfMemoryError(call, requested_bytes);
    case VK_ERROR_DEVICE_LOST:
      throw DeviceLostError(call);
    default:
      throw CommandError(call, static_cast<int32_t>(r), result_name(r));
  }
}

void inject_failure(const char* call, VkResult result, int count) {
  std::lock_guard lock(g_mu);
  g_injected[call] = {result, count};
  g_any = true;
}

void clear_injected_failures() {
  std::lock_guard lock(g_mu);
  g_injected.clear();
  g_any = false;
}

VkResult take_injected(const char* call) {
  if (!g_any.load(std::memory_order_relaxed)) return VK_SUCCESS;
  std::lock_guard lock(g_mu);
  auto it = g_injected.find(call);
  if (it == g_injected.end() || it->second.second <= 0) return VK_SUCCESS;
  VkResult r = it->second.first;
  if (--it->second.second == 0) g_injected.erase(it);
  return r;
}

}  // namespace onegpu::vulkan
