// What every object of a WebGPU device shares: Dawn's entry points, the instance, adapter, device
// and queue, the lock that serialises calls into Dawn (its C API is not thread-safe), the messages
// Dawn reported, and the count of live objects checked when the device is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "webgpu/library.h"

namespace onegpu::webgpu {

struct Context {
  const Library& fn;
  abi::Instance instance = nullptr;
  abi::Adapter adapter = nullptr;
  abi::Device device = nullptr;
  abi::Queue queue = nullptr;

  // Held around every call into Dawn. Recursive: a completion Dawn runs inside ProcessEvents may
  // call back into the backend on the same thread.
  std::recursive_mutex api;
  std::atomic<bool> alive{false};   // false once the device is destroyed: objects become inert
  std::atomic<bool> failed{false};  // a submission failed or the device was lost
  std::atomic<bool> closing{false}; // true from the start of close(): no new readbacks, writes or slots

  std::atomic<int64_t> live_objects{0};

  explicit Context(const Library& library) : fn(library) {}
  ~Context();

  void add_message(std::string message);
  std::vector<std::string> take_messages();

  // Runs Dawn's event loop until `done` reads true (callbacks fire inside). Called with `api`
  // unlocked; locks it around each turn so that other threads get in between.
  template <class Predicate>
  void wait_until(Predicate done) {
    for (uint32_t turn = 0;; ++turn) {
      {
        std::lock_guard lock(api);
        if (done()) return;
        fn.wgpuInstanceProcessEvents(instance);
        if (done()) return;
      }
      pause(turn);
    }
  }

 private:
  static void pause(uint32_t turn);
  std::mutex messages_mu_;
  std::vector<std::string> messages_;
};

// Owns one reference to a Dawn object and counts it among the device's live objects.
template <class T, void (*abi::Functions::*Release)(T)>
class Handle {
 public:
  Handle() = default;
  Handle(Context* ctx, T h) : ctx_(ctx), h_(h) {
    if (h_ != nullptr) ctx_->live_objects.fetch_add(1);
  }
  Handle(Handle&& o) noexcept : ctx_(o.ctx_), h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      ctx_ = o.ctx_;
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (h_ == nullptr) return;
    {
      std::lock_guard lock(ctx_->api);
      (ctx_->fn.*Release)(h_);
    }
    ctx_->live_objects.fetch_sub(1);
    h_ = nullptr;
  }
  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  Context* ctx_ = nullptr;  // outlived by the Context (every owner holds it)
  T h_ = nullptr;
};

using BufferHandle = Handle<abi::Buffer, &abi::Functions::wgpuBufferRelease>;
using ShaderModuleHandle = Handle<abi::ShaderModule, &abi::Functions::wgpuShaderModuleRelease>;
using BindGroupLayoutHandle = Handle<abi::BindGroupLayout, &abi::Functions::wgpuBindGroupLayoutRelease>;
using BindGroupHandle = Handle<abi::BindGroup, &abi::Functions::wgpuBindGroupRelease>;
using PipelineLayoutHandle = Handle<abi::PipelineLayout, &abi::Functions::wgpuPipelineLayoutRelease>;
using ComputePipelineHandle = Handle<abi::ComputePipeline, &abi::Functions::wgpuComputePipelineRelease>;
using CommandEncoderHandle = Handle<abi::CommandEncoder, &abi::Functions::wgpuCommandEncoderRelease>;
using ComputePassHandle = Handle<abi::ComputePassEncoder, &abi::Functions::wgpuComputePassEncoderRelease>;
using CommandBufferHandle = Handle<abi::CommandBuffer, &abi::Functions::wgpuCommandBufferRelease>;
using QuerySetHandle = Handle<abi::QuerySet, &abi::Functions::wgpuQuerySetRelease>;

// What an error scope caught.
struct ScopeResult {
  abi::ErrorType type = abi::ErrorType::no_error;
  std::string message;
};

// Pushes validation, out-of-memory and internal scopes; finish() pops them and throws the
// matching typed exception for the first error (OutOfMemoryError with `bytes`, UnsupportedError
// or KernelShapeError as the caller asks for validation errors, CommandFailedError for internal
// ones). Call with ctx.api unlocked.
class ErrorScope {
 public:
  explicit ErrorScope(Context& ctx);
  ~ErrorScope();
  ErrorScope(const ErrorScope&) = delete;
  ErrorScope& operator=(const ErrorScope&) = delete;
  // The first error caught (the scopes are popped innermost first: internal, memory, validation).
  ScopeResult pop();

 private:
  Context& ctx_;
  bool popped_ = false;
};

std::string to_string(abi::StringView s);
// Views of text that outlives the call it is passed to (never a temporary std::string).
abi::StringView view(const std::string& s);
abi::StringView view(const char* s);

}  // namespace onegpu::webgpu
