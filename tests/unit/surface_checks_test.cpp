// The surface decisions that need no window: configuration checks, image count, recreation size.
#include <gtest/gtest.h>

#include "core/surface_checks.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::testing {
namespace {

TEST(SurfaceChecks, ConfigurationImageCountAndRecreationSize) {
  SurfaceCapabilities caps;
  caps.formats = {TextureFormat::bgra8_unorm, TextureFormat::bgra8_srgb};
  caps.present_modes = {PresentMode::fifo, PresentMode::mailbox};
  caps.min_width = caps.max_width = 300;
  caps.min_height = 1;
  caps.max_height = 200;
  caps.current_width = 300;
  caps.current_height = 200;
  caps.usages = TextureUsage::render_target | TextureUsage::copy_dst | TextureUsage::storage;
  EXPECT_NO_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 200}));
  EXPECT_NO_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 1, .present_mode = PresentMode::mailbox}));
  EXPECT_EQ(shape_error_argument([&] { core::check_surface_configuration(caps, {.width = 299, .height = 200}); }), "width");
  EXPECT_EQ(shape_error_argument([&] { core::check_surface_configuration(caps, {.width = 300, .height = 201}); }), "height");
  EXPECT_EQ(shape_error_argument([&] { core::check_surface_configuration(caps, {.width = 300, .height = 0}); }), "height");
  try {
    core::check_surface_configuration(caps, {.width = 300, .height = 200, .format = TextureFormat::rgba8_unorm});
    ADD_FAILURE() << "rgba8_unorm accepted";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "surface format");
    EXPECT_EQ(e.actual(), "bgra8_unorm, bgra8_srgb");
  }
  EXPECT_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 200, .present_mode = PresentMode::immediate}),
               UnsupportedError);
  // Usages: a subset of what the surface offers, storage only for the storage formats, never none.
  EXPECT_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 200, .usage = TextureUsage::copy_src}),
               UnsupportedError);
  EXPECT_EQ(shape_error_argument([&] {
              core::check_surface_configuration(caps, {.width = 300, .height = 200, .usage = TextureUsage::none});
            }),
            "usage");
  EXPECT_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 200, .usage = TextureUsage::storage}),
               UnsupportedError);
  caps.storage_formats = {TextureFormat::bgra8_unorm};
  EXPECT_NO_THROW(core::check_surface_configuration(caps, {.width = 300, .height = 200, .usage = TextureUsage::storage}));
  EXPECT_THROW(core::check_surface_configuration(
                   caps, {.width = 300, .height = 200, .format = TextureFormat::bgra8_srgb, .usage = TextureUsage::storage}),
               UnsupportedError);

  EXPECT_EQ(core::swapchain_image_count(2, 0), 3u);
  EXPECT_EQ(core::swapchain_image_count(2, 2), 2u);
  EXPECT_EQ(core::swapchain_image_count(3, 8), 4u);
  EXPECT_EQ(core::swapchain_image_count(0, 0), 2u);
  EXPECT_EQ(core::swapchain_image_count(1, 1), 1u);

  using core::Size2;
  EXPECT_EQ(core::recreation_size(caps, {.width = 10, .height = 10}), (Size2{300, 200}));
  caps.current_width = caps.current_height = 0;  // the swapchain decides: the configured size, clamped
  EXPECT_EQ(core::recreation_size(caps, {.width = 10, .height = 500}), (Size2{300, 200}));
  caps.min_width = 1;
  EXPECT_EQ(core::recreation_size(caps, {.width = 10, .height = 50}), (Size2{10, 50}));
  caps.current_width = 0;
  caps.current_height = 7;  // a window with no area
  EXPECT_EQ(core::recreation_size(caps, {.width = 10, .height = 50}), (Size2{}));
}

}  // namespace
}  // namespace onegpu::testing
