// The backend's memory sub-allocator: blocks from the driver, buffers placed inside them, and
// dedicated allocations for large ones. Not thread-safe: the device's lock guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "vulkan/loader.h"

namespace onegpu::vulkan {

enum class MemoryUsage { device, upload, readback };

struct Allocation {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::byte* mapped = nullptr;  // host-visible usages only
  void* block = nullptr;        // the owning block
};

class Allocator {
 public:
  static constexpr uint64_t kBlockSize = 64ull << 20;

  Allocator(const DeviceFunctions& fn, VkDevice device, const VkPhysicalDeviceMemoryProperties& props,
            uint64_t max_allocation, uint32_t owner);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Throws OutOfMemoryError with req.size when no memory can be had. `dedicated` gives the
  // allocation a block of its own (images: no bufferImageGranularity concerns beside buffers).
  Allocation allocate(const VkMemoryRequirements& req, MemoryUsage usage, bool dedicated = false);
  void free(const Allocation& a);
  // Frees every block (the device is being destroyed).
  void release_all();

  uint64_t block_count() const { return blocks_.size(); }
  uint64_t block_bytes() const;

 private:
  struct Block;
  uint32_t choose_type(uint32_t type_bits, MemoryUsage usage) const;
  Block* new_block(uint64_t size, uint32_t type, bool dedicated);

  const DeviceFunctions& fn_;
  VkDevice device_;
  VkPhysicalDeviceMemoryProperties props_;
  uint64_t block_size_;
  uint32_t owner_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace onegpu::vulkan
