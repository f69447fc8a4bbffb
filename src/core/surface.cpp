// The public Surface: state and argument checks, then the backend.
#include "backend/backend.h"
#include "core/surface_checks.h"
#include "onegpu/device.h"
#include "onegpu/errors.h"

namespace onegpu {

Surface::Surface(std::shared_ptr<backend::Surface> impl) : impl_(std::move(impl)) {}
Surface::~Surface() = default;

backend::Surface& Surface::impl() const {
  if (!impl_) throw UsageError("Surface", "the surface is empty (moved from or never created)");
  return *impl_;
}

SurfaceCapabilities Surface::capabilities() const { return impl().capabilities(); }

void Surface::configure(const SurfaceConfiguration& configuration) {
  backend::Surface& s = impl();
  if (s.acquired) throw UsageError("configure", "an acquired image awaits present()");
  core::check_surface_configuration(s.capabilities(), configuration);
  s.configure(configuration);
  s.configuration = configuration;
  s.configured = true;
}

const SurfaceConfiguration& Surface::configuration() const {
  const backend::Surface& s = impl();
  if (!s.configured) throw UsageError("configuration", "the surface was never configured");
  return s.configuration;
}

bool Surface::configured() const { return impl_ && impl_->configured; }

SurfaceTexture Surface::acquire(uint64_t timeout_ns) {
  backend::Surface& s = impl();
  if (!s.configured) throw UsageError("acquire", "configure() the surface first");
  if (s.acquired) throw UsageError("acquire", "the image acquired before was not presented");
  SurfaceTexture t = s.acquire(timeout_ns);
  s.acquired = t.acquired;
  return t;
}

SurfaceStatus Surface::present() {
  backend::Surface& s = impl();
  if (!s.acquired) throw UsageError("present", "no image is acquired (acquire() first)");
  s.acquired = false;  // presented or lost either way: the image is the window system's again
  return s.present();
}

uint64_t Surface::swapchains_created() const { return impl().swapchains_created(); }

Surface Device::create_surface(const XcbWindow& window) {
  backend::Device& d = live();
  if (!adapter().surface_support)
    throw UnsupportedError("surface_support", "VK_KHR_surface, VK_KHR_xcb_surface and VK_KHR_swapchain",
                           "not offered by the loader or the adapter");
  if (window.connection == nullptr) throw UsageError("create_surface", "the xcb connection is null");
  if (window.window == 0) throw UsageError("create_surface", "the xcb window is 0");
  return Surface(d.create_surface(window));
}

}  // namespace onegpu
