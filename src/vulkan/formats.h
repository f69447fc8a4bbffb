// Vulkan's names for the library's vertex formats.
#pragma once

#include "onegpu/format.h"
#include "onegpu/render.h"
#include "vulkan/compat.h"
#include "vulkan/texture.h"

namespace onegpu::vulkan {

// vk_format(TextureFormat) is in vulkan/texture.h.

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
