// Window surfaces (VK_KHR_xcb_surface) and their swapchains.
//
// Frame protocol: acquire() takes an image with a binary semaphore from a ring, then submits (on the
// device's one queue, chained with the timeline) a barrier that waits on it and moves the image to
// GENERAL, the layout every texture lives in; present() submits the barrier to PRESENT_SRC, which
// signals the image's present semaphore, and queues the presentation waiting on it. A retired
// swapchain (reconfiguration or out of date) is destroyed through Context::defer after the queue has
// gone idle, so nothing the GPU or the presentation engine still uses goes away.
#pragma once

#include <memory>
#include <vector>

#include "backend/backend.h"
#include "vulkan/context.h"
#include "vulkan/texture.h"

namespace onegpu::vulkan {

class VulkanSurface final : public backend::Surface {
 public:
  // Creates the VkSurfaceKHR. Throws UnsupportedError when the device's queue cannot present to it.
  VulkanSurface(std::shared_ptr<Context> ctx, VulkanDevice* device, const XcbWindow& window);
  ~VulkanSurface() override;

  SurfaceCapabilities capabilities() override;
  void configure(const SurfaceConfiguration& configuration) override;
  SurfaceTexture acquire(uint64_t timeout_ns) override;
  SurfaceStatus present() override;
  uint64_t swapchains_created() const override { return created_; }

 private:
  struct Swapchain {
    UniqueHandle<VkSwapchainKHR> handle;
    std::vector<VkImage> images;
    std::vector<UniqueHandle<VkSemaphore>> present_semaphores;  // one per image
    std::vector<std::shared_ptr<VulkanTexture>> textures;      // one per image, borrowing it
    uint32_t width = 0, height = 0;
  };

  // (Re)creates the swapchain at width x height; the old one is retired.
  void create_swapchain(const SurfaceConfiguration& configuration, uint32_t width, uint32_t height);
  // One vkAcquireNextImageKHR and, on success, the transition to GENERAL.
  VkResult acquire_once(uint64_t timeout_ns, uint32_t& index);
  // Records and submits one image barrier; returns the submission's serial.
  uint64_t submit_barrier_locked(VkImage image, VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src_stage,
                                 VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access,
                                 const BinarySemaphores& binary);
  UniqueHandle<VkSemaphore> create_semaphore_locked();

  std::shared_ptr<Context> ctx_;
  VulkanDevice* device_;  // valid while ctx_->alive
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  Swapchain chain_;
  // Acquire semaphores: a ring, each reused once the submission that waited on it has finished.
  std::vector<UniqueHandle<VkSemaphore>> acquire_semaphores_;
  std::vector<uint64_t> acquire_serials_;
  size_t next_acquire_ = 0;
  uint32_t acquired_index_ = 0;
  bool stale_ = false;  // present() reported out of date: the next acquire() recreates
  uint64_t created_ = 0;
};

}  // namespace onegpu::vulkan
