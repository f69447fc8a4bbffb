#include "webgpu/context.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace onegpu::webgpu {

Context::~Context() {
  if (queue != nullptr) fn.wgpuQueueRelease(queue);
  if (device != nullptr) fn.wgpuDeviceRelease(device);
  if (adapter != nullptr) fn.wgpuAdapterRelease(adapter);
  if (instance != nullptr) fn.wgpuInstanceRelease(instance);
}

void Context::add_message(std::string message) {
  std::lock_guard lock(messages_mu_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> Context::take_messages() {
  std::lock_guard lock(messages_mu_);
  return std::exchange(messages_, {});
}

void Context::pause(uint32_t turn) {
  // Dawn finishes work on its own threads; poll briskly at first, then back off.
  if (turn < 64)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(turn < 1024 ? 20 : 200));
}

std::string to_string(abi::StringView s) {
  if (s.data == nullptr) return {};
  return s.length == abi::kStrlen ? std::string(s.data) : std::string(s.data, s.length);
}

abi::StringView view(const std::string& s) { return {s.data(), s.size()}; }
abi::StringView view(const char* s) { return {s, std::strlen(s)}; }

ErrorScope::ErrorScope(Context& ctx) : ctx_(ctx) {
  std::lock_guard lock(ctx_.api);
  ctx_.fn.wgpuDevicePushErrorScope(ctx_.device, abi::ErrorFilter::validation);
  ctx_.fn.wgpuDevicePushErrorScope(ctx_.device, abi::ErrorFilter::out_of_memory);
  ctx_.fn.wgpuDevicePushErrorScope(ctx_.device, abi::ErrorFilter::internal);
}

ErrorScope::~ErrorScope() {
  if (!popped_) pop();
}

ScopeResult ErrorScope::pop() {
  popped_ = true;
  struct Pending {
    bool done = false;
    ScopeResult result;
  } pending[3];
  {
    std::lock_guard lock(ctx_.api);
    for (Pending& p : pending) {
      abi::CallbackInfo<abi::PopErrorScopeCallback> info;
      info.callback = [](abi::PopErrorScopeStatus, abi::ErrorType type, abi::StringView message, void* u, void*) {
        auto* p = static_cast<Pending*>(u);
        p->result.type = type;
        p->result.message = to_string(message);
        p->done = true;
      };
      info.userdata1 = &p;
      ctx_.fn.wgpuDevicePopErrorScope(ctx_.device, info);
    }
  }
  ctx_.wait_until([&] { return pending[0].done && pending[1].done && pending[2].done; });
  for (const Pending& p : pending)
    if (p.result.type != abi::ErrorType::no_error) return p.result;
  return {};
}

}  // namespace onegpu::webgpu
