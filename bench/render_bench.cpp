// render-bench: rendering figures, one JSON row per measurement on stdout.
//
//   render-bench [--quick] [--runs N] [--frames N] [--width W] [--height H] [--draws N]
//
// Rows:
//   record_draws: CPU time to record --draws (10,000) draws into one render pass, each with its own
//     push constants (a model-view-projection matrix), one shared pipeline, bind group and mesh;
//     from begin_render_pass to the pass's end (when the encoder records the Vulkan commands), the
//     median of --runs runs, also per draw; the submission is timed apart (submit_ms).
//   scene_frame: the render-scene example's frame (a lit, textured, depth-tested torus over a floor,
//     4x MSAA, resolved) offscreen at --width x --height (1920 x 1080): the render pass's GPU time
//     from timestamps (median over --frames passes), and the wall time per frame when --frames
//     frames are recorded and submitted one after another (one encoder each) and waited for at the
//     end, with frames per second from both.
// --quick: 3 runs, 4 frames (a smoke run that finishes in seconds on lavapipe). The validation layer
// is off unless ONEGPU_BENCH_VALIDATION=1; ONEGPU_REPORT=FILE appends the rows to FILE as well.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "onegpu/onegpu.h"
#include "scene.h"

namespace {

using namespace onegpu;

struct Options {
  bool quick = false;
  int runs = 9;
  int frames = 30;
  uint32_t width = 1920, height = 1080;
  uint32_t draws = 10000;
};

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

class Rows {
 public:
  explicit Rows(const Device& device) : device_(device) {
    if (const char* path = std::getenv("ONEGPU_REPORT"); path != nullptr && *path != '\0') {
      report_.open(path, std::ios::app);
      if (!report_) throw std::runtime_error(std::string("ONEGPU_REPORT: cannot append to ") + path);
    }
  }
  void emit(const std::string& fields) {
    const std::string row = "{" + fields + ", \"device\": \"" + device_.adapter().name + "\", \"driver\": \"" +
                            device_.adapter().driver_info + "\"}";
    std::cout << row << std::endl;
    if (report_) report_ << row << "\n";
  }

 private:
  const Device& device_;
  std::ofstream report_;
};

std::string num(double v) {
  std::ostringstream o;
  o.precision(6);
  o << v;
  return o.str();
}

// (a) Recording many draws: CPU cost per draw of the render-pass API (checks, state, recording).
void record_draws(Device& device, const Options& o, Rows& rows) {
  scene::Scene s(device, TextureFormat::rgba8_unorm, 4);
  Texture target = device.create_texture({.format = TextureFormat::rgba8_unorm, .width = 64, .height = 64,
                                          .usage = TextureUsage::render_target, .label = "draws target"});
  const scene::Mesh quad = scene::floor_quad(0.05f, 0.0f);
  auto vertices = device.create_buffer(quad.vertices);
  auto indices = device.create_buffer(quad.indices);
  // The push constants of every draw, computed before timing: distinct matrices on a 100 x 100 grid.
  std::vector<scene::Scene::Draw> draws(o.draws);
  const float tint[3] = {1, 1, 1};
  for (uint32_t i = 0; i < o.draws; ++i)
    draws[i] = scene::Scene::draw_for(scene::translation({float(i % 100) * 0.1f - 5, 0, -float(i / 100) * 0.1f}),
                                      1.0f, tint);
  // One frame of the scene first, so its multisampled targets exist (the draws reuse them).
  {
    CommandEncoder enc = device.begin_commands();
    s.record(enc, target, 0);
    device.submit(enc);
    device.wait_idle();
  }
  std::vector<double> cpu, wall, submit;
  for (int run = 0; run < o.runs + 1; ++run) {  // the first run warms up and is not counted
    CommandEncoder enc = device.begin_commands();
    const double w0 = now_ms(), c0 = thread_cpu_ms();
    s.record_pass(enc, target, [&](RenderPass& pass) {
      pass.set_vertex_buffer(0, vertices);
      pass.set_index_buffer(indices, IndexFormat::uint32);
      for (uint32_t i = 0; i < o.draws; ++i) {
        pass.set_push_constants(draws[i]);
        pass.draw_indexed(6);
      }
    });
    const double c1 = thread_cpu_ms(), w1 = now_ms();
    if (enc.draw_count() != o.draws) throw std::logic_error("record_draws: the encoder counted another number of draws");
    device.submit(enc);
    const double w2 = now_ms();
    device.wait_idle();
    if (run == 0) continue;
    cpu.push_back(c1 - c0);
    wall.push_back(w1 - w0);
    submit.push_back(w2 - w1);
  }
  const double cpu_ms = median(cpu), wall_ms = median(wall);
  rows.emit("\"op\": \"record_draws\", \"draws\": " + std::to_string(o.draws) + ", \"runs\": " + std::to_string(o.runs) +
            ", \"cpu_ms\": " + num(cpu_ms) + ", \"wall_ms\": " + num(wall_ms) + ", \"cpu_ms_min\": " +
            num(*std::min_element(cpu.begin(), cpu.end())) + ", \"cpu_ms_max\": " +
            num(*std::max_element(cpu.begin(), cpu.end())) + ", \"cpu_us_per_draw\": " +
            num(cpu_ms * 1e3 / o.draws) + ", \"wall_us_per_draw\": " + num(wall_ms * 1e3 / o.draws) +
            ", \"submit_ms\": " + num(median(submit)));
}

// (b) The example's frame at a large size.
void scene_frame(Device& device, const Options& o, Rows& rows) {
  scene::Scene s(device, TextureFormat::rgba8_unorm, 4);
  Texture target = device.create_texture({.format = TextureFormat::rgba8_unorm, .width = o.width, .height = o.height,
                                          .usage = TextureUsage::render_target, .label = "frame"});
  // Warm-up: a frame that creates the targets and touches every page.
  {
    CommandEncoder enc = device.begin_commands();
    s.record(enc, target, 0);
    device.submit(enc);
    device.wait_idle();
  }
  std::string gpu_fields = ", \"gpu_ms\": null";
  if (device.capabilities().timestamps) {
    TimestampSet set = device.create_timestamp_set(uint32_t(o.frames));
    CommandEncoder enc = device.begin_commands();
    enc.begin_pass_timing(set);
    for (int f = 0; f < o.frames; ++f) s.record(enc, target, 0.05f * float(f));
    device.submit(enc);
    std::vector<double> ms;
    for (uint64_t ns : set.wait_pass_durations()) ms.push_back(double(ns) * 1e-6);
    const double gpu_ms = median(ms);
    gpu_fields = ", \"gpu_ms\": " + num(gpu_ms) + ", \"gpu_ms_min\": " + num(*std::min_element(ms.begin(), ms.end())) +
                 ", \"gpu_ms_max\": " + num(*std::max_element(ms.begin(), ms.end())) + ", \"gpu_fps\": " +
                 num(1e3 / gpu_ms);
  }
  const double w0 = now_ms();
  for (int f = 0; f < o.frames; ++f) {
    CommandEncoder enc = device.begin_commands();
    s.record(enc, target, 0.05f * float(f));
    device.submit(enc);
  }
  device.wait_idle();
  const double per_frame = (now_ms() - w0) / o.frames;
  rows.emit("\"op\": \"scene_frame\", \"width\": " + std::to_string(o.width) + ", \"height\": " +
            std::to_string(o.height) + ", \"samples\": " + std::to_string(s.sample_count()) + ", \"triangles\": " +
            std::to_string(s.triangles_per_frame()) + ", \"frames\": " + std::to_string(o.frames) + gpu_fields +
            ", \"wall_ms_per_frame\": " + num(per_frame) + ", \"wall_fps\": " + num(1e3 / per_frame));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    bool runs_set = false, frames_set = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> long {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        const long v = std::strtol(argv[++i], nullptr, 10);
        if (v <= 0 || v > 100000000) throw std::invalid_argument(a + " takes a positive number");
        return v;
      };
      if (a == "--quick") o.quick = true;
      else if (a == "--runs") o.runs = int(next()), runs_set = true;
      else if (a == "--frames") o.frames = int(next()), frames_set = true;
      else if (a == "--width") o.width = uint32_t(next());
      else if (a == "--height") o.height = uint32_t(next());
      else if (a == "--draws") o.draws = uint32_t(next());
      else throw std::invalid_argument("unknown argument '" + a + "'");
    }
    if (o.quick) {
      if (!runs_set) o.runs = 3;
      if (!frames_set) o.frames = 4;
    }
    const char* v = std::getenv("ONEGPU_BENCH_VALIDATION");
    Device device = Device::create({.validation = v != nullptr && std::string(v) == "1"});
    Rows rows(device);
    record_draws(device, o, rows);
    scene_frame(device, o, rows);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "render-bench: " << e.what()
              << "\nusage: render-bench [--quick] [--runs N] [--frames N] [--width W] [--height H] [--draws N]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "render-bench: " << e.what() << "\n";
    return 1;
  }
}
