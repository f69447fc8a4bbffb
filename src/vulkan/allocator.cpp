#include "vulkan/allocator.h"

#include <algorithm>

#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/validation.h"

namespace onegpu::vulkan {

struct Allocator::Block {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
  uint32_t type = 0;
  bool dedicated = false;
  std::byte* mapped = nullptr;
  uint64_t used = 0;
  std::map<uint64_t, uint64_t> free_ranges;  // offset -> size
};

Allocator::Allocator(const DeviceFunctions& fn, VkDevice device, const VkPhysicalDeviceMemoryProperties& props,
                     uint64_t max_allocation, uint32_t owner)
    : fn_(fn), device_(device), props_(props), owner_(owner) {
  block_size_ = max_allocation ? std::min(kBlockSize, max_allocation) : kBlockSize;
}

Allocator::~Allocator() { release_all(); }

uint64_t Allocator::block_bytes() const {
  uint64_t total = 0;
  for (auto& b : blocks_) total += b->size;
  return total;
}

uint32_t Allocator::choose_type(uint32_t bits, MemoryUsage usage) const {
  VkMemoryPropertyFlags required = 0, preferred = 0, avoided = 0;
  switch (usage) {
    case MemoryUsage::device: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
    case MemoryUsage::upload:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      avoided = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUsage::readback:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      avoided = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
  }
  int best = -1, best_score = -1;
  for (uint32_t i = 0; i < props_.memoryTypeCount; ++i) {
    if (!(bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = props_.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    int score = ((f & preferred) == preferred ? 4 : 0) + ((f & avoided) ? 0 : 2);
    if (score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  if (best < 0) throw UnsupportedError("memory type", "host-visible coherent memory", "none");
  return static_cast<uint32_t>(best);
}

Allocator::Block* Allocator::new_block(uint64_t size, uint32_t type, bool dedicated) {
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = size;
  ai.memoryTypeIndex = type;
  auto b = std::make_unique<Block>();
  call_checked("vkAllocateMemory", size, [&] { return fn_.vkAllocateMemory(device_, &ai, nullptr, &b->memory); });
  validation::track(b->memory, owner_);
  if (props_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* p = nullptr;
    VkResult r = fn_.vkMapMemory(device_, b->memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (r != VK_SUCCESS) {
      validation::untrack(b->memory);
      fn_.vkFreeMemory(device_, b->memory, nullptr);
      check(r, "vkMapMemory", size);
    }
    b->mapped = static_cast<std::byte*>(p);
  }
  b->size = size;
  b->type = type;
  b->dedicated = dedicated;
  b->free_ranges[0] = size;
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

Allocation Allocator::allocate(const VkMemoryRequirements& req, MemoryUsage usage, bool dedicated) {
  uint32_t type = choose_type(req.memoryTypeBits, usage);
  // More than the whole heap can never succeed: refuse before the driver sees it.
  if (req.size > props_.memoryHeaps[props_.memoryTypes[type].heapIndex].size)
    throw OutOfMemoryError("vkAllocateMemory", req.size);
  const uint64_t align = std::max<uint64_t>(req.alignment, 16);
  Block* block = nullptr;
  uint64_t offset = 0;
  if (dedicated || req.size > block_size_ / 2) {
    block = new_block(req.size, type, true);
  } else {
    for (auto& b : blocks_) {
      if (b->dedicated || b->type != type) continue;
      for (auto& [off, sz] : b->free_ranges) {
        uint64_t aligned = (off + align - 1) / align * align;
        if (aligned + req.size <= off + sz) {
          block = b.get();
          offset = aligned;
          break;
        }
      }
      if (block) break;
    }
    if (!block) block = new_block(block_size_, type, false);
  }
  // Carve [offset, offset + size) out of the free range that holds it.
  auto it = std::prev(block->free_ranges.upper_bound(offset));
  uint64_t range_off = it->first, range_size = it->second;
  block->free_ranges.erase(it);
  if (offset > range_off) block->free_ranges[range_off] = offset - range_off;
  uint64_t end = offset + req.size, range_end = range_off + range_size;
  if (range_end > end) block->free_ranges[end] = range_end - end;
  block->used += req.size;
  return Allocation{block->memory, offset, req.size, block->mapped ? block->mapped + offset : nullptr, block};
}

void Allocator::free(const Allocation& a) {
  auto* block = static_cast<Block*>(a.block);
  if (block == nullptr) return;
  auto& fr = block->free_ranges;
  uint64_t off = a.offset, size = a.size;
  auto next = fr.lower_bound(off);
  if (next != fr.end() && next->first == off + size) {
    size += next->second;
    next = fr.erase(next);
  }
  if (next != fr.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      off = prev->first;
      size += prev->second;
      fr.erase(prev);
    }
  }
  fr[off] = size;
  block->used -= a.size;
  // Keep one empty block per memory type so that a buffer made and released in a loop does not
  // go back to the driver every time.
  bool keep = false;
  if (block->used == 0 && !block->dedicated) {
    keep = true;
    for (auto& b : blocks_)
      if (b.get() != block && !b->dedicated && b->type == block->type && b->used == 0) keep = false;
  }
  if (block->used == 0 && !keep) {
    validation::untrack(block->memory);
    fn_.vkFreeMemory(device_, block->memory, nullptr);
    std::erase_if(blocks_, [&](const auto& b) { return b.get() == block; });
  }
}

void Allocator::release_all() {
  for (auto& b : blocks_) {
    validation::untrack(b->memory);
    fn_.vkFreeMemory(device_, b->memory, nullptr);
  }
  blocks_.clear();
}

}  // namespace onegpu::vulkan
