// Turning VkResult into the library's exceptions, with a hook for tests to inject failures.
#pragma once

#include <cstdint>

#include "vulkan/compat.h"

namespace onegpu::vulkan {

const char* result_name(VkResult r);

// Throws OutOfMemoryError (with `requested_bytes`), DeviceLostError or CommandError naming `call`
// unless r is VK_SUCCESS (or another non-negative status).
void check(VkResult r, const char* call, uint64_t requested_bytes = 0);

// Runs `f` unless a failure was injected for `call`, then checks the result.
template <class F>
VkResult call_checked(const char* call, uint64_t requested_bytes, F&& f);

// Tests: the next `count` calls named `call` fail with `result` without reaching the driver.
void inject_failure(const char* call, VkResult result, int count = 1);
void clear_injected_failures();
// The injected result for `call`, consuming one, or VK_SUCCESS.
VkResult take_injected(const char* call);

template <class F>
VkResult call_checked(const char* call, uint64_t requested_bytes, F&& f) {
  VkResult r = take_injected(call);
  if (r == VK_SUCCESS) r = f();
  check(r, call, requested_bytes);
  return r;
}

}  // namespace onegpu::vulkan
