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

Context::~Context() { alive = false; }  // owners released from here on do nothing

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

void Context::defer(std::function<void()> destroy, uint64_t serial) {
  std::lock_guard lock(deferred_mu_);
  deferred_.push_back({std::max(submitted.load(), serial), std::move(destroy)});
}

void Context::collect_locked() {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard lock(deferred_mu_);
    if (deferred_.empty() && retired_pools_.empty()) return;
  }
  const uint64_t done = completed();
  {
    // Mostly in serial order; an entry held for a later upload does not hold back those behind it.
    std::lock_guard lock(deferred_mu_);
    for (size_t i = 0; i < deferred_.size();) {
      if (deferred_[i].serial <= done) {
        ready.push_back(std::move(deferred_[i].destroy));
        deferred_.erase(deferred_.begin() + static_cast<ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
  for (auto& destroy : ready) destroy();
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
      chunks_.erase(chunks_.begin() + static_cast<ptrdiff_t>(i));
      if (current_chunk_ != SIZE_MAX && current_chunk_ > i) --current_chunk_;
    }
  }
}

UniqueBuffer Context::create_buffer_locked(uint64_t bytes, VkBufferUsageFlags usage, MemoryUsage memory) {
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = bytes;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer handle = VK_NULL_HANDLE;
  call_checked("vkCreateBuffer", bytes, [&] { return fn.vkCreateBuffer(device, &ci, nullptr, &handle); });
  validation::track(handle, id);
  UniqueBuffer b(*this, handle);
  VkMemoryRequirements req{};
  fn.vkGetBufferMemoryRequirements(device, handle, &req);
  b.set_memory(allocator->allocate(req, memory));
  call_checked("vkBindBufferMemory", bytes,
               [&] { return fn.vkBindBufferMemory(device, handle, b.memory().memory, b.memory().offset); });
  return b;
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
  UniqueHandle<VkCommandPool> owner(*this, p.pool);
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = p.pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  call_checked("vkAllocateCommandBuffers", 0, [&] { return fn.vkAllocateCommandBuffers(device, &ai, &p.cb); });
  validation::track(p.cb, id);
  all_pools_.push_back(std::move(owner));
  return p;
}

void Context::retire_pool_locked(CommandPool pool, uint64_t serial) { retired_pools_.push_back({pool, serial}); }

void Context::recycle_pool_locked(CommandPool pool) {
  fn.vkResetCommandPool(device, pool.pool, 0);
  free_pools_.push_back(pool);
}

UniqueDescriptorSet Context::allocate_set_locked(VkDescriptorSetLayout layout) {
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  for (auto it = descriptor_pools_.rbegin(); it != descriptor_pools_.rend(); ++it) {
    ai.descriptorPool = it->get();
    VkResult r = fn.vkAllocateDescriptorSets(device, &ai, &set);
    if (r == VK_SUCCESS) {
      validation::track(set, id);
      return UniqueDescriptorSet(*this, set, it->get());
    }
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL) check(r, "vkAllocateDescriptorSets");
  }
  VkDescriptorPoolSize sizes[6] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8},
                                   {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool},
                                   {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, kSetsPerPool * 2},
                                   {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kSetsPerPool * 2},
                                   {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kSetsPerPool * 2},
                                   {VK_DESCRIPTOR_TYPE_SAMPLER, kSetsPerPool}};
  VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  ci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  ci.maxSets = kSetsPerPool;
  ci.poolSizeCount = 6;
  ci.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  call_checked("vkCreateDescriptorPool", 0, [&] { return fn.vkCreateDescriptorPool(device, &ci, nullptr, &pool); });
  validation::track(pool, id);
  descriptor_pools_.emplace_back(*this, pool);
  ai.descriptorPool = pool;
  call_checked("vkAllocateDescriptorSets", 0, [&] { return fn.vkAllocateDescriptorSets(device, &ai, &set); });
  validation::track(set, id);
  return UniqueDescriptorSet(*this, set, pool);
}

void Context::queue_upload_locked(VkBuffer dst, uint64_t offset, std::span<const std::byte> data) {
  const StagingSlice slice = stage_locked(data);
  VkBufferCopy region{slice.offset, offset, data.size()};
  fn.vkCmdCopyBuffer(upload_pool_.cb, slice.buffer, dst, 1, &region);
}

void Context::queue_image_upload_locked(VkImage dst, const VkBufferImageCopy& copy, std::span<const std::byte> data) {
  const StagingSlice slice = stage_locked(data);
  VkBufferImageCopy c = copy;
  c.bufferOffset = slice.offset;
  fn.vkCmdCopyBufferToImage(upload_pool_.cb, slice.buffer, dst, VK_IMAGE_LAYOUT_GENERAL, 1, &c);
}

VkCommandBuffer Context::upload_cb_locked() {
  if (!upload_recording_) {
    upload_pool_ = acquire_pool_locked();
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(fn.vkBeginCommandBuffer(upload_pool_.cb, &bi), "vkBeginCommandBuffer");
    // Uploads may overwrite what earlier submissions still read.
    full_barrier(upload_pool_.cb);
    upload_recording_ = true;
  }
  return upload_pool_.cb;
}

void Context::queue_image_init_locked(VkImage image, VkImageAspectFlags aspect) {
  VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  ib.srcAccessMask = 0;
  ib.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib.image = image;
  ib.subresourceRange = {aspect, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
  fn.vkCmdPipelineBarrier(upload_cb_locked(), VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                          nullptr, 1, &ib);
}

StagingSlice Context::stage_locked(std::span<const std::byte> data) {
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
      chunks_.push_back(std::move(c));
      current_chunk_ = chunks_.size() - 1;
    }
  }
  Chunk& c = chunks_[current_chunk_];
  std::memcpy(c.buffer.memory().mapped + c.used, data.data(), data.size());
  upload_cb_locked();
  StagingSlice slice{c.buffer.get(), c.used, c.buffer.memory().mapped + c.used};
  c.used += need;
  c.last_serial = submitted + 1;  // uploads go with the next submission
  return slice;
}

namespace {
// The stages every barrier orders: compute, copies, indirect arguments, and on a graphics queue
// the vertex input and shader stages of render passes.
VkPipelineStageFlags barrier_stages(bool graphics) {
  VkPipelineStageFlags stages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  if (graphics)
    stages |= VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
              VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
              VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  return stages;
}
}  // namespace

void Context::execution_barrier(VkCommandBuffer cb) const {
  const VkPipelineStageFlags stages = barrier_stages(graphics);
  fn.vkCmdPipelineBarrier(cb, stages, stages, 0, 0, nullptr, 0, nullptr, 0, nullptr);
}

void Context::full_barrier(VkCommandBuffer cb) const {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  if (graphics) {
    mb.srcAccessMask |= VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    mb.dstAccessMask |= VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT |
                        VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                        VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  }
  const VkPipelineStageFlags stages = barrier_stages(graphics);
  fn.vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

uint64_t Context::submit_locked(std::span<const VkCommandBuffer> cbs, const BinarySemaphores& binary) {
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
  // The last submission signals the timeline and, when asked, a binary semaphore (whose value is
  // ignored).
  const VkSemaphore last_signals[2] = {timeline, binary.signal};
  uint64_t last_values[2] = {0, 0};
  for (size_t i = 0; i < count; ++i) {
    serials[i] = submitted + 1 + i;
    const bool last = i + 1 == count && binary.signal != VK_NULL_HANDLE;
    if (last) last_values[0] = serials[i];
    ts[i].signalSemaphoreValueCount = last ? 2 : 1;
    ts[i].pSignalSemaphoreValues = last ? last_values : &serials[i];
    si[i].pNext = &ts[i];
    si[i].commandBufferCount = i == 0 ? static_cast<uint32_t>(first.size()) : 1;
    si[i].pCommandBuffers = i == 0 ? first.data() : &cbs[i];
    si[i].signalSemaphoreCount = last ? 2 : 1;
    si[i].pSignalSemaphores = last ? last_signals : &timeline;
  }
  if (binary.wait != VK_NULL_HANDLE) {
    si[0].waitSemaphoreCount = 1;
    si[0].pWaitSemaphores = &binary.wait;
    si[0].pWaitDstStageMask = &binary.wait_stage;
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
  // The owners hand their handles to the queue, which then runs whole (the GPU is idle).
  chunks_.clear();
  current_chunk_ = SIZE_MAX;
  free_pools_.clear();
  retired_pools_.clear();
  upload_recording_ = false;
  upload_ended_ = false;
  all_pools_.clear();
  descriptor_pools_.clear();
  timeline_owner.reset();
  for (;;) {
    std::deque<Deferred> all;
    {
      std::lock_guard lock(deferred_mu_);
      all.swap(deferred_);
    }
    if (all.empty()) break;
    for (auto& d : all) d.destroy();
  }
  timeline = VK_NULL_HANDLE;
  allocator->release_all();
}

// ---- the owners of handles.h ----

namespace {

template <class T, class Destroy>
void queue_destroy(Context& ctx, T h, uint64_t serial, Destroy destroy) {
  if (!ctx.alive) return;  // went with the device
  ctx.defer(
      [&ctx, h, destroy] {
        validation::untrack(h);
        destroy(ctx.fn, ctx.device, h);
      },
      serial);
}

}  // namespace

void release_handle(Context& ctx, VkShaderModule h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkShaderModule x) { fn.vkDestroyShaderModule(d, x, nullptr); });
}
void release_handle(Context& ctx, VkPipeline h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkPipeline x) { fn.vkDestroyPipeline(d, x, nullptr); });
}
void release_handle(Context& ctx, VkPipelineLayout h, uint64_t serial) {
  queue_destroy(ctx, h, serial,
                [](const DeviceFunctions& fn, VkDevice d, VkPipelineLayout x) { fn.vkDestroyPipelineLayout(d, x, nullptr); });
}
void release_handle(Context& ctx, VkDescriptorSetLayout h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkDescriptorSetLayout x) {
    fn.vkDestroyDescriptorSetLayout(d, x, nullptr);
  });
}
void release_handle(Context& ctx, VkDescriptorPool h, uint64_t serial) {
  queue_destroy(ctx, h, serial,
                [](const DeviceFunctions& fn, VkDevice d, VkDescriptorPool x) { fn.vkDestroyDescriptorPool(d, x, nullptr); });
}
void release_handle(Context& ctx, VkQueryPool h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkQueryPool x) { fn.vkDestroyQueryPool(d, x, nullptr); });
}
void release_handle(Context& ctx, VkCommandPool h, uint64_t serial) {
  queue_destroy(ctx, h, serial,
                [](const DeviceFunctions& fn, VkDevice d, VkCommandPool x) { fn.vkDestroyCommandPool(d, x, nullptr); });
}
void release_handle(Context& ctx, VkSemaphore h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkSemaphore x) { fn.vkDestroySemaphore(d, x, nullptr); });
}
void release_handle(Context& ctx, VkSwapchainKHR h, uint64_t serial) {
  queue_destroy(ctx, h, serial,
                [](const DeviceFunctions& fn, VkDevice d, VkSwapchainKHR x) { fn.vkDestroySwapchainKHR(d, x, nullptr); });
}

void release_handle(Context& ctx, VkImageView h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkImageView x) { fn.vkDestroyImageView(d, x, nullptr); });
}
void release_handle(Context& ctx, VkSampler h, uint64_t serial) {
  queue_destroy(ctx, h, serial, [](const DeviceFunctions& fn, VkDevice d, VkSampler x) { fn.vkDestroySampler(d, x, nullptr); });
}

UniqueImage& UniqueImage::operator=(UniqueImage&& o) noexcept {
  if (this != &o) {
    reset();
    ctx_ = o.ctx_;
    image_ = std::exchange(o.image_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, {});
    counted_ = std::exchange(o.counted_, false);
    hold_ = o.hold_;
  }
  return *this;
}

void UniqueImage::set_memory(const Allocation& a) {
  memory_ = a;
  counted_ = true;
  ctx_->live_textures += 1;
  ctx_->texture_bytes += a.size;
}

void UniqueImage::reset() {
  if (image_ == VK_NULL_HANDLE) return;
  Context& ctx = *ctx_;
  VkImage image = std::exchange(image_, VK_NULL_HANDLE);
  Allocation memory = std::exchange(memory_, {});
  const bool counted = std::exchange(counted_, false);
  if (!ctx.alive) return;  // leaked past the device: reported by the validation layer
  ctx.defer(
      [&ctx, image, memory, counted] {
        validation::untrack(image);
        ctx.fn.vkDestroyImage(ctx.device, image, nullptr);
        if (memory.memory != VK_NULL_HANDLE) ctx.allocator->free(memory);
        if (counted) {
          ctx.live_textures -= 1;
          ctx.texture_bytes -= memory.size;
        }
      },
      hold_);
}

UniqueDescriptorSet& UniqueDescriptorSet::operator=(UniqueDescriptorSet&& o) noexcept {
  if (this != &o) {
    reset();
    ctx_ = o.ctx_;
    set_ = std::exchange(o.set_, VK_NULL_HANDLE);
    pool_ = o.pool_;
  }
  return *this;
}

void UniqueDescriptorSet::reset() {
  if (set_ == VK_NULL_HANDLE) return;
  Context& ctx = *ctx_;
  VkDescriptorSet set = std::exchange(set_, VK_NULL_HANDLE);
  VkDescriptorPool pool = pool_;
  if (!ctx.alive) return;
  ctx.defer([&ctx, set, pool] {
    validation::untrack(set);
    ctx.fn.vkFreeDescriptorSets(ctx.device, pool, 1, &set);
  });
}

UniqueBuffer& UniqueBuffer::operator=(UniqueBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    ctx_ = o.ctx_;
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, {});
    counted_bytes_ = std::exchange(o.counted_bytes_, 0);
    hold_ = o.hold_;
  }
  return *this;
}

void UniqueBuffer::count_as_user_buffer(uint64_t bytes) {
  counted_bytes_ = bytes;
  ctx_->live_buffers += 1;
  ctx_->live_bytes += bytes;
}

void UniqueBuffer::reset(uint64_t serial) {
  if (buffer_ == VK_NULL_HANDLE) return;
  Context& ctx = *ctx_;
  VkBuffer buffer = std::exchange(buffer_, VK_NULL_HANDLE);
  Allocation memory = std::exchange(memory_, {});
  const uint64_t counted = std::exchange(counted_bytes_, 0);
  if (!ctx.alive) return;  // leaked past the device: reported by the validation layer
  ctx.pending_release_bytes += counted;
  ctx.defer(
      [&ctx, buffer, memory, counted] {
        validation::untrack(buffer);
        ctx.fn.vkDestroyBuffer(ctx.device, buffer, nullptr);
        if (memory.memory != VK_NULL_HANDLE) ctx.allocator->free(memory);
        if (counted != 0) {
          ctx.live_buffers -= 1;
          ctx.live_bytes -= counted;
          ctx.pending_release_bytes -= counted;
        }
      },
      std::max(serial, hold_));
}

}  // namespace onegpu::vulkan
