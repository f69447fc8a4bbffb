#include "vulkan/texture.h"

#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/objects.h"

namespace onegpu::vulkan {

VkFormat vk_format(TextureFormat f) {
  switch (f) {
    case TextureFormat::rgba8_unorm: return VK_FORMAT_R8G8B8A8_UNORM;
    case TextureFormat::rgba8_srgb: return VK_FORMAT_R8G8B8A8_SRGB;
    case TextureFormat::bgra8_unorm: return VK_FORMAT_B8G8R8A8_UNORM;
    case TextureFormat::bgra8_srgb: return VK_FORMAT_B8G8R8A8_SRGB;
    case TextureFormat::r8_unorm: return VK_FORMAT_R8_UNORM;
    case TextureFormat::rg8_unorm: return VK_FORMAT_R8G8_UNORM;
    case TextureFormat::r16_float: return VK_FORMAT_R16_SFLOAT;
    case TextureFormat::rgba16_float: return VK_FORMAT_R16G16B16A16_SFLOAT;
    case TextureFormat::r32_float: return VK_FORMAT_R32_SFLOAT;
    case TextureFormat::rgba32_float: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case TextureFormat::r32_uint: return VK_FORMAT_R32_UINT;
    case TextureFormat::depth32_float: return VK_FORMAT_D32_SFLOAT;
    case TextureFormat::depth24_stencil8: return VK_FORMAT_D24_UNORM_S8_UINT;
  }
  return VK_FORMAT_UNDEFINED;
}

VkImageAspectFlags aspect_of(TextureFormat f) {
  const FormatInfo i = format_info(f);
  if (i.has_depth) return VK_IMAGE_ASPECT_DEPTH_BIT | (i.has_stencil ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
  return VK_IMAGE_ASPECT_COLOR_BIT;
}

VkImageAspectFlags copy_aspect_of(TextureFormat f) {
  return format_info(f).has_depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

TextureCapabilities read_texture_capabilities(const InstanceFunctions& fn, VkPhysicalDevice pd,
                                              const VkPhysicalDeviceLimits& lim, bool sampler_anisotropy) {
  TextureCapabilities c;
  for (uint32_t i = 0; i < kTextureFormatCount; ++i) {
    const TextureFormat f = static_cast<TextureFormat>(i);
    const FormatInfo info = format_info(f);
    VkFormatProperties p{};
    fn.vkGetPhysicalDeviceFormatProperties(pd, vk_format(f), &p);
    const VkFormatFeatureFlags o = p.optimalTilingFeatures;
    FormatCapabilities& fc = c.formats[i];
    fc.sampled = o & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    fc.filterable = o & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    fc.storage = o & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
    fc.render_target = o & (info.has_depth ? VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT);
    fc.blendable = !info.has_depth && (o & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT);
    const VkSampleCountFlags counts = info.has_depth ? lim.framebufferDepthSampleCounts : lim.framebufferColorSampleCounts;
    fc.multisample = fc.render_target && (counts & VK_SAMPLE_COUNT_4_BIT);
    fc.resolve = !info.has_depth && fc.render_target;
    fc.blit = (o & VK_FORMAT_FEATURE_BLIT_SRC_BIT) && (o & VK_FORMAT_FEATURE_BLIT_DST_BIT);
    fc.copy = info.bytes_per_texel != 0 && (o & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) &&
              (o & VK_FORMAT_FEATURE_TRANSFER_DST_BIT);
    if (f == TextureFormat::depth24_stencil8) c.depth24_stencil8 = o != 0;
  }
  c.max_texture_2d = lim.maxImageDimension2D;
  c.max_texture_3d = lim.maxImageDimension3D;
  c.max_texture_cube = lim.maxImageDimensionCube;
  c.max_texture_layers = lim.maxImageArrayLayers;
  c.max_sampler_anisotropy = sampler_anisotropy ? static_cast<uint32_t>(lim.maxSamplerAnisotropy) : 1;
  c.max_sampler_lod_bias = lim.maxSamplerLodBias;
  c.sub_texel_precision_bits = lim.subTexelPrecisionBits;
  c.mipmap_precision_bits = lim.mipmapPrecisionBits;
  return c;
}

VkImageSubresourceLayers subresource_of(TextureFormat f, const TextureRegion& r) {
  return {copy_aspect_of(f), r.mip, r.layer, r.layers};
}

VkOffset3D offset_of(const TextureDescriptor&, const TextureRegion& r) {
  return {static_cast<int32_t>(r.x), static_cast<int32_t>(r.y), static_cast<int32_t>(r.z)};
}

VkExtent3D extent_of(const TextureDescriptor& d, const TextureRegion& r) {
  return {r.width, r.height, d.dimension == TextureDimension::d3 ? r.depth : 1u};
}

namespace {

VkImageUsageFlags usage_of(const TextureDescriptor& d) {
  VkImageUsageFlags u = 0;
  if (has(d.usage, TextureUsage::copy_src)) u |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  if (has(d.usage, TextureUsage::copy_dst)) u |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (has(d.usage, TextureUsage::sampled)) u |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if (has(d.usage, TextureUsage::storage)) u |= VK_IMAGE_USAGE_STORAGE_BIT;
  if (has(d.usage, TextureUsage::render_target))
    u |= is_depth_format(d.format) ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  return u;
}

VkImageViewType view_type_of(TextureViewDimension d) {
  switch (d) {
    case TextureViewDimension::d2_array: return VK_IMAGE_VIEW_TYPE_2D_ARRAY;
    case TextureViewDimension::cube: return VK_IMAGE_VIEW_TYPE_CUBE;
    case TextureViewDimension::d3: return VK_IMAGE_VIEW_TYPE_3D;
    default: return VK_IMAGE_VIEW_TYPE_2D;
  }
}

VkSamplerAddressMode address_of(AddressMode m) {
  switch (m) {
    case AddressMode::clamp_to_edge: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case AddressMode::repeat: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    case AddressMode::mirror_repeat: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    case AddressMode::clamp_to_border: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  }
  return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
}

VkFilter filter_of(FilterMode m) { return m == FilterMode::linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST; }

}  // namespace

// ---- VulkanTexture ----

VulkanTexture::VulkanTexture(std::shared_ptr<Context> ctx, VulkanDevice* device, const TextureDescriptor& d)
    : ctx_(std::move(ctx)), device_(device), desc_(d) {
  owner_ = ctx_.get();
  Context& c = *ctx_;
  VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ci.flags = d.dimension == TextureDimension::cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
  ci.imageType = d.dimension == TextureDimension::d3 ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
  ci.format = vk_format(d.format);
  ci.extent = {d.width, d.height, d.dimension == TextureDimension::d3 ? d.depth_or_layers : 1u};
  ci.mipLevels = d.mip_levels;
  ci.arrayLayers = d.dimension == TextureDimension::d3 ? 1u : d.depth_or_layers;
  ci.samples = d.sample_count == 4 ? VK_SAMPLE_COUNT_4_BIT : VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_OPTIMAL;
  ci.usage = usage_of(d);
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  std::lock_guard lock(c.mu);
  if (!c.alive) throw UsageError("create_texture", "the device is closed");
  c.collect_locked();
  VkImage handle = VK_NULL_HANDLE;
  call_checked("vkCreateImage", 0, [&] { return c.fn.vkCreateImage(c.device, &ci, nullptr, &handle); });
  validation::track(handle, c.id);
  image_ = UniqueImage(c, handle);
  VkMemoryRequirements req{};
  c.fn.vkGetImageMemoryRequirements(c.device, handle, &req);
  image_.set_memory(c.allocator->allocate(req, MemoryUsage::device, true));
  call_checked("vkBindImageMemory", req.size,
               [&] { return c.fn.vkBindImageMemory(c.device, handle, image_.memory().memory, image_.memory().offset); });
  c.queue_image_init_locked(handle, aspect_of(d.format));
  image_.hold_until(c.next_serial_locked());
}

VulkanTexture::VulkanTexture(std::shared_ptr<Context> ctx, VulkanDevice* device, const TextureDescriptor& d,
                             VkImage borrowed)
    : ctx_(std::move(ctx)), device_(device), desc_(d), borrowed_(borrowed) {
  owner_ = ctx_.get();
}

void VulkanTexture::write(const TextureRegion& r, std::span<const std::byte> data) {
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("write", "the device is closed");
  ctx_->throw_if_failed("write");
  image_.hold_until(ctx_->next_serial_locked());
  VkBufferImageCopy copy{};
  copy.imageSubresource = subresource_of(desc_.format, r);
  copy.imageOffset = offset_of(desc_, r);
  copy.imageExtent = extent_of(desc_, r);
  ctx_->queue_image_upload_locked(handle(), copy, data);
}

void VulkanTexture::read_async(const TextureRegion& r, std::span<std::byte> out,
                               std::function<void(std::exception_ptr)> done) {
  {
    std::lock_guard lock(ctx_->mu);
    if (!ctx_->alive || ctx_->closing) throw UsageError("read", "the device is closed");
  }
  VkBufferImageCopy copy{};
  copy.imageSubresource = subresource_of(desc_.format, r);
  copy.imageOffset = offset_of(desc_, r);
  copy.imageExtent = extent_of(desc_, r);
  const VkImage image = handle();
  device_->read_async_recorded(
      out.size(), 0, out,
      [this, copy, image](VkCommandBuffer cb, VkBuffer staging) {
        ctx_->fn.vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_GENERAL, staging, 1, &copy);
      },
      std::move(done));
}

VkImageView VulkanTexture::view_locked(TextureViewDimension dim, uint32_t base_mip, uint32_t mips, uint32_t base_layer,
                                       uint32_t layers) {
  const auto key = std::make_tuple(static_cast<int>(dim), base_mip, mips, base_layer, layers);
  auto it = views_.find(key);
  if (it != views_.end()) return it->second.get();
  VkImageViewCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  ci.image = handle();
  ci.viewType = view_type_of(dim);
  ci.format = vk_format(desc_.format);
  // A sampled view of a depth/stencil format sees its depth.
  ci.subresourceRange = {copy_aspect_of(desc_.format), base_mip, mips, base_layer, layers};
  VkImageView view = VK_NULL_HANDLE;
  Context& c = *ctx_;
  call_checked("vkCreateImageView", 0, [&] { return c.fn.vkCreateImageView(c.device, &ci, nullptr, &view); });
  validation::track(view, c.id);
  return views_.emplace(key, UniqueHandle<VkImageView>(c, view)).first->second.get();
}

// ---- VulkanSampler ----

VulkanSampler::VulkanSampler(std::shared_ptr<Context> ctx, const SamplerDescriptor& d) : ctx_(std::move(ctx)), desc_(d) {
  owner_ = ctx_.get();
  VkSamplerCreateInfo ci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  ci.magFilter = filter_of(d.mag_filter);
  ci.minFilter = filter_of(d.min_filter);
  ci.mipmapMode = d.mipmap_filter == FilterMode::linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
  ci.addressModeU = address_of(d.address_u);
  ci.addressModeV = address_of(d.address_v);
  ci.addressModeW = address_of(d.address_w);
  ci.anisotropyEnable = d.max_anisotropy > 1;
  ci.maxAnisotropy = static_cast<float>(d.max_anisotropy);
  ci.compareEnable = d.compare.has_value();
  ci.compareOp = d.compare ? static_cast<VkCompareOp>(static_cast<uint32_t>(*d.compare)) : VK_COMPARE_OP_NEVER;
  ci.minLod = d.lod_min;
  ci.maxLod = d.lod_max;
  switch (d.border_color) {
    case BorderColor::transparent_black: ci.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK; break;
    case BorderColor::opaque_black: ci.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK; break;
    case BorderColor::opaque_white: ci.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE; break;
  }
  Context& c = *ctx_;
  std::lock_guard lock(c.mu);
  if (!c.alive) throw UsageError("create_sampler", "the device is closed");
  VkSampler handle = VK_NULL_HANDLE;
  call_checked("vkCreateSampler", 0, [&] { return c.fn.vkCreateSampler(c.device, &ci, nullptr, &handle); });
  validation::track(handle, c.id);
  sampler_ = UniqueHandle<VkSampler>(c, handle);
}

}  // namespace onegpu::vulkan
