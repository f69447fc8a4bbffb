#include "core/surface_checks.h"

#include <algorithm>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::core {

namespace {

std::string range_text(uint32_t lo, uint32_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }

}  // namespace

void check_surface_configuration(const SurfaceCapabilities& caps, const SurfaceConfiguration& config) {
  const auto check_extent = [](const char* arg, uint32_t v, uint32_t lo, uint32_t hi) {
    if (v == 0) throw KernelShapeError("configure", arg, "0 (a surface needs at least one pixel)");
    if (v < lo || v > hi)
      throw KernelShapeError("configure", arg, std::to_string(v) + " is outside the surface's range " + range_text(lo, hi));
  };
  check_extent("width", config.width, caps.min_width, caps.max_width);
  check_extent("height", config.height, caps.min_height, caps.max_height);
  if (std::find(caps.formats.begin(), caps.formats.end(), config.format) == caps.formats.end()) {
    std::string offered;
    for (TextureFormat f : caps.formats) offered += (offered.empty() ? "" : ", ") + std::string(format_name(f));
    throw UnsupportedError("surface format", std::string(format_name(config.format)), offered.empty() ? "none" : offered);
  }
  if (std::find(caps.present_modes.begin(), caps.present_modes.end(), config.present_mode) == caps.present_modes.end()) {
    std::string offered;
    for (PresentMode m : caps.present_modes) offered += (offered.empty() ? "" : ", ") + std::string(present_mode_name(m));
    throw UnsupportedError("present mode", present_mode_name(config.present_mode), offered.empty() ? "none" : offered);
  }
  if (config.usage == TextureUsage::none) throw KernelShapeError("configure", "usage", "none (at least one usage)");
  if (!has(caps.usages, config.usage))
    throw UnsupportedError("surface usage", texture_usage_names(config.usage), texture_usage_names(caps.usages));
  if (has(config.usage, TextureUsage::storage) &&
      std::find(caps.storage_formats.begin(), caps.storage_formats.end(), config.format) == caps.storage_formats.end())
    throw UnsupportedError("surface usage", "storage images of " + std::string(format_name(config.format)),
                           "not offered");
}

uint32_t swapchain_image_count(uint32_t min_images, uint32_t max_images) {
  uint32_t n = std::max<uint32_t>(min_images, 1) + 1;
  if (max_images != 0) n = std::min(n, max_images);
  return std::max<uint32_t>(n, max_images == 0 ? 2 : std::min<uint32_t>(2, max_images));
}

Size2 recreation_size(const SurfaceCapabilities& caps, const SurfaceConfiguration& config) {
  if (caps.current_width != 0 || caps.current_height != 0) {
    if (caps.current_width == 0 || caps.current_height == 0) return {};
    return {caps.current_width, caps.current_height};
  }
  if (caps.max_width == 0 || caps.max_height == 0 || caps.min_width > caps.max_width ||
      caps.min_height > caps.max_height)
    return {};
  return {std::clamp(config.width, std::max<uint32_t>(caps.min_width, 1), caps.max_width),
          std::clamp(config.height, std::max<uint32_t>(caps.min_height, 1), caps.max_height)};
}

}  // namespace onegpu::core

namespace onegpu {

const char* present_mode_name(PresentMode mode) {
  switch (mode) {
    case PresentMode::fifo: return "fifo";
    case PresentMode::immediate: return "immediate";
    case PresentMode::mailbox: return "mailbox";
  }
  return "unknown";
}

const char* surface_status_name(SurfaceStatus status) {
  switch (status) {
    case SurfaceStatus::success: return "success";
    case SurfaceStatus::suboptimal: return "suboptimal";
    case SurfaceStatus::out_of_date: return "out_of_date";
    case SurfaceStatus::timeout: return "timeout";
  }
  return "unknown";
}

}  // namespace onegpu
