// Move-only owners of Vulkan handles. Releasing one (destruction, reset, assignment) hands the
// handle to its context's deferred-destruction queue, which destroys it once the GPU has finished
// every submission made before the release (or a later one the owner names). An owner released
// after its device was closed does nothing: the handle went with the device (and the validation
// layer reported it as leaked, when it was).
#pragma once

#include <cstdint>
#include <utility>

#include "vulkan/allocator.h"
#include "vulkan/compat.h"

namespace onegpu::vulkan {

class Context;

// Queues the destruction of one handle (defined in context.cpp for each handle type).
void release_handle(Context& ctx, VkShaderModule h, uint64_t serial);
void release_handle(Context& ctx, VkPipeline h, uint64_t serial);
void release_handle(Context& ctx, VkPipelineLayout h, uint64_t serial);
void release_handle(Context& ctx, VkDescriptorSetLayout h, uint64_t serial);
void release_handle(Context& ctx, VkDescriptorPool h, uint64_t serial);
void release_handle(Context& ctx, VkQueryPool h, uint64_t serial);
void release_handle(Context& ctx, VkCommandPool h, uint64_t serial);
void release_handle(Context& ctx, VkSemaphore h, uint64_t serial);
void release_handle(Context& ctx, VkSwapchainKHR h, uint64_t serial);
void release_handle(Context& ctx, VkImageView h, uint64_t serial);
void release_handle(Context& ctx, VkSampler h, uint64_t serial);

template <class T>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  UniqueHandle(Context& ctx, T handle) : ctx_(&ctx), handle_(handle) {}
  UniqueHandle(UniqueHandle&& o) noexcept : ctx_(o.ctx_), handle_(std::exchange(o.handle_, VK_NULL_HANDLE)) {}
  UniqueHandle& operator=(UniqueHandle&& o) noexcept {
    if (this != &o) {
      reset();
      ctx_ = o.ctx_;
      handle_ = std::exchange(o.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  ~UniqueHandle() { reset(); }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }
  // Releases the handle, to be destroyed after submission `serial` at the earliest.
  void reset(uint64_t serial = 0) {
    if (handle_ != VK_NULL_HANDLE) release_handle(*ctx_, std::exchange(handle_, VK_NULL_HANDLE), serial);
  }

 private:
  Context* ctx_ = nullptr;
  T handle_ = VK_NULL_HANDLE;
};

// A descriptor set and the pool it came from.
class UniqueDescriptorSet {
 public:
  UniqueDescriptorSet() = default;
  UniqueDescriptorSet(Context& ctx, VkDescriptorSet set, VkDescriptorPool pool) : ctx_(&ctx), set_(set), pool_(pool) {}
  UniqueDescriptorSet(UniqueDescriptorSet&& o) noexcept
      : ctx_(o.ctx_), set_(std::exchange(o.set_, VK_NULL_HANDLE)), pool_(o.pool_) {}
  UniqueDescriptorSet& operator=(UniqueDescriptorSet&& o) noexcept;
  UniqueDescriptorSet(const UniqueDescriptorSet&) = delete;
  UniqueDescriptorSet& operator=(const UniqueDescriptorSet&) = delete;
  ~UniqueDescriptorSet() { reset(); }
  VkDescriptorSet get() const { return set_; }
  void reset();

 private:
  Context* ctx_ = nullptr;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
};

// A buffer with its memory. `counted` buffers are the user's: releasing one keeps the device's
// statistics (pending release bytes, live buffers) until it is destroyed.
class UniqueBuffer {
 public:
  UniqueBuffer() = default;
  UniqueBuffer(Context& ctx, VkBuffer buffer) : ctx_(&ctx), buffer_(buffer) {}
  UniqueBuffer(UniqueBuffer&& o) noexcept
      : ctx_(o.ctx_), buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)), memory_(std::exchange(o.memory_, {})),
        counted_bytes_(std::exchange(o.counted_bytes_, 0)), hold_(o.hold_) {}
  UniqueBuffer& operator=(UniqueBuffer&& o) noexcept;
  UniqueBuffer(const UniqueBuffer&) = delete;
  UniqueBuffer& operator=(const UniqueBuffer&) = delete;
  ~UniqueBuffer() { reset(); }

  VkBuffer get() const { return buffer_; }
  const Allocation& memory() const { return memory_; }
  void set_memory(const Allocation& a) { memory_ = a; }
  // A user buffer of `bytes`, counted in the device's statistics.
  void count_as_user_buffer(uint64_t bytes);
  // Not destroyed before submission `serial` (one that carries an upload into it, say).
  void hold_until(uint64_t serial) { hold_ = serial > hold_ ? serial : hold_; }
  void reset(uint64_t serial = 0);

 private:
  Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  Allocation memory_;
  uint64_t counted_bytes_ = 0;
  uint64_t hold_ = 0;
};

// An image with its memory, counted in the device's texture statistics.
class UniqueImage {
 public:
  UniqueImage() = default;
  UniqueImage(Context& ctx, VkImage image) : ctx_(&ctx), image_(image) {}
  UniqueImage(UniqueImage&& o) noexcept
      : ctx_(o.ctx_), image_(std::exchange(o.image_, VK_NULL_HANDLE)), memory_(std::exchange(o.memory_, {})),
        counted_(std::exchange(o.counted_, false)), hold_(o.hold_) {}
  UniqueImage& operator=(UniqueImage&& o) noexcept;
  UniqueImage(const UniqueImage&) = delete;
  UniqueImage& operator=(const UniqueImage&) = delete;
  ~UniqueImage() { reset(); }

  VkImage get() const { return image_; }
  const Allocation& memory() const { return memory_; }
  // Takes the memory bound to the image and counts it as a live texture.
  void set_memory(const Allocation& a);
  // Not destroyed before submission `serial` (one that carries its upload or transition).
  void hold_until(uint64_t serial) { hold_ = serial > hold_ ? serial : hold_; }
  void reset();

 private:
  Context* ctx_ = nullptr;
  VkImage image_ = VK_NULL_HANDLE;
  Allocation memory_;
  bool counted_ = false;
  uint64_t hold_ = 0;
};

}  // namespace onegpu::vulkan
