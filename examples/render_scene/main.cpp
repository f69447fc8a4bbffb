// render-scene: a lit, textured, depth-tested torus over a checkered floor, drawn with 4x MSAA.
//
//   render-scene [--width W] [--height H] [--out FILE.png] [--angle RADIANS] [--samples 1|4]
//                [--window] [--frames N]
//
// Offscreen (the default): renders one frame at W x H (1280 x 720), resolves it, reads it back and
// writes it as an 8-bit RGBA PNG (--out, default scene.png). With --window, where a display exists
// (DISPLAY set and the device can present), it opens an X11 window of W x H through xcb and
// presents frames with the torus turning until the window is closed or N frames have been shown
// (--frames; 0, the default, runs until closed). ONEGPU_ADAPTER picks the adapter
// (docs/environment.md).
#include <png.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if ONEGPU_EXAMPLE_HAS_XCB
#include <xcb/xcb.h>
#endif

#include "onegpu/onegpu.h"
#include "scene.h"

namespace {

struct Options {
  uint32_t width = 1280, height = 720;
  std::string out = "scene.png";
  float angle = 0.6f;
  uint32_t samples = 4;
  bool window = false;
  uint64_t frames = 0;
};

void usage() {
  std::fprintf(stderr,
               "usage: render-scene [--width W] [--height H] [--out FILE.png] [--angle RADIANS] [--samples 1|4]\n"
               "                    [--window] [--frames N]\n");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    auto number = [&](uint64_t lo, uint64_t hi) -> uint64_t {
      const std::string v = value();
      char* end = nullptr;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < lo || n > hi)
        throw std::invalid_argument(a + " takes a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], not '" + v + "'");
      return n;
    };
    if (a == "--width") o.width = uint32_t(number(1, 4096));
    else if (a == "--height") o.height = uint32_t(number(1, 4096));
    else if (a == "--out") o.out = value();
    else if (a == "--angle") o.angle = std::stof(value());
    else if (a == "--samples") {
      o.samples = uint32_t(number(1, 4));
      if (o.samples != 1 && o.samples != 4) throw std::invalid_argument("--samples takes 1 or 4");
    } else if (a == "--window") o.window = true;
    else if (a == "--frames") o.frames = number(0, UINT64_MAX);
    else if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else throw std::invalid_argument("unknown argument '" + a + "'");
  }
  return o;
}

// Writes rows of width x 4 bytes (r, g, b, a; top row first) as an 8-bit RGBA PNG.
// Creates the file's folder when missing.
void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    throw std::runtime_error("libpng failed writing " + path);
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(rgba.data() + size_t(y) * width * 4));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0) throw std::runtime_error("cannot finish " + path);
}

int render_offscreen(onegpu::Device& device, const Options& o) {
  scene::Scene s(device, onegpu::TextureFormat::rgba8_unorm, o.samples);
  onegpu::Texture image = device.create_texture({.format = onegpu::TextureFormat::rgba8_unorm, .width = o.width,
                                                 .height = o.height,
                                                 .usage = onegpu::TextureUsage::render_target | onegpu::TextureUsage::copy_src,
                                                 .label = "scene image"});
  const auto start = std::chrono::steady_clock::now();
  onegpu::CommandEncoder encoder = device.begin_commands();
  s.record(encoder, image, o.angle);
  device.submit(encoder);
  std::vector<uint8_t> rgba(size_t(o.width) * o.height * 4);
  image.read({}, std::as_writable_bytes(std::span<uint8_t>(rgba)));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  write_png(o.out, o.width, o.height, rgba);
  std::printf("%s: %u x %u, %u samples, %llu triangles, anisotropy %u, %.1f ms (render and readback) on %s\n",
              o.out.c_str(), o.width, o.height, o.samples, static_cast<unsigned long long>(s.triangles_per_frame()),
              unsigned(s.anisotropy()), ms, device.adapter().name.c_str());
  return 0;
}

#if ONEGPU_EXAMPLE_HAS_XCB
// A top-level X11 window that reports its size changes and being closed.
class Window {
 public:
  Window(uint32_t width, uint32_t height) {
    int screen_number = 0;
    connection_ = xcb_connect(nullptr, &screen_number);
    if (xcb_connection_has_error(connection_)) throw std::runtime_error("cannot connect to the X display");
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(connection_));
    for (int i = 0; i < screen_number; ++i) xcb_screen_next(&it);
    xcb_screen_t* screen = it.data;
    window_ = xcb_generate_id(connection_);
    const uint32_t values[2] = {screen->black_pixel, XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_KEY_PRESS};
    xcb_create_window(connection_, XCB_COPY_FROM_PARENT, window_, screen->root, 0, 0, uint16_t(width),
                      uint16_t(height), 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                      XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
    const char title[] = "onegpu render-scene";
    xcb_change_property(connection_, XCB_PROP_MODE_REPLACE, window_, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        sizeof(title) - 1, title);
    // Ask the window manager to send WM_DELETE_WINDOW instead of killing the connection.
    protocols_ = atom("WM_PROTOCOLS");
    delete_ = atom("WM_DELETE_WINDOW");
    xcb_change_property(connection_, XCB_PROP_MODE_REPLACE, window_, protocols_, XCB_ATOM_ATOM, 32, 1, &delete_);
    xcb_map_window(connection_, window_);
    xcb_flush(connection_);
  }
  ~Window() {
    xcb_destroy_window(connection_, window_);
    xcb_disconnect(connection_);
  }
  onegpu::XcbWindow handle() const { return {connection_, window_}; }
  // Handles pending events; false once the window was closed (or Escape pressed).
  bool poll() {
    while (xcb_generic_event_t* e = xcb_poll_for_event(connection_)) {
      const uint8_t type = e->response_type & 0x7f;
      if (type == XCB_CLIENT_MESSAGE &&
          reinterpret_cast<xcb_client_message_event_t*>(e)->data.data32[0] == delete_)
        open_ = false;
      if (type == XCB_KEY_PRESS && reinterpret_cast<xcb_key_press_event_t*>(e)->detail == 9) open_ = false;  // Escape
      std::free(e);
    }
    if (xcb_connection_has_error(connection_)) open_ = false;
    return open_;
  }

 private:
  xcb_atom_t atom(const char* name) {
    xcb_intern_atom_reply_t* r =
        xcb_intern_atom_reply(connection_, xcb_intern_atom(connection_, 0, uint16_t(std::strlen(name)), name), nullptr);
    const xcb_atom_t a = r != nullptr ? r->atom : 0;
    std::free(r);
    return a;
  }
  xcb_connection_t* connection_ = nullptr;
  xcb_window_t window_ = 0;
  xcb_atom_t protocols_ = 0, delete_ = 0;
  bool open_ = true;
};

int render_window(onegpu::Device& device, const Options& o) {
  Window window(o.width, o.height);
  onegpu::Surface surface = device.create_surface(window.handle());
  const onegpu::SurfaceCapabilities caps = surface.capabilities();
  if (caps.formats.empty()) throw std::runtime_error("the surface offers no format");
  onegpu::TextureFormat format = caps.formats.front();
  for (onegpu::TextureFormat f : caps.formats)
    if (f == onegpu::TextureFormat::bgra8_unorm) format = f;
  onegpu::SurfaceConfiguration config{.width = caps.current_width ? caps.current_width : o.width,
                                      .height = caps.current_height ? caps.current_height : o.height,
                                      .format = format, .present_mode = onegpu::PresentMode::fifo,
                                      .usage = onegpu::TextureUsage::render_target};
  surface.configure(config);
  scene::Scene s(device, format, o.samples);
  const auto start = std::chrono::steady_clock::now();
  uint64_t shown = 0;
  while (window.poll() && (o.frames == 0 || shown < o.frames)) {
    onegpu::SurfaceTexture frame = surface.acquire();
    if (!frame.acquired) continue;  // out of date: acquire() recreated the swapchain at the new size
    const float seconds = std::chrono::duration<float>(std::chrono::steady_clock::now() - start).count();
    onegpu::CommandEncoder encoder = device.begin_commands();
    s.record(encoder, frame.texture, o.angle + 0.8f * seconds);
    device.submit(encoder);
    const onegpu::SurfaceStatus status = surface.present();
    ++shown;
    if (status == onegpu::SurfaceStatus::suboptimal || frame.status == onegpu::SurfaceStatus::suboptimal) {
      const onegpu::SurfaceCapabilities now = surface.capabilities();
      if (now.current_width != 0 && now.current_height != 0) {
        config.width = now.current_width;
        config.height = now.current_height;
        surface.configure(config);
      }
    }
  }
  device.wait_idle();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu frames in %.2f s (%.1f frames per second), %s, %u samples, on %s\n",
              static_cast<unsigned long long>(shown), seconds, double(shown) / seconds,
              std::string(onegpu::format_name(format)).c_str(), o.samples, device.adapter().name.c_str());
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    onegpu::Device device = onegpu::Device::create({});
    if (o.window) {
#if ONEGPU_EXAMPLE_HAS_XCB
      const char* display = std::getenv("DISPLAY");
      if (display == nullptr || *display == '\0') {
        std::fprintf(stderr, "render-scene: --window needs a display (DISPLAY is unset)\n");
        return 2;
      }
      if (!device.adapter().surface_support) {
        std::fprintf(stderr, "render-scene: %s cannot present to a window\n", device.adapter().name.c_str());
        return 2;
      }
      return render_window(device, o);
#else
      std::fprintf(stderr, "render-scene: built without xcb (install libxcb1-dev): no --window\n");
      return 2;
#endif
    }
    return render_offscreen(device, o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "render-scene: %s\n", e.what());
    usage();
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "render-scene: %s\n", e.what());
    return 1;
  }
}
