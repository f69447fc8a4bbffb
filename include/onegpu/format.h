// onegpu/format.h - texel formats of textures and render targets, and what each one is.
//
// The names follow webgpu.h (rgba8_unorm is WGPUTextureFormat_RGBA8Unorm, VK_FORMAT_R8G8B8A8_UNORM
// on Vulkan). Texel data moves in the format's own byte layout: rgba8 is four bytes r, g, b, a;
// bgra8 is b, g, r, a; r16_float one binary16; depth32_float one float32. depth24_stencil8 has no
// byte layout a copy can move as a whole: it is a render target only (and sampled for its depth
// where the device allows), and whether a device offers it at all is in its capabilities.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace onegpu {

enum class TextureFormat : uint32_t {
  rgba8_unorm,
  rgba8_srgb,
  bgra8_unorm,
  bgra8_srgb,
  r8_unorm,
  rg8_unorm,
  r16_float,
  rgba16_float,
  r32_float,
  rgba32_float,
  r32_uint,
  depth32_float,
  depth24_stencil8,
};
inline constexpr uint32_t kTextureFormatCount = 13;

// How a shader reads a format: as floats (unorm, srgb and float formats), as unsigned integers
// (r32_uint: a usampler or uimage in GLSL) or as depth (a float, also through a comparison sampler).
// sint_ is what a shader's isampler/iimage reads; no format here has it yet.
enum class TexelKind : uint8_t { float_, uint_, depth, sint_ };

struct FormatInfo {
  std::string_view name;     // "rgba8_unorm"
  uint32_t bytes_per_texel;  // 0 for depth24_stencil8, which has no copyable layout
  uint32_t components;
  TexelKind kind;
  bool srgb;
  bool has_depth;
  bool has_stencil;
};

constexpr FormatInfo format_info(TextureFormat f) {
  constexpr std::array<FormatInfo, kTextureFormatCount> kInfo{{
      {"rgba8_unorm", 4, 4, TexelKind::float_, false, false, false},
      {"rgba8_srgb", 4, 4, TexelKind::float_, true, false, false},
      {"bgra8_unorm", 4, 4, TexelKind::float_, false, false, false},
      {"bgra8_srgb", 4, 4, TexelKind::float_, true, false, false},
      {"r8_unorm", 1, 1, TexelKind::float_, false, false, false},
      {"rg8_unorm", 2, 2, TexelKind::float_, false, false, false},
      {"r16_float", 2, 1, TexelKind::float_, false, false, false},
      {"rgba16_float", 8, 4, TexelKind::float_, false, false, false},
      {"r32_float", 4, 1, TexelKind::float_, false, false, false},
      {"rgba32_float", 16, 4, TexelKind::float_, false, false, false},
      {"r32_uint", 4, 1, TexelKind::uint_, false, false, false},
      {"depth32_float", 4, 1, TexelKind::depth, false, true, false},
      {"depth24_stencil8", 0, 2, TexelKind::depth, false, true, true},
  }};
  return kInfo[static_cast<uint32_t>(f)];
}

constexpr std::string_view format_name(TextureFormat f) { return format_info(f).name; }
constexpr bool is_depth_format(TextureFormat f) { return format_info(f).has_depth; }

// The format named `name` (as format_name() spells it), or nothing.
constexpr std::optional<TextureFormat> format_from_name(std::string_view name) {
  for (uint32_t i = 0; i < kTextureFormatCount; ++i)
    if (format_info(static_cast<TextureFormat>(i)).name == name) return static_cast<TextureFormat>(i);
  return std::nullopt;
}

}  // namespace onegpu
