// Render passes without attachments: a fragment shader counts each pixel's fragments in a buffer,
// compared exactly with a host rasterizer (edge functions at pixel centres; pixels within one pixel
// of an edge are not compared, the rasterization rules decide them).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "shaders/fill_push.h"
#include "support/device_fixture.h"
#include "support/shape_error.h"
#include "test_coverage_frag.h"
#include "test_coverage_vert.h"
#include "test_fill.h"

namespace onegpu {
namespace {

using testing::DeviceTest;
using testing::shape_error_argument;

constexpr uint32_t kWidth = 40, kHeight = 28;
constexpr size_t kPixels = size_t(kWidth) * kHeight;
constexpr size_t kSentinels = 16;  // counters past the image, never touched

struct Vec2 {
  float x, y;
};

class RenderPasses : public DeviceTest {
 protected:
  RenderPipeline pipeline() {
    return device().create_render_pipeline(
        {.vertex = &shaders::test_coverage_vert::source(),
         .buffers = {{.stride = 8, .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0}}},
                     {.stride = 8,
                      .step_mode = VertexStepMode::instance,
                      .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 1}}}},
         .fragment = &shaders::test_coverage_frag::source(),
         .label = "coverage"});
  }
  // Counters with random starting values (the test compares increments).
  std::vector<uint32_t> random_counters(std::mt19937& rng) {
    std::vector<uint32_t> v(kPixels + kSentinels);
    for (uint32_t& x : v) x = rng() % 1000000;
    return v;
  }
};

// +1: the pixel's centre lies more than one pixel inside the convex polygon; 0: more than one
// pixel outside; -1: near an edge.
int classify(const std::vector<Vec2>& clip, Vec2 offset, uint32_t px, uint32_t py) {
  std::vector<Vec2> v;
  for (Vec2 c : clip) v.push_back({(c.x + offset.x + 1) * 0.5f * kWidth, (c.y + offset.y + 1) * 0.5f * kHeight});
  double area = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const Vec2 a = v[i], b = v[(i + 1) % v.size()];
    area += double(a.x) * b.y - double(b.x) * a.y;
  }
  const double sign = area > 0 ? 1 : -1;
  const double cx = px + 0.5, cy = py + 0.5;
  bool inside = true;
  for (size_t i = 0; i < v.size(); ++i) {
    const Vec2 a = v[i], b = v[(i + 1) % v.size()];
    const double len = std::hypot(double(b.x) - a.x, double(b.y) - a.y);
    const double d = sign * ((double(b.x) - a.x) * (cy - a.y) - (double(b.y) - a.y) * (cx - a.x)) / len;
    if (d < -1.0) return 0;
    if (d < 1.0) inside = false;
  }
  return inside ? 1 : -1;
}

TEST_F(RenderPasses, TriangleCoverageMatchesTheHostRasterizer) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-0.95f, 0.95f);
  auto pipe = pipeline();
  for (int round = 0; round < 3; ++round) {
    // A random triangle of at least 150 pixels (thin ones would leave nothing clearly inside).
    std::vector<Vec2> tri;
    for (double pixels = 0; pixels < 150;) {
      tri = {{coord(rng), coord(rng)}, {coord(rng), coord(rng)}, {coord(rng), coord(rng)}};
      const double cross = (double(tri[1].x) - tri[0].x) * (double(tri[2].y) - tri[0].y) -
                           (double(tri[2].x) - tri[0].x) * (double(tri[1].y) - tri[0].y);
      pixels = std::abs(cross) / 2 * (kWidth / 2.0) * (kHeight / 2.0);
    }
    const std::vector<uint32_t> before = random_counters(rng);
    auto hits = device().create_buffer(before);
    auto vertices = device().create_buffer(std::vector<Vec2>(tri));
    auto instances = device().create_buffer(std::vector<Vec2>{{0, 0}});
    auto group = device().create_bind_group(pipe, {hits});
    CommandEncoder enc = device().begin_commands();
    RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
    pass.set_pipeline(pipe);
    pass.set_bind_group(group);
    pass.set_push_constants(kWidth);
    pass.set_vertex_buffer(0, vertices);
    pass.set_vertex_buffer(1, instances);
    pass.draw(3);
    pass.end();
    EXPECT_TRUE(pass.ended());
    EXPECT_EQ(enc.render_pass_count(), 1u);
    EXPECT_EQ(enc.draw_count(), 1u);
    device().submit(enc);
    const std::vector<uint32_t> after = hits.read();
    int inside = 0, compared = 0;
    for (uint32_t y = 0; y < kHeight; ++y)
      for (uint32_t x = 0; x < kWidth; ++x) {
        const size_t i = size_t(y) * kWidth + x;
        const int want = classify(tri, {0, 0}, x, y);
        const uint32_t got = after[i] - before[i];
        if (want < 0) {
          EXPECT_LE(got, 1u) << x << "," << y;
          continue;
        }
        ++compared;
        inside += want;
        ASSERT_EQ(got, uint32_t(want)) << "pixel " << x << "," << y << " round " << round;
      }
    for (size_t i = kPixels; i < after.size(); ++i) ASSERT_EQ(after[i], before[i]) << "sentinel " << i;
    EXPECT_GT(compared, int(kPixels / 2));
    EXPECT_GT(inside, 10) << "round " << round;  // the triangle covers whole pixels
  }
}

// A quad of two indexed triangles drawn three times (per-instance offsets, overlapping): each
// pixel counts the quads that cover it, the shared diagonal exactly once per quad.
TEST_F(RenderPasses, IndexedInstancedQuads) {
  std::mt19937 rng(11);
  auto pipe = pipeline();
  const std::vector<Vec2> quad = {{-0.6f, -0.5f}, {0.3f, -0.55f}, {0.35f, 0.4f}, {-0.5f, 0.45f}};
  const std::vector<Vec2> offsets = {{0, 0}, {0.31f, 0.17f}, {-0.23f, 0.29f}};
  const std::vector<uint32_t> before = random_counters(rng);
  auto hits = device().create_buffer(before);
  auto vertices = device().create_buffer(quad);
  auto instances = device().create_buffer(offsets);
  // uint16 indices at an offset of 2 indices: [junk, junk, 0 1 2, 0 2 3].
  auto indices = device().create_buffer(std::vector<uint16_t>{9, 9, 0, 1, 2, 0, 2, 3});
  auto group = device().create_bind_group(pipe, {hits});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
  pass.set_bind_group(group);  // before the pipeline: it holds for the pipeline's draws
  pass.set_pipeline(pipe);
  pass.set_push_constants(kWidth);
  pass.set_vertex_buffer(0, vertices);
  pass.set_vertex_buffer(1, instances);
  pass.set_index_buffer(indices, IndexFormat::uint16, 4);
  pass.draw_indexed(6, 3);
  device().submit(enc);
  const std::vector<uint32_t> after = hits.read();
  int compared = 0;
  for (uint32_t y = 0; y < kHeight; ++y)
    for (uint32_t x = 0; x < kWidth; ++x) {
      uint32_t want = 0;
      bool sure = true;
      for (Vec2 o : offsets) {
        const int c = classify(quad, o, x, y);
        if (c < 0) sure = false;
        else want += uint32_t(c);
      }
      if (!sure) continue;
      ++compared;
      const size_t i = size_t(y) * kWidth + x;
      ASSERT_EQ(after[i] - before[i], want) << "pixel " << x << "," << y;
    }
  for (size_t i = kPixels; i < after.size(); ++i) ASSERT_EQ(after[i], before[i]);
  EXPECT_GT(compared, int(kPixels / 3));
}

// Indirect arguments written by a compute pass of the same encoder: the draw sees them (the
// barrier covers indirect reads after compute writes); the counters the render pass writes are
// then copied, and the copy sees them.
TEST_F(RenderPasses, IndirectDrawsAfterComputeAndCopiesAfterRender) {
  std::mt19937 rng(3);
  auto pipe = pipeline();
  auto fill = device().create_compute_kernel(shaders::test_fill::source());
  // A triangle covering the whole area twice over (clip -1..3), so every pixel is hit once.
  const std::vector<Vec2> big = {{-1, -1}, {3, -1}, {-1, 3}};
  const std::vector<uint32_t> before = random_counters(rng);
  auto hits = device().create_buffer(before);
  auto copy = device().create_buffer<uint32_t>(kPixels + kSentinels);
  auto vertices = device().create_buffer(big);
  auto instances = device().create_buffer(std::vector<Vec2>{{0, 0}});
  auto indices = device().create_buffer(std::vector<uint32_t>{0, 1, 2});
  // draw: {vertex count, instances, first vertex, first instance}; indexed: {count, instances,
  // first index, base vertex, first instance}, at byte 32 (storage offsets are aligned to 16 here).
  // The counts start at 0: the compute pass sets them.
  auto args = device().create_buffer(std::vector<uint32_t>{0, 1, 0, 0, 77, 77, 77, 77, 0, 1, 0, 0, 0});
  auto args_group = device().create_bind_group(fill, {BufferBinding(args, 0, 4)});
  auto indexed_group = device().create_bind_group(fill, {BufferBinding(args, 32, 4)});
  auto group = device().create_bind_group(pipe, {hits});
  CommandEncoder enc = device().begin_commands();
  {
    ComputePass c = enc.begin_compute_pass();
    c.dispatch(fill, args_group, FillPush{1, 3, 0}, {1, 1, 1});
    c.dispatch(fill, indexed_group, FillPush{1, 3, 0}, {1, 1, 1});
  }
  RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_push_constants(kWidth);
  pass.set_vertex_buffer(0, vertices);
  pass.set_vertex_buffer(1, instances);
  pass.set_index_buffer(indices, IndexFormat::uint32);
  pass.draw_indirect(args, 0);
  pass.draw_indexed_indirect(args, 32);
  enc.copy_buffer(hits, 0, copy, 0, (kPixels + kSentinels) * 4);  // ends the pass
  EXPECT_TRUE(pass.ended());
  EXPECT_EQ(enc.draw_count(), 2u);
  EXPECT_EQ(enc.compute_pass_count(), 1u);
  device().submit(enc);
  const std::vector<uint32_t> after = copy.read();
  for (size_t i = 0; i < kPixels; ++i) ASSERT_EQ(after[i] - before[i], 2u) << "pixel " << i;
  for (size_t i = kPixels; i < after.size(); ++i) ASSERT_EQ(after[i], before[i]);
}

TEST_F(RenderPasses, ViewportAndScissorLimitTheDraw) {
  std::mt19937 rng(5);
  auto pipe = pipeline();
  const std::vector<Vec2> big = {{-1, -1}, {3, -1}, {-1, 3}};
  const std::vector<uint32_t> before = random_counters(rng);
  auto hits = device().create_buffer(before);
  auto vertices = device().create_buffer(big);
  auto instances = device().create_buffer(std::vector<Vec2>{{0, 0}});
  auto group = device().create_bind_group(pipe, {hits});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_push_constants(kWidth);
  pass.set_vertex_buffer(0, vertices);
  pass.set_vertex_buffer(1, instances);
  pass.set_scissor({.x = 3, .y = 5, .width = 10, .height = 7});
  pass.draw(3);
  pass.set_scissor({.x = 0, .y = 0, .width = kWidth, .height = kHeight});
  pass.set_viewport({.x = 20, .y = 4, .width = 16, .height = 20});  // the big triangle fills it
  pass.draw(3);
  device().submit(enc);
  const std::vector<uint32_t> after = hits.read();
  for (uint32_t y = 0; y < kHeight; ++y)
    for (uint32_t x = 0; x < kWidth; ++x) {
      const uint32_t want = uint32_t(x >= 3 && x < 13 && y >= 5 && y < 12) + uint32_t(x >= 20 && x < 36 && y >= 4 && y < 24);
      const size_t i = size_t(y) * kWidth + x;
      ASSERT_EQ(after[i] - before[i], want) << "pixel " << x << "," << y;
    }
}

TEST_F(RenderPasses, BadDrawsAreRefusedBeforeRecording) {
  auto pipe = pipeline();
  auto other = pipeline();
  auto hits = device().create_buffer<uint32_t>(kPixels);
  auto three = device().create_buffer(std::vector<Vec2>{{0, 0}, {1, 0}, {0, 1}});
  auto one = device().create_buffer(std::vector<Vec2>{{0, 0}});
  auto indices = device().create_buffer(std::vector<uint16_t>{0, 1, 2, 0});
  auto args = device().create_buffer<uint32_t>(8);
  auto group = device().create_bind_group(pipe, {hits});
  auto other_group = device().create_bind_group(other, {hits});
  CommandEncoder enc = device().begin_commands();
  EXPECT_EQ(shape_error_argument([&] { enc.begin_render_pass({.width = 0, .height = 4}); }), "width");
  EXPECT_EQ(shape_error_argument([&] { enc.begin_render_pass({.width = 4, .height = 5000}); }), "height");
  RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
  EXPECT_THROW(pass.draw(3), UsageError);  // no pipeline
  EXPECT_THROW(pass.set_push_constants(kWidth), UsageError);
  pass.set_pipeline(pipe);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3); }), "group");
  pass.set_bind_group(other_group);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3); }), "group");  // made for another pipeline
  pass.set_bind_group(group);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3); }), "push_constants");
  EXPECT_EQ(shape_error_argument([&] { pass.set_push_constants(uint64_t(1)); }), "push_constants");
  pass.set_push_constants(kWidth);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3); }), "vertex buffer 0");
  pass.set_vertex_buffer(0, three);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3); }), "vertex buffer 1");
  pass.set_vertex_buffer(1, one);
  EXPECT_EQ(shape_error_argument([&] { pass.draw(4); }), "vertex_count");
  EXPECT_EQ(shape_error_argument([&] { pass.draw(2, 1, 2); }), "vertex_count");
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3, 2); }), "instance_count");
  EXPECT_EQ(shape_error_argument([&] { pass.draw(3, 1, 0, 0xFFFFFFFFu); }), "instance_count");
  EXPECT_EQ(shape_error_argument([&] { pass.set_vertex_buffer(0, three, 2); }), "offset");
  EXPECT_EQ(shape_error_argument([&] { pass.set_vertex_buffer(0, three, 28); }), "offset");
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indexed(3); }), "index_buffer");
  EXPECT_EQ(shape_error_argument([&] { pass.set_index_buffer(indices, IndexFormat::uint32, 2); }), "offset");
  pass.set_index_buffer(indices, IndexFormat::uint16, 2);
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indexed(4); }), "index_count");
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indexed(1, 2); }), "instance_count");
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indirect(args, 2); }), "offset");
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indirect(args, 20); }), "offset");  // 16 bytes from 20 > 32
  EXPECT_EQ(shape_error_argument([&] { pass.draw_indexed_indirect(args, 16); }), "offset");
  EXPECT_EQ(shape_error_argument([&] { pass.set_viewport({.x = 1, .y = 0, .width = kWidth, .height = 4}); }),
            "viewport");
  EXPECT_EQ(shape_error_argument([&] { pass.set_viewport({.width = 4, .height = 4, .max_depth = 2}); }), "depth");
  EXPECT_EQ(shape_error_argument([&] { pass.set_scissor({.x = kWidth, .width = 1, .height = 1}); }), "rect");
  EXPECT_EQ(enc.draw_count(), 0u);  // nothing refused was counted
  pass.draw(3);                     // and the pass still records what is right
  pass.draw_indexed(3);
  EXPECT_EQ(enc.draw_count(), 2u);
  enc.begin_compute_pass();  // ends the render pass
  EXPECT_THROW(pass.draw(3), UsageError);
  device().submit(enc);
  EXPECT_THROW(pass.set_pipeline(pipe), UsageError);
}

TEST_F(RenderPasses, TimedLikeComputePasses) {
  if (!caps().timestamps) GTEST_SKIP() << "no timestamps";
  auto pipe = pipeline();
  std::mt19937 rng(1);
  auto hits = device().create_buffer(random_counters(rng));
  auto vertices = device().create_buffer(std::vector<Vec2>{{-1, -1}, {3, -1}, {-1, 3}});
  auto instances = device().create_buffer(std::vector<Vec2>{{0, 0}});
  auto group = device().create_bind_group(pipe, {hits});
  TimestampSet times = device().create_timestamp_set(2);
  CommandEncoder enc = device().begin_commands();
  enc.begin_pass_timing(times);
  enc.begin_render_pass({.width = 8, .height = 8});  // no draws
  RenderPass pass = enc.begin_render_pass({.width = kWidth, .height = kHeight});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_push_constants(kWidth);
  pass.set_vertex_buffer(0, vertices);
  pass.set_vertex_buffer(1, instances);
  pass.draw(3, 1);
  device().submit(enc);
  const std::vector<uint64_t> ns = times.wait_pass_durations();
  ASSERT_EQ(ns.size(), 2u);
  EXPECT_GT(ns[1], 0u);
}

}  // namespace
}  // namespace onegpu
