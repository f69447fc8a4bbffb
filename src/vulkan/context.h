// The state a Vulkan device shares with everything made from it: the VkDevice and its queue, the
// timeline of submissions, deferred destruction, command pools, descriptor pools, the staging ring
// for uploads and the memory allocator. One lock (`mu`) guards all mutable parts; members marked
// "locked" must be called with it held.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "onegpu/device.h"
#include "onegpu/errors.h"
#include "vulkan/allocator.h"
#include "vulkan/handles.h"
#include "vulkan/physical.h"
#include "vulkan/validation.h"

namespace onegpu::vulkan {

class VulkanEncoder;

struct CommandPool {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
};

struct StagingSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0;
  std::byte* mapped = nullptr;
};

// Binary semaphores a submission waits on (the first of a list, at `wait_stage`) and signals (the
// last): a swapchain's acquire and present, chained with the timeline.
struct BinarySemaphores {
  VkSemaphore wait = VK_NULL_HANDLE;
  VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSemaphore signal = VK_NULL_HANDLE;
};

class Context {
 public:
  Context(const Instance& instance, PhysicalAdapter adapter, VkDevice device, uint32_t id,
          std::shared_ptr<ValidationLog> log);
  ~Context();

  const Instance& instance;
  const PhysicalAdapter adapter;
  const VkDevice device;
  const uint32_t id;  // the validation router's id for this device
  const std::shared_ptr<ValidationLog> log;
  DeviceFunctions fn;
  VkQueue queue = VK_NULL_HANDLE;
  VkSemaphore timeline = VK_NULL_HANDLE;  // owned by timeline_owner
  std::unique_ptr<Allocator> allocator;
  bool kernel_statistics = false;        // pipelines keep the driver's statistics
  bool print_kernel_statistics = false;  // and print them as they are created
  uint64_t work_budget = 0;              // operations per submission before a split; 0: none
  bool graphics = false;                 // the queue runs graphics work: barriers cover its stages

  UniqueHandle<VkSemaphore> timeline_owner;

  mutable std::mutex mu;
  std::atomic<bool> alive{true};        // false once the device is destroyed
  std::atomic<bool> closing{false};     // true from the start of close(): no new readbacks
  std::atomic<uint64_t> submitted{0};   // serial of the last submission (written locked)

  // The serial the GPU has finished (reads the timeline semaphore; no lock needed). Never throws:
  // a failed read records the failure and returns the last value read.
  uint64_t completed() const;
  // Waits until the GPU has finished `serial`. Throws CommandFailedError.
  void wait_serial(uint64_t serial) const;

  // A submission failed or the device was lost: every later submit, wait and readback throws
  // CommandFailedError (no lock needed).
  void record_failure(VkResult result, const char* call) const;
  // Throws CommandFailedError once a failure was recorded.
  void throw_if_failed(const char* operation) const;

  // Queues `destroy`, run (locked) once the GPU has finished every submission made so far, and at
  // least submission `serial`. Needs no lock: the owners in handles.h call it from anywhere.
  void defer(std::function<void()> destroy, uint64_t serial = 0);
  // Runs the deferred destructions whose submissions have finished.
  void collect_locked();

  UniqueBuffer create_buffer_locked(uint64_t bytes, VkBufferUsageFlags usage, MemoryUsage memory);

  CommandPool acquire_pool_locked();
  void retire_pool_locked(CommandPool pool, uint64_t serial);
  void recycle_pool_locked(CommandPool pool);  // never submitted

  UniqueDescriptorSet allocate_set_locked(VkDescriptorSetLayout layout);

  // Copies `data` into staging now and records its upload, which runs before the next submission.
  void queue_upload_locked(VkBuffer dst, uint64_t offset, std::span<const std::byte> data);
  // The same into an image (in GENERAL layout), `copy` giving the subresource and texels (its
  // buffer offset is set here).
  void queue_image_upload_locked(VkImage dst, const VkBufferImageCopy& copy, std::span<const std::byte> data);
  // Records the image's one transition, UNDEFINED -> GENERAL, in the upload stream: it runs
  // before the next submission, so before any use of the image.
  void queue_image_init_locked(VkImage image, VkImageAspectFlags aspect);
  // Submits `cbs` as consecutive submissions, the pending uploads with the first (an empty list
  // submits only the uploads); returns the last submission's serial. Throws CommandFailedError.
  uint64_t submit_locked(std::span<const VkCommandBuffer> cbs, const BinarySemaphores& binary = {});
  uint64_t submit_locked(VkCommandBuffer cb, const BinarySemaphores& binary = {}) {
    return cb == VK_NULL_HANDLE ? submit_locked(std::span<const VkCommandBuffer>{}, binary)
                                : submit_locked(std::span<const VkCommandBuffer>(&cb, 1), binary);
  }
  // The serial the pending uploads will be submitted with (locked).
  uint64_t next_serial_locked() const { return submitted + 1; }

  // Records the barrier that orders everything before it against everything after it.
  void full_barrier(VkCommandBuffer cb) const;
  // Records an execution dependency alone (write after read needs no memory barrier).
  void execution_barrier(VkCommandBuffer cb) const;

  // Destroys everything the device owns except leaked user objects (close()).
  void destroy_owned_locked();

  // Encoders handed out and not yet submitted or destroyed (locked); close() releases what they
  // hold.
  std::unordered_set<VulkanEncoder*> live_encoders;

  // Statistics.
  std::atomic<uint64_t> live_buffers{0}, live_bytes{0}, pending_release_bytes{0}, readback_bytes{0};
  std::atomic<uint64_t> live_textures{0}, texture_bytes{0};
  uint64_t staging_bytes_locked() const;
  uint64_t command_pools_locked() const { return all_pools_.size(); }

 private:
  struct Deferred {
    uint64_t serial;
    std::function<void()> destroy;
  };
  struct Chunk {
    UniqueBuffer buffer;
    uint64_t size = 0;
    uint64_t used = 0;
    uint64_t last_serial = 0;  // the submission that carries its last upload
  };

  // Copies `data` into the staging ring and opens the upload command buffer.
  StagingSlice stage_locked(std::span<const std::byte> data);
  VkCommandBuffer upload_cb_locked();

  struct Failure {
    CommandFailedError::Failure kind;
    std::string call;
  };
  mutable std::mutex failure_mu_;
  mutable std::optional<Failure> failure_;
  mutable std::atomic<uint64_t> last_completed_{0};

  std::mutex deferred_mu_;  // guards deferred_ alone
  std::deque<Deferred> deferred_;
  std::vector<std::pair<CommandPool, uint64_t>> retired_pools_;
  std::vector<CommandPool> free_pools_;
  std::vector<UniqueHandle<VkCommandPool>> all_pools_;
  std::vector<UniqueHandle<VkDescriptorPool>> descriptor_pools_;
  std::vector<Chunk> chunks_;  // staging ring; chunks_[current_] takes new uploads
  size_t current_chunk_ = SIZE_MAX;
  CommandPool upload_pool_{};
  bool upload_recording_ = false;
  bool upload_ended_ = false;  // upload_pool_ ended and awaiting a submission
};

}  // namespace onegpu::vulkan
