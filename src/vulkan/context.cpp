#include "vulkan/context.h"

#include <algorithm>
#include <cstring>

#include "onegpu/errors.h"
#include "vulkan/check.h"

namespace onegpu::vulkan {
namespace {

constexpr uint64_t kChunkSize = 4ull << 20;
constexpr uint32_t kSetsPerPool = 512;
constexpr size_t kMaxPoolsInFlight = 32;  // past this, taking a pool waits for the oldest

}  // namespace

Context::Context(const Instance& inst, PhysicalAdapter a, VkDevice d, uint32_t device_id,
                 std::shared_ptr<ValidationLog> validation_log)
    : instance(inst), adapter(std::move(a)), device(d), id(device_id), log(std::move(validation_log)) {}

Context::~Context() = default;

namespace {

CommandFailedError::Failure failure_kind(VkResult r) {
  switch (r) {
    case VK_ERROR_DEVICE_LOST: return CommandFailedError::Failure::device_lost;
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return CommandFailedError::Failure::out_of_memory;
    case VK_ERROR_INVALID_EXTERNAL_HANDLE:
    case VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS: return CommandFailedError::Failure::invalid_resource;
    default: return CommandFailedError::Failure::other;
  }
}

}  // namespace

void Context::record_failure(VkResult result, const char* call) const {
  std::lock_guard lock(failure_mu_);
  if (!failure_) failure_ = Failure{failure_kind(result), call};
}

void Context::throw_if_failed(const char* /*operation*/) const {
  std::lock_guard lock(failure_mu_);
  if (failure_) throw CommandFailedError(failure_->kind, failure_->call);
}

uint64_t Context::completed() const {
  uint64_t value = 0;
  VkResult r = take_injected("vkGetSemaphoreCounterValue");
  if (r == VK_SUCCESS) r = fn.vkGetSemaphoreCounterValue(device, timeline, &value);
  if (r < 0) {
    record_failure(r, "vkGetSemaphoreCounterValue");
    return last_completed_.load();
  }
  last_completed_.store(value);
  return value;
}

void Context::wait_serial(uint64_t serial) const {
  throw_if_failed("wait");
  VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wi.semaphoreCount = 1;
  wi.pSemaphores = &timeline;
  wi.pValues = &serial;
  for (;;) {
    VkResult r = take_injected("vkWaitSemaphores");
    if (r == VK_SUCCESS) r = fn.vkWaitSemaphores(device, &wi, 1'000'000'000ull);
    if (r == VK_TIMEOUT) continue;
    if (r < 0) {
      record_failure(r, "vkWaitSemaphores");
      throw_if_failed("wait");
    }
    return;
  }
}

void Context::defer_locked(std::function<void()> destroy, uint64_t serial) {
  deferred_.push_back({std::max(submitted, serial), std::move(destroy)});
}

void Context::collect_locked() {
  if (deferred_.empty() && retired_pools_.empty()) return;
  uint64_t done = completed();
  // Mostly in serial order; an entry held for a later upload does not hold back those behind it.
  for (size_t i = 0; i < deferred_.size();) {
    if (deferred_[i].serial <= done) {
      auto d = std::move(deferred_[i]);
      deferred_.erase(deferred_.begin() + static_cast<ptrdiff_t>(i));
      d.destroy();
    } else {
      ++i;
    }
  }
  for (auto it = retired_pools_.begin(); it != retired_pools_.end();) {
    if (it->second <= done) {
      fn.vkResetCommandPool(device, it->first.pool, 0);
      free_pools_.push_back(it->first);
      it = retired_pools_.erase(it);
    } else {
      ++it;
    }
  }
  // Large one-off staging chunks go back once the GPU is done with them.
  for (size_t i = chunks_.size(); i-- > 0;) {
    if (i != current_chunk_ && chunks_[i].size > kChunkSize && chunks_[i].last_serial <= done) {
      destroy_buffer_locked(chunks_[i].buffer);
      chunks_.erase(chunks_.begin() + static_cast<ptrdiff_t>(i));
      if (current_chunk_ != SIZE_MAX && current_chunk_ > i) --current_chunk_;
    }
  }
}

BufferMemory Context::create_buffer_locked(uint64_t bytes, VkBufferUsageFlags usage, MemoryUsage memory) {
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = bytes;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  BufferMemory b;
  call_checked("vkCreateBuffer", bytes, [&] { return fn.vkCreateBuffer(device, &ci, nullptr, &b.buffer); });
  validation::track(b.buffer, id);
  try {
    VkMemoryRequirements req{};
    fn.vkGetBufferMemoryRequirements(device, b.buffer, &req);
    b.memory = allocator->allocate(req, memory);
    VkResult r = fn.vkBindBufferMemory(device, b.buffer, b.memory.memory, b.memory.offset);
    if (r != VK_SUCCESS) {
      allocator->free(b.memory);
      check(r, "vkBindBufferMemory", bytes);
    }
  } catch (...) {
    validation::untrack(b.buffer);
    fn.vkDestroyBuffer(device, b.buffer, nullptr);
    throw;
  }
  return b;
}

void Context::destroy_buffer_locked(const BufferMemory& b) {
  validation::untrack(b.buffer);
  fn.vkDestroyBuffer(device, b.buffer, nullptr);
  allocator->free(b.memory);
}

CommandPool Context::acquire_pool_locked() {
  collect_locked();
  if (free_pools_.empty() && retired_pools_.size() >= kMaxPoolsInFlight) {
    uint64_t oldest = UINT64_MAX;
    for (const auto& r : retired_pools_) oldest = std::min(oldest, r.second);
    wait_serial(oldest);
    collect_locked();
  }
  if (!free_pools_.empty()) {
    CommandPool p = free_pools_.back();
    free_pools_.pop_back();
    return p;
  }
  CommandPool p;
  VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  ci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  ci.queueFamilyIndex = adapter.queue_family;
  call_checked("vkCreateCommandPool", 0, [&] { return fn.vkCreateCommandPool(device, &ci, nullptr, &p.pool); });
  validation::track(p.pool, id);
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = p.pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkResult r = fn.vkAllocateCommandBuffers(device, &ai, &p.cb);
  if (r != VK_SUCCESS) {
    validation::untrack(p.pool);
    fn.vkDestroyCommandPool(device, p.pool, nullptr);
    check(r, "vkAllocateCommandBuffers");
  }
  validation::track(p.cb, id);
  all_pools_.insert(p.pool);
  return p;
}

void Context::retire_pool_locked(CommandPool pool, uint64_t serial) { retired_pools_.push_back({pool, serial}); }

void Context::recycle_pool_locked(CommandPool pool) {
  fn.vkResetCommandPool(device, pool.pool, 0);
  free_pools_.push_back(pool);
}

VkDescriptorSet Context::allocate_set_locked(VkDescriptorSetLayout layout, VkDescriptorPool* pool_out) {
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  for (auto it = descriptor_pools_.rbegin(); it != descriptor_pools_.rend(); ++it) {
    ai.descriptorPool = *it;
    VkResult r = fn.vkAllocateDescriptorSets(device, &ai, &set);
    if (r == VK_SUCCESS) {
      *pool_out = *it;
      validation::track(set, id);
      return set;
    }
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL) check(r, "vkAllocateDescriptorSets");
  }
  VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8},
                                   {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool}};
  VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  ci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  ci.maxSets = kSetsPerPool;
  ci.poolSizeCount = 2;
  ci.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  call_checked("vkCreateDescriptorPool", 0, [&] { return fn.vkCreateDescriptorPool(device, &ci, nullptr, &pool); });
  validation::track(pool, id);
  descriptor_pools_.push_back(pool);
  ai.descriptorPool = pool;
  call_checked("vkAllocateDescriptorSets", 0, [&] { return fn.vkAllocateDescriptorSets(device, &ai, &set); });
  validation::track(set, id);
  *pool_out = pool;
  return set;
}

void Context::queue_upload_locked(VkBuffer dst, uint64_t offset, std::span<const std::byte> data) {
  collect_locked();
  const uint64_t need = (data.size() + 15) / 16 * 16;
  uint64_t done = completed();
  if (current_chunk_ == SIZE_MAX || chunks_[current_chunk_].used + need > chunks_[current_chunk_].size) {
    current_chunk_ = SIZE_MAX;
    for (size_t i = 0; i < chunks_.size(); ++i) {
      if (chunks_[i].last_serial <= done && chunks_[i].size >= need) {
        current_chunk_ = i;
        chunks_[i].used = 0;
        break;
      }
    }
    if (current_chunk_ == SIZE_MAX) {
      Chunk c;
      c.size = std::max(kChunkSize, need);
      c.buffer = create_buffer_locked(c.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUsage::upload);
      chunks_.push_back(c);
      current_chunk_ = chunks_.size() - 1;
    }
  }
  Chunk& c = chunks_[current_chunk_];
  std::memcpy(c.buffer.memory.mapped + c.used, data.data(), data.size());
  if (!upload_recording_) {
    upload_pool_ = acquire_pool_locked();
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(fn.vkBeginCommandBuffer(upload_pool_.cb, &bi), "vkBeginCommandBuffer");
    // Uploads may overwrite what earlier submissions still read.
    full_barrier(upload_pool_.cb);
    upload_recording_ = true;
  }
  VkBufferCopy region{c.used, offset, data.size()};
  fn.vkCmdCopyBuffer(upload_pool_.cb, c.buffer.buffer, dst, 1, &region);
  c.used += need;
  c.last_serial = submitted + 1;  // uploads go with the next submission
}

void Context::execution_barrier(VkCommandBuffer cb) const {
  fn.vkCmdPipelineBarrier(cb,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                              VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                              VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                          0, 0, nullptr, 0, nullptr, 0, nullptr);
}

void Context::full_barrier(VkCommandBuffer cb) const {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  fn.vkCmdPipelineBarrier(cb,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                              VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                              VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                          0, 1, &mb, 0, nullptr, 0, nullptr);
}

uint64_t Context::submit_locked(std::span<const VkCommandBuffer> cbs) {
  throw_if_failed("submit");
  // The first submission carries the uploads, then the first command buffer; each later command
  // buffer is a submission of its own, signalling the next serial.
  std::vector<VkCommandBuffer> first;
  if (upload_recording_) {
    full_barrier(upload_pool_.cb);
    check(fn.vkEndCommandBuffer(upload_pool_.cb), "vkEndCommandBuffer");
    upload_recording_ = false;
    upload_ended_ = true;
    first.push_back(upload_pool_.cb);
  } else if (upload_ended_) {
    first.push_back(upload_pool_.cb);  // ended by a submission that failed
  }
  if (!cbs.empty()) first.push_back(cbs[0]);
  const size_t count = first.empty() ? 0 : std::max<size_t>(cbs.size(), 1);
  if (count == 0) return submitted;
  std::vector<uint64_t> serials(count);
  std::vector<VkTimelineSemaphoreSubmitInfo> ts(count, {VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO});
  std::vector<VkSubmitInfo> si(count, {VK_STRUCTURE_TYPE_SUBMIT_INFO});
  for (size_t i = 0; i < count; ++i) {
    serials[i] = submitted + 1 + i;
    ts[i].signalSemaphoreValueCount = 1;
    ts[i].pSignalSemaphoreValues = &serials[i];
    si[i].pNext = &ts[i];
    si[i].commandBufferCount = i == 0 ? static_cast<uint32_t>(first.size()) : 1;
    si[i].pCommandBuffers = i == 0 ? first.data() : &cbs[i];
    si[i].signalSemaphoreCount = 1;
    si[i].pSignalSemaphores = &timeline;
  }
  VkResult r = take_injected("vkQueueSubmit");
  if (r == VK_SUCCESS) r = fn.vkQueueSubmit(queue, static_cast<uint32_t>(count), si.data(), VK_NULL_HANDLE);
  if (r < 0) {
    record_failure(r, "vkQueueSubmit");
    throw_if_failed("submit");
  }
  submitted = serials.back();
  if (upload_ended_) {
    retire_pool_locked(upload_pool_, serials.front());
    upload_ended_ = false;
  }
  return submitted;
}

uint64_t Context::staging_bytes_locked() const {
  uint64_t total = readback_bytes;
  for (auto& c : chunks_) total += c.size;
  return total;
}

void Context::destroy_owned_locked() {
  while (!deferred_.empty()) {
    deferred_.front().destroy();
    deferred_.pop_front();
  }
  for (auto& c : chunks_) destroy_buffer_locked(c.buffer);
  chunks_.clear();
  for (VkCommandPool p : all_pools_) {
    validation::untrack(p);
    fn.vkDestroyCommandPool(device, p, nullptr);
  }
  all_pools_.clear();
  free_pools_.clear();
  retired_pools_.clear();
  upload_recording_ = false;
  upload_ended_ = false;
  for (VkDescriptorPool p : descriptor_pools_) {
    validation::untrack(p);
    fn.vkDestroyDescriptorPool(device, p, nullptr);
  }
  descriptor_pools_.clear();
  if (timeline != VK_NULL_HANDLE) {
    validation::untrack(timeline);
    fn.vkDestroySemaphore(device, timeline, nullptr);
    timeline = VK_NULL_HANDLE;
  }
  allocator->release_all();
}

}  // namespace onegpu::vulkan
