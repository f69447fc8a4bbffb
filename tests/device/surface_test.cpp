// Surfaces on a real X server: a window made with xcb, frames presented through a swapchain, the
// window resized while presenting. The test starts its own Xvfb on a free display when the
// program is installed (else it uses $DISPLAY; with neither it is skipped, saying why). The fixture
// fails it on any validation message or leaked object.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "support/device_fixture.h"
#include "vulkan/check.h"

namespace onegpu::testing {
namespace {

bool on_path(const char* program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string p(path);
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string file = p.substr(start, end - start) + "/" + program;
    if (::access(file.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// An Xvfb the test started (killed, by its pid, when the test ends), or the display in $DISPLAY.
class XServer {
 public:
  XServer() {
    if (on_path("Xvfb")) start_xvfb();
    if (display_.empty() && std::getenv("DISPLAY") != nullptr && *std::getenv("DISPLAY") != 0)
      display_ = std::getenv("DISPLAY");
    if (display_.empty()) why_ = "no X display: Xvfb is not installed (tools/setup.sh installs xvfb) and DISPLAY is unset";
  }
  ~XServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& display() const { return display_; }
  const std::string& why() const { return why_; }

 private:
  void start_xvfb() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) {
        ::dup2(null, 1);
        ::dup2(null, 2);
      }
      const std::string fd = std::to_string(fds[1]);
      ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "640x480x24", "-nolisten", "tcp",
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      return;
    }
    pid_ = pid;
    // Xvfb writes the display number it chose, then a newline, once it accepts connections.
    std::string number;
    pollfd p{fds[0], POLLIN, 0};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline && ::poll(&p, 1, 200) >= 0) {
      char c;
      if (!(p.revents & (POLLIN | POLLHUP))) continue;
      if (::read(fds[0], &c, 1) != 1 || c == '\n') break;
      number += c;
    }
    ::close(fds[0]);
    if (!number.empty()) display_ = ":" + number;
  }

  pid_t pid_ = -1;
  std::string display_, why_;
};

// One top-level window on its own connection.
class Window {
 public:
  Window(const std::string& display, uint32_t width, uint32_t height) {
    int screen_number = 0;
    connection_ = xcb_connect(display.c_str(), &screen_number);
    if (xcb_connection_has_error(connection_)) return;
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(connection_));
    for (int i = 0; i < screen_number; ++i) xcb_screen_next(&it);
    xcb_screen_t* screen = it.data;
    window_ = xcb_generate_id(connection_);
    const uint32_t values[2] = {screen->black_pixel, XCB_EVENT_MASK_STRUCTURE_NOTIFY};
    xcb_create_window(connection_, XCB_COPY_FROM_PARENT, window_, screen->root, 0, 0, static_cast<uint16_t>(width),
                      static_cast<uint16_t>(height), 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                      XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
    xcb_map_window(connection_, window_);
    sync();
  }
  ~Window() {
    if (connection_ != nullptr) {
      if (window_ != 0) xcb_destroy_window(connection_, window_);
      xcb_disconnect(connection_);
    }
  }
  bool ok() const { return connection_ != nullptr && !xcb_connection_has_error(connection_) && window_ != 0; }
  XcbWindow handle() const { return {connection_, window_}; }

  void resize(uint32_t width, uint32_t height) {
    const uint32_t values[2] = {width, height};
    xcb_configure_window(connection_, window_, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, values);
    sync();
  }
  // A round trip: everything sent before has been handled by the server; events are dropped.
  void sync() {
    free(xcb_get_geometry_reply(connection_, xcb_get_geometry(connection_, window_), nullptr));
    while (xcb_generic_event_t* e = xcb_poll_for_event(connection_)) free(e);
  }

 private:
  xcb_connection_t* connection_ = nullptr;
  xcb_window_t window_ = 0;
};

class Surfaces : public DeviceTest {};

TEST_F(Surfaces, ChecksBeforeTheWindowSystem) {
  if (!device().adapter().surface_support) {
    // Without the extensions a surface is refused with the capability named.
    try {
      device().create_surface(XcbWindow{reinterpret_cast<void*>(1), 1});
      FAIL() << "created a surface without surface support";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "surface_support");
    }
    return;
  }
  EXPECT_THROW(device().create_surface(XcbWindow{nullptr, 5}), UsageError);
  int dummy = 0;
  EXPECT_THROW(device().create_surface(XcbWindow{&dummy, 0}), UsageError);
  Surface empty;
  EXPECT_THROW(empty.acquire(), UsageError);
  EXPECT_FALSE(empty.configured());
}

TEST_F(Surfaces, PresentsFramesWhileTheWindowIsResized) {
  if (!device().adapter().surface_support) GTEST_SKIP() << "the device has no surface support (loader or driver)";
  XServer server;
  if (server.display().empty()) GTEST_SKIP() << server.why();
  Window window(server.display(), 160, 120);
  ASSERT_TRUE(window.ok()) << "cannot open a window on " << server.display();
  {
    Surface surface = device().create_surface(window.handle());
    EXPECT_THROW(surface.acquire(), UsageError);  // not configured
    SurfaceCapabilities caps = surface.capabilities();
    ASSERT_FALSE(caps.formats.empty());
    ASSERT_FALSE(caps.present_modes.empty());
    EXPECT_EQ(caps.present_modes.front(), PresentMode::fifo);
    EXPECT_EQ(caps.current_width, 160u);
    EXPECT_EQ(caps.current_height, 120u);
    // bgra8_unorm where offered, so the bytes written are the bytes read.
    TextureFormat format = caps.formats.front();
    for (TextureFormat f : caps.formats)
      if (f == TextureFormat::bgra8_unorm) format = f;
    ASSERT_TRUE(has(caps.usages, TextureUsage::copy_dst | TextureUsage::copy_src));
    const TextureUsage usage = TextureUsage::render_target | TextureUsage::copy_dst | TextureUsage::copy_src;
    // The present mode with vsync off where offered: the test need not wait for vertical blanks.
    PresentMode mode = PresentMode::fifo;
    for (PresentMode m : caps.present_modes)
      if (m == PresentMode::immediate) mode = m;

    EXPECT_THROW(surface.configure({.width = 0, .height = 120, .format = format}), KernelShapeError);
    if (caps.max_width < 100000) {
      EXPECT_THROW(surface.configure({.width = caps.max_width + 1, .height = 120, .format = format}), KernelShapeError);
    }
    surface.configure({.width = 160, .height = 120, .format = format, .present_mode = mode, .usage = usage});
    EXPECT_EQ(surface.swapchains_created(), 1u);

    const uint32_t sizes[3][2] = {{200, 150}, {96, 64}, {240, 180}};
    int presented = 0, resizes = 0, recreated_by_acquire = 0, reconfigured = 0, checked = 0, suboptimal = 0;
    // A colour per frame, copied into the acquired image from a buffer the size of the largest one.
    auto colours = device().create_buffer<uint32_t>(240 * 180);
    auto readback = device().create_buffer<uint32_t>(240 * 180 + 4);
    uint32_t width = 160, height = 120;
    for (int frame = 0; presented < 100 && frame < 400; ++frame) {
      if (presented > 0 && presented % 25 == 0 && resizes < 3 && presented / 25 == resizes + 1) {
        width = sizes[resizes][0];
        height = sizes[resizes][1];
        window.resize(width, height);
        ++resizes;
      }
      SurfaceTexture t = surface.acquire(5'000'000'000ull);
      if (t.status == SurfaceStatus::out_of_date) ++recreated_by_acquire;
      ASSERT_NE(t.status, SurfaceStatus::timeout) << "frame " << frame;
      if (!t.acquired) continue;
      EXPECT_EQ(t.format, format);
      ASSERT_TRUE(t.texture);
      EXPECT_EQ(t.texture.descriptor().width, t.width);
      EXPECT_EQ(t.texture.descriptor().height, t.height);
      const uint32_t colour = 0xFF000000u | (uint32_t(presented) * 0x020508u);  // b, g, r, a bytes
      colours.write(std::vector<uint32_t>(size_t(t.width) * t.height, colour));
      auto encoder = device().begin_commands();
      encoder.copy_buffer_to_texture(colours, {}, t.texture, {});
      const bool check_frame = presented % 10 == 3;  // read some frames back through a copy
      if (check_frame) {
        readback.write(std::vector<uint32_t>(240 * 180 + 4, 0x5EA5EA5Eu));
        encoder.copy_texture_to_buffer(t.texture, {}, readback, {});
      }
      device().submit(encoder);
      if (check_frame) {
        const std::vector<uint32_t> back = readback.read();
        const size_t n = size_t(t.width) * t.height;
        size_t wrong = 0;
        for (size_t i = 0; i < n; ++i) wrong += back[i] != colour;
        EXPECT_EQ(wrong, 0u) << "frame " << presented << ": " << t.width << " x " << t.height;
        EXPECT_EQ(back[n], 0x5EA5EA5Eu) << "past the image";
        ++checked;
      }
      EXPECT_THROW(surface.acquire(), UsageError);  // the acquired image was not presented
      EXPECT_THROW(surface.configure({.width = width, .height = height, .format = format}), UsageError);
      const SurfaceStatus s = surface.present();
      suboptimal += (s == SurfaceStatus::suboptimal) + (t.status == SurfaceStatus::suboptimal);
      ++presented;
      EXPECT_THROW(surface.present(), UsageError);
      // Where the window system has not said the swapchain is stale, configure() for the new size.
      const bool stale = s == SurfaceStatus::suboptimal || t.status == SurfaceStatus::suboptimal;
      if (s != SurfaceStatus::out_of_date && (stale || t.width != width || t.height != height)) {
        caps = surface.capabilities();
        if (caps.current_width == width && caps.current_height == height) {
          surface.configure({.width = width, .height = height, .format = format, .present_mode = mode, .usage = usage});
          ++reconfigured;
        }
      }
    }
    EXPECT_EQ(presented, 100);
    EXPECT_EQ(checked, 10);
    EXPECT_EQ(resizes, 3);
    EXPECT_EQ(surface.configuration().width, 240u);
    EXPECT_EQ(surface.configuration().height, 180u);
    EXPECT_GE(surface.swapchains_created(), 4u) << "acquire recreated " << recreated_by_acquire
                                                << ", configure() " << reconfigured;
    std::cout << "[ surface  ] 100 frames, " << surface.swapchains_created() << " swapchains ("
              << recreated_by_acquire << " recreated by acquire, " << reconfigured << " by configure; " << suboptimal
              << " suboptimal), format "
              << format_name(format) << ", mode " << present_mode_name(mode) << "\n";
    device().wait_idle();
  }
}

// A window resized without configure(): where the driver reports the swapchain out of date
// (lavapipe says only suboptimal, so the test stands in for it once), acquire() recreates the
// swapchain at the window's size by itself, says so, and acquires from the new one.
TEST_F(Surfaces, AcquireRecreatesAnOutOfDateSwapchain) {
  if (!device().adapter().surface_support) GTEST_SKIP() << "the device has no surface support (loader or driver)";
  XServer server;
  if (server.display().empty()) GTEST_SKIP() << server.why();
  Window window(server.display(), 128, 96);
  ASSERT_TRUE(window.ok()) << "cannot open a window on " << server.display();
  {
    Surface surface = device().create_surface(window.handle());
    const TextureFormat format = surface.capabilities().formats.front();
    surface.configure({.width = 128, .height = 96, .format = format});
    for (int i = 0; i < 3; ++i) {
      SurfaceTexture t = surface.acquire(5'000'000'000ull);
      ASSERT_TRUE(t.acquired);
      EXPECT_EQ(t.status, SurfaceStatus::success);
      surface.present();
    }
    window.resize(64, 80);
    SurfaceTexture t = surface.acquire(5'000'000'000ull);
    EXPECT_NE(t.status, SurfaceStatus::success) << "the window changed size";
    if (t.status != SurfaceStatus::out_of_date) {
      ASSERT_TRUE(t.acquired);
      EXPECT_EQ(t.width, 128u);  // the old swapchain's image, still usable
      surface.present();
      vulkan::inject_failure("vkAcquireNextImageKHR", VK_ERROR_OUT_OF_DATE_KHR);
      t = surface.acquire(5'000'000'000ull);
    }
    EXPECT_EQ(t.status, SurfaceStatus::out_of_date);
    ASSERT_TRUE(t.acquired);
    EXPECT_EQ(t.width, 64u);
    EXPECT_EQ(t.height, 80u);
    ASSERT_TRUE(t.texture);
    EXPECT_EQ(t.texture.descriptor().width, 64u);
    EXPECT_EQ(t.texture.descriptor().height, 80u);
    EXPECT_EQ(surface.configuration().width, 64u);
    EXPECT_EQ(surface.configuration().height, 80u);
    EXPECT_EQ(surface.configuration().format, format);
    EXPECT_EQ(surface.swapchains_created(), 2u);
    EXPECT_EQ(surface.present(), SurfaceStatus::success);
    t = surface.acquire(5'000'000'000ull);
    EXPECT_EQ(t.status, SurfaceStatus::success);
    surface.present();
    device().wait_idle();
  }
  vulkan::clear_injected_failures();
}

}  // namespace
}  // namespace onegpu::testing
