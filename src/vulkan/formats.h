// Vulkan's names for the library's texel and vertex formats.
#pragma once

#include "onegpu/format.h"
#include "onegpu/render.h"
#include "vulkan/compat.h"

namespace onegpu::vulkan {

constexpr VkFormat vk_format(TextureFormat f) {
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

constexpr VkFormat vk_vertex_format(VertexFormat f) {
  switch (f) {
    case VertexFormat::float32: return VK_FORMAT_R32_SFLOAT;
    case VertexFormat::float32x2: return VK_FORMAT_R32G32_SFLOAT;
    case VertexFormat::float32x3: return VK_FORMAT_R32G32B32_SFLOAT;
    case VertexFormat::float32x4: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case VertexFormat::uint32: return VK_FORMAT_R32_UINT;
    case VertexFormat::uint32x2: return VK_FORMAT_R32G32_UINT;
    case VertexFormat::uint32x3: return VK_FORMAT_R32G32B32_UINT;
    case VertexFormat::uint32x4: return VK_FORMAT_R32G32B32A32_UINT;
    case VertexFormat::sint32: return VK_FORMAT_R32_SINT;
    case VertexFormat::sint32x2: return VK_FORMAT_R32G32_SINT;
    case VertexFormat::sint32x3: return VK_FORMAT_R32G32B32_SINT;
    case VertexFormat::sint32x4: return VK_FORMAT_R32G32B32A32_SINT;
    case VertexFormat::unorm8x4: return VK_FORMAT_R8G8B8A8_UNORM;
    case VertexFormat::snorm8x4: return VK_FORMAT_R8G8B8A8_SNORM;
    case VertexFormat::uint8x4: return VK_FORMAT_R8G8B8A8_UINT;
    case VertexFormat::float16x2: return VK_FORMAT_R16G16_SFLOAT;
    case VertexFormat::float16x4: return VK_FORMAT_R16G16B16A16_SFLOAT;
  }
  return VK_FORMAT_UNDEFINED;
}

}  // namespace onegpu::vulkan
