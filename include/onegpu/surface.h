// onegpu/surface.h - showing images in a window: surfaces and their swapchains.
//
// A Surface is a window the device presents to (Device::create_surface). It is configured with a
// size, a format, a present mode and usages (configure()), then each frame acquires an image
// (acquire()), records work that writes it, submits, and presents it (present()):
//
//   onegpu::Surface surface = device.create_surface(onegpu::XcbWindow{connection, window});
//   surface.configure({.width = 640, .height = 480});
//   for (;;) {
//     onegpu::SurfaceTexture frame = surface.acquire();
//     if (!frame.acquired) { surface.configure({...new size...}); continue; }
//     ... record work writing frame's image, device.submit(encoder) ...
//     surface.present();
//   }
//
// Window systems: X11 through xcb. The public API names no xcb or Vulkan type: the connection is
// an opaque pointer (an xcb_connection_t*) and the window its 32-bit id. Whether the device can
// present at all is AdapterInfo::surface_support (false when the Vulkan loader lacks
// VK_KHR_surface / VK_KHR_xcb_surface or the adapter lacks VK_KHR_swapchain; everything else works
// without them).
//
// Synchronisation: acquire() submits (behind everything submitted before) the step that makes the
// image writable, after the presentation engine has released it; present() submits the step that
// hands it back, after everything submitted before, and queues the presentation behind it. Work
// that writes the image must therefore be submitted between the two. The images stay in one layout
// while the device writes them, as every texture does (docs/surfaces.md).
//
// Ownership: Surface is move-only and must not outlive its device nor the window and connection it
// was created for. Destroying it waits for the device's queue and releases the swapchain.
// Reconfiguring (or an out-of-date swapchain recreated by acquire()) retires the old swapchain,
// destroyed once the queue has finished with it.
//
// Threads: a Surface is used by one thread at a time (like an encoder); it locks what it shares
// with its device.
//
// Errors: UnsupportedError when the device cannot present (capability "surface_support") or not
// to this window's queue ("surface presentation"), or when a configuration asks for a format,
// present mode or usage the surface does not offer; KernelShapeError (operation "configure") for a
// size outside the surface's range or an empty usage; UsageError for acquire/present out of order, or an empty or
// closed handle; CommandError when the window system fails (a lost surface).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onegpu/format.h"
#include "onegpu/texture.h"

namespace onegpu {

namespace backend { class Surface; }

// An X11 window reached through xcb: `connection` is the xcb_connection_t* it was created on,
// `window` its xcb_window_t. Both must stay valid while the surface lives.
struct XcbWindow {
  void* connection = nullptr;
  uint32_t window = 0;
};

// How presented images reach the screen (webgpu.h's WGPUPresentMode). fifo: one image per
// vertical blank, never torn (vsync on; always offered). immediate: at once, may tear (vsync off).
// mailbox: at the next vertical blank, a newer image replacing a waiting one (vsync off, no
// tearing).
enum class PresentMode : uint8_t { fifo, immediate, mailbox };
const char* present_mode_name(PresentMode mode);  // "fifo", "immediate", "mailbox"

// What a surface offers on this device, as the window system reports it now.
struct SurfaceCapabilities {
  std::vector<TextureFormat> formats;       // those of bgra8_unorm, bgra8_srgb, rgba8_unorm, rgba8_srgb offered
  std::vector<PresentMode> present_modes;   // fifo first
  uint32_t current_width = 0, current_height = 0;  // the window's size; 0 when the swapchain decides
  uint32_t min_width = 0, min_height = 0, max_width = 0, max_height = 0;
  uint32_t min_images = 0, max_images = 0;  // images a swapchain may have; max 0: no limit
  // What images can be used for: render_target always, and copy_src, copy_dst, sampled, storage as
  // the surface offers them (storage only for formats in storage_formats).
  TextureUsage usages = TextureUsage::render_target;
  std::vector<TextureFormat> storage_formats;
};

// What configure() creates: images of width x height in `format`, shown with `present_mode`.
struct SurfaceConfiguration {
  uint32_t width = 0, height = 0;  // within the capabilities' min and max (X11: the window's size)
  TextureFormat format = TextureFormat::bgra8_unorm;
  PresentMode present_mode = PresentMode::fifo;
  // What the acquired textures are used for; a subset of SurfaceCapabilities::usages, not none.
  TextureUsage usage = TextureUsage::render_target | TextureUsage::copy_dst;
};

// What acquire() got.
//   success:     an image was acquired and matches the surface.
//   suboptimal:  an image was acquired and can be used, but the surface changed (its size, say):
//                present it, then configure() again.
//   out_of_date: the swapchain no longer matched the surface; acquire() recreated it with the
//                configuration's format and mode at the window's current size (width and height
//                say which) and acquired from the new one when it could (`acquired` says).
//   timeout:     no image became available within the timeout; nothing was acquired.
enum class SurfaceStatus : uint8_t { success, suboptimal, out_of_date, timeout };
const char* surface_status_name(SurfaceStatus status);

// An acquired image as a Texture (d2, one mip, the configured format and usage) and what acquire()
// said. The texture is valid from acquire() until present(): work using it must be submitted in
// between; after present() it must not be used (its image belongs to the window system again).
struct SurfaceTexture {
  Texture texture;  // empty when nothing was acquired
  SurfaceStatus status = SurfaceStatus::timeout;
  uint32_t width = 0, height = 0;  // of the swapchain's images
  TextureFormat format = TextureFormat::bgra8_unorm;
  uint32_t image_index = 0;        // which of the swapchain's images (valid when acquired)
  // True when an image was acquired: it must be presented before the next acquire().
  bool acquired = false;
};

class Surface {
 public:
  Surface() = default;
  explicit Surface(std::shared_ptr<backend::Surface> impl);
  Surface(Surface&&) noexcept = default;
  Surface& operator=(Surface&&) noexcept = default;
  Surface(const Surface&) = delete;
  Surface& operator=(const Surface&) = delete;
  ~Surface();

  explicit operator bool() const { return impl_ != nullptr; }

  // Queries the window system now (a resized window reports its new size).
  SurfaceCapabilities capabilities() const;

  // Creates the swapchain, or recreates it (a new size, format, mode or usage). Checks the size
  // and that the usage is not empty (KernelShapeError) and the format, mode and usage against what
  // is offered (UnsupportedError). Throws UsageError while an acquired image awaits present().
  void configure(const SurfaceConfiguration& configuration);
  // The configuration in force (after an out-of-date recreation, with the new size).
  const SurfaceConfiguration& configuration() const;
  bool configured() const;

  // Acquires the next image, waiting at most `timeout_ns` (UINT64_MAX: no limit). Throws
  // UsageError before configure() or while an acquired image awaits present().
  SurfaceTexture acquire(uint64_t timeout_ns = UINT64_MAX);

  // Presents the acquired image behind everything submitted so far. Returns success, suboptimal
  // (shown, but configure() again) or out_of_date (not shown; the next acquire() recreates the
  // swapchain). Throws UsageError when no image is acquired.
  SurfaceStatus present();

  // Swapchains this surface has created (configure() and out-of-date recreations), for tests.
  uint64_t swapchains_created() const;

  backend::Surface& impl() const;

 private:
  std::shared_ptr<backend::Surface> impl_;
};

}  // namespace onegpu
