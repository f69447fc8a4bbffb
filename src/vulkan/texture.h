// Textures and samplers on Vulkan: VkImage (always in VK_IMAGE_LAYOUT_GENERAL after the creation
// transition recorded in the upload stream), its views made per binding and cached by
// (type, mips, layers), VkSampler, the format table and the texture capabilities.
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "backend/backend.h"
#include "vulkan/context.h"

namespace onegpu::vulkan {

class VulkanDevice;

// The Vulkan format of each TextureFormat.
VkFormat vk_format(TextureFormat f);
// DEPTH for depth formats (depth24_stencil8: DEPTH | STENCIL), COLOR otherwise.
VkImageAspectFlags aspect_of(TextureFormat f);
// The part of a copy that moves through buffers: only the depth aspect of depth formats.
VkImageAspectFlags copy_aspect_of(TextureFormat f);

// Reads the per-format capabilities and limits of a physical device.
TextureCapabilities read_texture_capabilities(const InstanceFunctions& fn, VkPhysicalDevice pd,
                                              const VkPhysicalDeviceLimits& limits, bool sampler_anisotropy);

// The subresource and offsets of a resolved region (for copies and blits).
VkImageSubresourceLayers subresource_of(TextureFormat f, const TextureRegion& r);
VkOffset3D offset_of(const TextureDescriptor& d, const TextureRegion& r);
// Extent of a region in Vulkan terms: d3 depth, else 1 (layers go in the subresource).
VkExtent3D extent_of(const TextureDescriptor& d, const TextureRegion& r);

class VulkanTexture final : public backend::Texture {
 public:
  VulkanTexture(std::shared_ptr<Context> ctx, VulkanDevice* device, const TextureDescriptor& d);
  // A texture over an image it does not own (a swapchain's): no memory, no creation transition;
  // whoever owns the image moves it to GENERAL before use and outlives every submission using it.
  VulkanTexture(std::shared_ptr<Context> ctx, VulkanDevice* device, const TextureDescriptor& d, VkImage borrowed);
  const TextureDescriptor& descriptor() const override { return desc_; }
  void write(const TextureRegion& region, std::span<const std::byte> data) override;
  void read_async(const TextureRegion& region, std::span<std::byte> out,
                  std::function<void(std::exception_ptr)> done) override;

  VkImage handle() const { return borrowed_ != VK_NULL_HANDLE ? borrowed_ : image_.get(); }
  // The view for a binding (locked: made under the context's lock and cached).
  VkImageView view_locked(TextureViewDimension dim, uint32_t base_mip, uint32_t mips, uint32_t base_layer,
                          uint32_t layers);

 private:
  std::shared_ptr<Context> ctx_;
  VulkanDevice* device_;  // valid while ctx_->alive
  TextureDescriptor desc_;
  UniqueImage image_;
  VkImage borrowed_ = VK_NULL_HANDLE;
  std::map<std::tuple<int, uint32_t, uint32_t, uint32_t, uint32_t>, UniqueHandle<VkImageView>> views_;
};

class VulkanSampler final : public backend::Sampler {
 public:
  VulkanSampler(std::shared_ptr<Context> ctx, const SamplerDescriptor& d);
  const SamplerDescriptor& descriptor() const override { return desc_; }
  VkSampler handle() const { return sampler_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  SamplerDescriptor desc_;
  UniqueHandle<VkSampler> sampler_;
};

}  // namespace onegpu::vulkan
