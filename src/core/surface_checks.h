// Decisions about surfaces that need no window: the checks of a configuration against what the
// surface offers, the swapchain's image count and the size a recreated swapchain takes.
#pragma once

#include <cstdint>

#include "onegpu/surface.h"

namespace onegpu::core {

// Throws KernelShapeError (operation "configure", argument "width"/"height") for a size of 0 or
// outside [min, max], UnsupportedError for a format ("surface format"), a present mode ("present
// mode") or a usage ("surface usage"; storage also per format) the surface does not offer; an
// empty usage is a KernelShapeError (argument "usage").
void check_surface_configuration(const SurfaceCapabilities& caps, const SurfaceConfiguration& config);

// Images to ask for: one more than the minimum (so the application need not wait for the
// presentation engine to release one before it can acquire), within the maximum (0: none), and at
// least 2.
uint32_t swapchain_image_count(uint32_t min_images, uint32_t max_images);

// The size an out-of-date swapchain is recreated at: the window's current size where the surface
// reports one, else the configured size clamped into [min, max]. {0, 0} when the window has no
// area (minimised): nothing can be created until it has.
struct Size2 {
  uint32_t width = 0, height = 0;
  friend bool operator==(const Size2&, const Size2&) = default;
};
Size2 recreation_size(const SurfaceCapabilities& caps, const SurfaceConfiguration& config);

}  // namespace onegpu::core
