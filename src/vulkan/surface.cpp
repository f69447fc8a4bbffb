#include "vulkan/surface.h"

// The three xcb types vulkan_xcb.h names, as xcb.h declares them: the library needs no xcb headers
// (the connection and window come from the application as opaque values).
typedef struct xcb_connection_t xcb_connection_t;
typedef uint32_t xcb_window_t;
typedef uint32_t xcb_visualid_t;
#include <vulkan/vulkan_xcb.h>

#include <algorithm>

#include "core/surface_checks.h"
#include "onegpu/errors.h"
#include "vulkan/check.h"

namespace onegpu::vulkan {
namespace {

struct FormatPair {
  TextureFormat format;
  VkFormat vk;
};
constexpr FormatPair kSurfaceFormats[] = {
    {TextureFormat::bgra8_unorm, VK_FORMAT_B8G8R8A8_UNORM},
    {TextureFormat::bgra8_srgb, VK_FORMAT_B8G8R8A8_SRGB},
    {TextureFormat::rgba8_unorm, VK_FORMAT_R8G8B8A8_UNORM},
    {TextureFormat::rgba8_srgb, VK_FORMAT_R8G8B8A8_SRGB},
};

VkFormat surface_vk_format(TextureFormat f) {
  for (const FormatPair& p : kSurfaceFormats)
    if (p.format == f) return p.vk;
  return VK_FORMAT_UNDEFINED;
}

VkPresentModeKHR vk_present_mode(PresentMode m) {
  switch (m) {
    case PresentMode::fifo: return VK_PRESENT_MODE_FIFO_KHR;
    case PresentMode::immediate: return VK_PRESENT_MODE_IMMEDIATE_KHR;
    case PresentMode::mailbox: return VK_PRESENT_MODE_MAILBOX_KHR;
  }
  return VK_PRESENT_MODE_FIFO_KHR;
}

}  // namespace

VulkanSurface::VulkanSurface(std::shared_ptr<Context> ctx, VulkanDevice* device, const XcbWindow& window)
    : ctx_(std::move(ctx)), device_(device) {
  owner_ = ctx_.get();
  const InstanceFunctions& fi = ctx_->instance.fn;
  auto create = reinterpret_cast<PFN_vkCreateXcbSurfaceKHR>(fi.vkCreateXcbSurfaceKHR);
  VkXcbSurfaceCreateInfoKHR ci{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
  ci.connection = static_cast<xcb_connection_t*>(window.connection);
  ci.window = window.window;
  {
    validation::ScopedCurrentDevice scope(ctx_->id);
    call_checked("vkCreateXcbSurfaceKHR", 0, [&] { return create(ctx_->instance.handle, &ci, nullptr, &surface_); });
  }
  validation::track(surface_, ctx_->id);
  VkBool32 supported = VK_FALSE;
  const VkResult r = fi.vkGetPhysicalDeviceSurfaceSupportKHR(ctx_->adapter.handle, ctx_->adapter.queue_family,
                                                             surface_, &supported);
  if (r < 0 || !supported) {
    validation::untrack(surface_);
    fi.vkDestroySurfaceKHR(ctx_->instance.handle, surface_, nullptr);
    check(r, "vkGetPhysicalDeviceSurfaceSupportKHR");
    throw UnsupportedError("surface presentation", "a queue that presents to the window",
                           "queue family " + std::to_string(ctx_->adapter.queue_family) + " cannot");
  }
}

VulkanSurface::~VulkanSurface() {
  const Instance& inst = ctx_->instance;
  const VkSurfaceKHR surface = surface_;
  const auto destroy_surface = [&inst, surface] {
    validation::untrack(surface);
    inst.fn.vkDestroySurfaceKHR(inst.handle, surface, nullptr);
  };
  if (!ctx_->alive) {  // the swapchain went with the device (reported as a leak)
    destroy_surface();
    return;
  }
  std::lock_guard lock(ctx_->mu);
  ctx_->fn.vkQueueWaitIdle(ctx_->queue);  // the last presentation has taken its image
  chain_.textures.clear();
  chain_.present_semaphores.clear();
  chain_.handle.reset();
  acquire_semaphores_.clear();
  // Queued behind the swapchain, so destroyed after it.
  ctx_->defer(destroy_surface);
  ctx_->collect_locked();
}

SurfaceCapabilities VulkanSurface::capabilities() {
  const InstanceFunctions& fi = ctx_->instance.fn;
  const VkPhysicalDevice pd = ctx_->adapter.handle;
  VkSurfaceCapabilitiesKHR vc{};
  check(fi.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(pd, surface_, &vc), "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  SurfaceCapabilities c;
  if (vc.currentExtent.width != UINT32_MAX) {
    c.current_width = vc.currentExtent.width;
    c.current_height = vc.currentExtent.height;
  }
  c.min_width = vc.minImageExtent.width;
  c.min_height = vc.minImageExtent.height;
  c.max_width = vc.maxImageExtent.width;
  c.max_height = vc.maxImageExtent.height;
  c.min_images = vc.minImageCount;
  c.max_images = vc.maxImageCount;
  for (auto [vk, usage] : {std::pair{VK_IMAGE_USAGE_TRANSFER_SRC_BIT, TextureUsage::copy_src},
                           std::pair{VK_IMAGE_USAGE_TRANSFER_DST_BIT, TextureUsage::copy_dst},
                           std::pair{VK_IMAGE_USAGE_SAMPLED_BIT, TextureUsage::sampled},
                           std::pair{VK_IMAGE_USAGE_STORAGE_BIT, TextureUsage::storage}})
    if (vc.supportedUsageFlags & vk) c.usages |= usage;
  const bool storage_usage = (vc.supportedUsageFlags & VK_IMAGE_USAGE_STORAGE_BIT) != 0;

  uint32_t n = 0;
  check(fi.vkGetPhysicalDeviceSurfaceFormatsKHR(pd, surface_, &n, nullptr), "vkGetPhysicalDeviceSurfaceFormatsKHR");
  std::vector<VkSurfaceFormatKHR> formats(n);
  check(fi.vkGetPhysicalDeviceSurfaceFormatsKHR(pd, surface_, &n, formats.data()), "vkGetPhysicalDeviceSurfaceFormatsKHR");
  formats.resize(n);
  auto format_properties = reinterpret_cast<PFN_vkGetPhysicalDeviceFormatProperties>(
      loader().vkGetInstanceProcAddr(ctx_->instance.handle, "vkGetPhysicalDeviceFormatProperties"));
  for (const VkSurfaceFormatKHR& f : formats) {
    if (f.colorSpace != VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) continue;
    for (const FormatPair& p : kSurfaceFormats) {
      if (p.vk != f.format || std::find(c.formats.begin(), c.formats.end(), p.format) != c.formats.end()) continue;
      c.formats.push_back(p.format);
      VkFormatProperties fp{};
      format_properties(pd, p.vk, &fp);
      if (storage_usage && (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT))
        c.storage_formats.push_back(p.format);
    }
  }

  check(fi.vkGetPhysicalDeviceSurfacePresentModesKHR(pd, surface_, &n, nullptr), "vkGetPhysicalDeviceSurfacePresentModesKHR");
  std::vector<VkPresentModeKHR> modes(n);
  check(fi.vkGetPhysicalDeviceSurfacePresentModesKHR(pd, surface_, &n, modes.data()),
        "vkGetPhysicalDeviceSurfacePresentModesKHR");
  modes.resize(n);
  for (PresentMode m : {PresentMode::fifo, PresentMode::immediate, PresentMode::mailbox})
    if (std::find(modes.begin(), modes.end(), vk_present_mode(m)) != modes.end()) c.present_modes.push_back(m);
  return c;
}

UniqueHandle<VkSemaphore> VulkanSurface::create_semaphore_locked() {
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore s = VK_NULL_HANDLE;
  call_checked("vkCreateSemaphore", 0, [&] { return ctx_->fn.vkCreateSemaphore(ctx_->device, &si, nullptr, &s); });
  validation::track(s, ctx_->id);
  return UniqueHandle<VkSemaphore>(*ctx_, s);
}

void VulkanSurface::create_swapchain(const SurfaceConfiguration& config, uint32_t width, uint32_t height) {
  VkSurfaceCapabilitiesKHR vc{};
  check(ctx_->instance.fn.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_->adapter.handle, surface_, &vc),
        "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  ci.surface = surface_;
  ci.minImageCount = core::swapchain_image_count(vc.minImageCount, vc.maxImageCount);
  ci.imageFormat = surface_vk_format(config.format);
  ci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  ci.imageExtent = {width, height};
  ci.imageArrayLayers = 1;
  // A colour attachment always (every surface offers it), and what the configuration asks.
  ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (has(config.usage, TextureUsage::copy_src)) ci.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  if (has(config.usage, TextureUsage::copy_dst)) ci.imageUsage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (has(config.usage, TextureUsage::sampled)) ci.imageUsage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if (has(config.usage, TextureUsage::storage)) ci.imageUsage |= VK_IMAGE_USAGE_STORAGE_BIT;
  ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci.preTransform = vc.currentTransform;
  ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  for (VkCompositeAlphaFlagBitsKHR a : {VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
                                        VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR, VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR}) {
    if (vc.supportedCompositeAlpha & a) {
      ci.compositeAlpha = a;
      break;
    }
  }
  ci.presentMode = vk_present_mode(config.present_mode);
  ci.clipped = VK_TRUE;

  std::lock_guard lock(ctx_->mu);
  ctx_->throw_if_failed("configure");
  // The old swapchain may still be presenting: wait for the queue before it is retired.
  if (chain_.handle) check(ctx_->fn.vkQueueWaitIdle(ctx_->queue), "vkQueueWaitIdle");
  ci.oldSwapchain = chain_.handle.get();
  VkSwapchainKHR handle = VK_NULL_HANDLE;
  call_checked("vkCreateSwapchainKHR", 0,
               [&] { return ctx_->fn.vkCreateSwapchainKHR(ctx_->device, &ci, nullptr, &handle); });
  validation::track(handle, ctx_->id);
  Swapchain next;
  next.handle = UniqueHandle<VkSwapchainKHR>(*ctx_, handle);
  next.width = width;
  next.height = height;
  uint32_t count = 0;
  check(ctx_->fn.vkGetSwapchainImagesKHR(ctx_->device, handle, &count, nullptr), "vkGetSwapchainImagesKHR");
  next.images.resize(count);
  check(ctx_->fn.vkGetSwapchainImagesKHR(ctx_->device, handle, &count, next.images.data()), "vkGetSwapchainImagesKHR");
  next.images.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    next.present_semaphores.push_back(create_semaphore_locked());
    TextureDescriptor d;
    d.format = config.format;
    d.width = width;
    d.height = height;
    d.usage = config.usage | TextureUsage::render_target;
    d.label = "surface image " + std::to_string(i);
    next.textures.push_back(std::make_shared<VulkanTexture>(ctx_, device_, d, next.images[i]));
  }
  // One acquire semaphore more than images, so a free one is always at hand.
  while (acquire_semaphores_.size() < count + 1) {
    acquire_semaphores_.push_back(create_semaphore_locked());
    acquire_serials_.push_back(0);
  }
  // The old chain's handles go to the deferred queue (the queue is idle, so at its next turn),
  // the textures' views before the swapchain whose images they show.
  chain_.textures.clear();
  chain_ = std::move(next);
  stale_ = false;
  ++created_;
}

void VulkanSurface::configure(const SurfaceConfiguration& config) {
  create_swapchain(config, config.width, config.height);
}

uint64_t VulkanSurface::submit_barrier_locked(VkImage image, VkImageLayout from, VkImageLayout to,
                                              VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                                              VkPipelineStageFlags dst_stage, VkAccessFlags dst_access,
                                              const BinarySemaphores& binary) {
  CommandPool pool = ctx_->acquire_pool_locked();
  uint64_t serial = 0;
  try {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(ctx_->fn.vkBeginCommandBuffer(pool.cb, &bi), "vkBeginCommandBuffer");
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    ctx_->fn.vkCmdPipelineBarrier(pool.cb, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
    check(ctx_->fn.vkEndCommandBuffer(pool.cb), "vkEndCommandBuffer");
    serial = ctx_->submit_locked(pool.cb, binary);
  } catch (...) {
    ctx_->recycle_pool_locked(pool);
    throw;
  }
  ctx_->retire_pool_locked(pool, serial);
  return serial;
}

VkResult VulkanSurface::acquire_once(uint64_t timeout_ns, uint32_t& index) {
  const size_t slot = next_acquire_;
  // The semaphore is free once the submission that waited on it has finished.
  ctx_->wait_serial(acquire_serials_[slot]);
  const VkSemaphore sem = acquire_semaphores_[slot].get();
  // Not under the device's lock: acquiring may wait for the presentation engine.
  VkResult r = take_injected("vkAcquireNextImageKHR");  // tests stand in for the window system
  if (r == VK_SUCCESS)
    r = ctx_->fn.vkAcquireNextImageKHR(ctx_->device, chain_.handle.get(), timeout_ns, sem, VK_NULL_HANDLE, &index);
  if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) return r;
  next_acquire_ = (slot + 1) % acquire_semaphores_.size();
  std::lock_guard lock(ctx_->mu);
  // Whatever the image held is discarded (UNDEFINED): a surface image's contents are undefined
  // after acquire. Later work on the queue is ordered after the barrier (its second scope).
  acquire_serials_[slot] = submit_barrier_locked(
      chain_.images[index], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
      {.wait = sem, .wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT});
  return r;
}

SurfaceTexture VulkanSurface::acquire(uint64_t timeout_ns) {
  SurfaceTexture t;
  t.format = configuration.format;
  uint32_t index = 0;
  VkResult r = stale_ ? VK_ERROR_OUT_OF_DATE_KHR : acquire_once(timeout_ns, index);
  bool recreated = false;
  if (r == VK_ERROR_OUT_OF_DATE_KHR) {
    const core::Size2 size = core::recreation_size(capabilities(), configuration);
    t.status = SurfaceStatus::out_of_date;
    if (size.width == 0) return t;  // no area to draw into: try again later
    configuration.width = size.width;
    configuration.height = size.height;
    create_swapchain(configuration, size.width, size.height);
    recreated = true;
    r = acquire_once(timeout_ns, index);
  }
  t.width = chain_.width;
  t.height = chain_.height;
  if (r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR) {
    t.acquired = true;
    t.image_index = index;
    t.texture = Texture(chain_.textures[index]);
    acquired_index_ = index;
    if (!recreated) t.status = r == VK_SUCCESS ? SurfaceStatus::success : SurfaceStatus::suboptimal;
    return t;
  }
  if (r == VK_TIMEOUT || r == VK_NOT_READY) {
    if (!recreated) t.status = SurfaceStatus::timeout;
    return t;
  }
  if (r == VK_ERROR_OUT_OF_DATE_KHR) {  // out of date again at once: the caller tries later
    stale_ = true;
    t.status = SurfaceStatus::out_of_date;
    return t;
  }
  check(r, "vkAcquireNextImageKHR");
  throw CommandError("vkAcquireNextImageKHR", static_cast<int32_t>(r), result_name(r));
}

SurfaceStatus VulkanSurface::present() {
  std::lock_guard lock(ctx_->mu);
  const uint32_t index = acquired_index_;
  const VkSemaphore ready = chain_.present_semaphores[index].get();
  submit_barrier_locked(chain_.images[index], VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                        VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, {.signal = ready});
  VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  pi.waitSemaphoreCount = 1;
  pi.pWaitSemaphores = &ready;
  const VkSwapchainKHR chain = chain_.handle.get();
  pi.swapchainCount = 1;
  pi.pSwapchains = &chain;
  pi.pImageIndices = &index;
  const VkResult r = ctx_->fn.vkQueuePresentKHR(ctx_->queue, &pi);
  if (r == VK_SUCCESS) return SurfaceStatus::success;
  if (r == VK_SUBOPTIMAL_KHR) return SurfaceStatus::suboptimal;
  if (r == VK_ERROR_OUT_OF_DATE_KHR) {
    stale_ = true;
    return SurfaceStatus::out_of_date;
  }
  check(r, "vkQueuePresentKHR");
  throw CommandError("vkQueuePresentKHR", static_cast<int32_t>(r), result_name(r));
}

}  // namespace onegpu::vulkan
