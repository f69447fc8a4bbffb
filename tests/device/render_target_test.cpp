// Render passes with colour and depth attachments: clears, a triangle against a host rasterizer
// (pixels within one pixel of an edge are not compared), the depth test, a 4-sample resolve.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "support/device_fixture.h"
#include "support/shape_error.h"
#include "test_render_basic_frag.h"
#include "test_render_basic_vert.h"
#include "test_render_fetch_frag.h"
#include "test_storage_fill.h"

namespace onegpu {
namespace {

using testing::DeviceTest;
using testing::shape_error_argument;

constexpr uint32_t kW = 24, kH = 20;

struct Vertex {
  float x, y;
  float r, g, b, a;
};
struct Push {
  float offset_x, offset_y, depth;
};

class RenderTargets : public DeviceTest {
 protected:
  Texture target(TextureFormat format, uint32_t samples = 1) {
    return device().create_texture({.format = format, .width = kW, .height = kH, .sample_count = samples,
                                    .usage = samples == 1 ? TextureUsage::render_target | TextureUsage::copy_src
                                                          : TextureUsage::render_target});
  }
  RenderPipeline pipeline(uint32_t samples = 1, bool depth = false) {
    RenderPipelineDescriptor d{
        .vertex = &shaders::test_render_basic_vert::source(),
        .buffers = {{.stride = sizeof(Vertex),
                     .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0},
                                    {.format = VertexFormat::float32x4, .offset = 8, .location = 1}}}},
        .fragment = &shaders::test_render_basic_frag::source(),
        .targets = {{.format = TextureFormat::rgba8_unorm}},
        .multisample = {.count = samples}};
    if (depth) d.depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float};
    return device().create_render_pipeline(d);
  }
  std::vector<uint8_t> read_rgba8(const Texture& t) {
    std::vector<uint8_t> px(size_t(kW) * kH * 4);
    t.read({}, std::as_writable_bytes(std::span<uint8_t>(px)));
    return px;
  }
};

// Inside (1), outside (0) or within a pixel of an edge (-1), for pixel centres.
int classify(const std::array<Vertex, 3>& v, uint32_t px, uint32_t py) {
  double x[3], y[3];
  for (int i = 0; i < 3; ++i) {
    x[i] = (v[i].x + 1) * 0.5 * kW;
    y[i] = (v[i].y + 1) * 0.5 * kH;
  }
  const double area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
  const double sign = area > 0 ? 1 : -1;
  bool inside = true;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    const double len = std::hypot(x[j] - x[i], y[j] - y[i]);
    const double d = sign * ((x[j] - x[i]) * (py + 0.5 - y[i]) - (y[j] - y[i]) * (px + 0.5 - x[i])) / len;
    if (d < -1) return 0;
    if (d < 1) inside = false;
  }
  return inside ? 1 : -1;
}

TEST_F(RenderTargets, ClearLoadAndStore) {
  Texture t = target(TextureFormat::rgba8_unorm);
  CommandEncoder enc = device().begin_commands();
  enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {51 / 255.0, 102 / 255.0, 153 / 255.0, 1}}}});
  // A second pass loads and stores without drawing: the clear survives.
  RenderPass load = enc.begin_render_pass({.color_attachments = {{.texture = &t, .load_op = LoadOp::load}}});
  load.end();
  EXPECT_EQ(enc.render_pass_count(), 2u);
  device().submit(enc);
  const std::vector<uint8_t> px = read_rgba8(t);
  for (size_t i = 0; i < px.size(); i += 4) {
    ASSERT_EQ(px[i], 51);
    ASSERT_EQ(px[i + 1], 102);
    ASSERT_EQ(px[i + 2], 153);
    ASSERT_EQ(px[i + 3], 255);
  }
}

TEST_F(RenderTargets, TriangleAgainstTheHostRasterizer) {
  Texture t = target(TextureFormat::rgba8_unorm);
  auto pipe = pipeline();
  const std::array<Vertex, 3> tri = {{{-0.8f, -0.7f, 0.6f, 0.2f, 1.0f, 1.0f},
                                      {0.9f, -0.2f, 0.6f, 0.2f, 1.0f, 1.0f},
                                      {-0.3f, 0.85f, 0.6f, 0.2f, 1.0f, 1.0f}}};
  auto vertices = device().create_buffer(std::vector<Vertex>(tri.begin(), tri.end()));
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0, 0, 0, 0}}}});
  pass.set_pipeline(pipe);
  pass.set_push_constants(Push{0, 0, 0.5f});
  pass.set_vertex_buffer(0, vertices);
  pass.draw(3);
  device().submit(enc);
  const std::vector<uint8_t> px = read_rgba8(t);
  const uint8_t colour[4] = {153, 51, 255, 255};  // 0.6, 0.2, 1, 1 in unorm8
  int inside = 0;
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      const int c = classify(tri, x, y);
      if (c < 0) continue;
      inside += c;
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(px[(size_t(y) * kW + x) * 4 + k], c ? colour[k] : 0) << x << "," << y << " channel " << k;
    }
  EXPECT_GT(inside, 50);
}

// An attachment is one mip level of one layer: a triangle drawn into mip 1 of layer 2 of a
// three-layer, two-level array lands there and nowhere else.
TEST_F(RenderTargets, DrawsIntoOneMipOfOneLayer) {
  constexpr uint32_t kLayers = 3;
  Texture t = device().create_texture({.dimension = TextureDimension::d2_array, .width = 2 * kW, .height = 2 * kH,
                                       .depth_or_layers = kLayers, .mip_levels = 2,
                                       .usage = TextureUsage::render_target | TextureUsage::copy_src |
                                                TextureUsage::copy_dst});
  for (uint32_t mip = 0; mip < 2; ++mip) {
    const std::vector<uint8_t> sentinel(size_t(2 * kW >> mip) * (2 * kH >> mip) * 4 * kLayers, 0xab);
    t.write({.mip = mip, .layers = kLayers}, std::as_bytes(std::span<const uint8_t>(sentinel)));
  }
  auto pipe = pipeline();
  const std::array<Vertex, 3> tri = {{{-0.8f, -0.7f, 0.6f, 0.2f, 1.0f, 1.0f},
                                      {0.9f, -0.2f, 0.6f, 0.2f, 1.0f, 1.0f},
                                      {-0.3f, 0.85f, 0.6f, 0.2f, 1.0f, 1.0f}}};
  auto vertices = device().create_buffer(std::vector<Vertex>(tri.begin(), tri.end()));
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .mip = 1, .layer = 2}}});
  pass.set_pipeline(pipe);
  pass.set_push_constants(Push{0, 0, 0.5f});
  pass.set_vertex_buffer(0, vertices);
  pass.draw(3);
  device().submit(enc);
  for (uint32_t mip = 0; mip < 2; ++mip)
    for (uint32_t layer = 0; layer < kLayers; ++layer) {
      SCOPED_TRACE(::testing::Message() << "mip " << mip << " layer " << layer);
      const uint32_t w = 2 * kW >> mip, h = 2 * kH >> mip;
      std::vector<uint8_t> px(size_t(w) * h * 4);
      t.read({.mip = mip, .layer = layer}, std::as_writable_bytes(std::span<uint8_t>(px)));
      if (mip != 1 || layer != 2) {
        for (size_t i = 0; i < px.size(); ++i) ASSERT_EQ(px[i], 0xab) << i;
        continue;
      }
      const uint8_t colour[4] = {153, 51, 255, 255};
      int inside = 0;
      for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
          const int c = classify(tri, x, y);
          if (c < 0) continue;
          inside += c;
          for (int k = 0; k < 4; ++k)
            ASSERT_EQ(px[(size_t(y) * kW + x) * 4 + k], c ? colour[k] : 0) << x << "," << y << " channel " << k;
        }
      EXPECT_GT(inside, 50);
    }
}

// Two full-area triangles at depths 0.3 (red) and 0.7 (green), in both orders: less keeps red.
TEST_F(RenderTargets, DepthTest) {
  Texture t = target(TextureFormat::rgba8_unorm);
  Texture depth = target(TextureFormat::depth32_float);
  auto pipe = pipeline(1, true);
  const std::vector<Vertex> v = {{-1, -1, 1, 0, 0, 1}, {3, -1, 1, 0, 0, 1}, {-1, 3, 1, 0, 0, 1},
                                 {-1, -1, 0, 1, 0, 1}, {3, -1, 0, 1, 0, 1}, {-1, 3, 0, 1, 0, 1}};
  auto vertices = device().create_buffer(v);
  auto indices = device().create_buffer(std::vector<uint32_t>{3, 4, 5, 0, 1, 2});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t}},
                                           .depth_attachment = RenderPassDepthAttachment{.texture = &depth}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, vertices);
  pass.set_index_buffer(indices, IndexFormat::uint32);
  pass.set_push_constants(Push{0, 0, 0.7f});
  pass.draw_indexed(3, 1, 0);  // green, far
  pass.set_push_constants(Push{0, 0, 0.3f});
  pass.draw_indexed(3, 1, 3);  // red, near
  pass.set_push_constants(Push{0, 0, 0.7f});
  pass.draw(3, 1, 3);          // green again, behind
  device().submit(enc);
  const std::vector<uint8_t> px = read_rgba8(t);
  for (size_t i = 0; i < px.size(); i += 4) {
    ASSERT_EQ(px[i], 255) << i / 4;
    ASSERT_EQ(px[i + 1], 0) << i / 4;
  }
  std::vector<float> z(size_t(kW) * kH);
  depth.read({}, std::as_writable_bytes(std::span<float>(z)));
  for (float d : z) ASSERT_EQ(d, 0.3f);
}

// 4 samples resolved: inside pixels the colour, outside the clear, edge pixels in between.
TEST_F(RenderTargets, MultisampleResolve) {
  Texture ms = target(TextureFormat::rgba8_unorm, 4);
  Texture resolved = target(TextureFormat::rgba8_unorm);
  auto pipe = pipeline(4);
  const std::array<Vertex, 3> tri = {{{-0.9f, -0.9f, 1, 1, 1, 1}, {0.8f, -0.6f, 1, 1, 1, 1}, {-0.5f, 0.9f, 1, 1, 1, 1}}};
  auto vertices = device().create_buffer(std::vector<Vertex>(tri.begin(), tri.end()));
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass(
      {.color_attachments = {{.texture = &ms, .store_op = StoreOp::discard, .resolve_target = &resolved}}});
  pass.set_pipeline(pipe);
  pass.set_push_constants(Push{0, 0, 0.5f});
  pass.set_vertex_buffer(0, vertices);
  pass.draw(3);
  device().submit(enc);
  const std::vector<uint8_t> px = read_rgba8(resolved);
  int partial = 0;
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      const uint8_t r = px[(size_t(y) * kW + x) * 4];
      const int c = classify(tri, x, y);
      if (c == 1) {
        ASSERT_EQ(r, 255) << x << "," << y;
      }
      if (c == 0) {
        ASSERT_EQ(r, 0) << x << "," << y;
      }
      partial += r != 0 && r != 255;
    }
  EXPECT_GT(partial, 0);  // some edge pixels are averages of covered and uncovered samples
}

// A compute pass writes a storage texture; the next render pass samples it in its fragment shader
// (texel for texel) into an rgba32_float target: exact.
TEST_F(RenderTargets, ComputeWritesWhatTheRenderPassSamples) {
  Texture src = device().create_texture({.format = TextureFormat::rgba32_float, .width = kW, .height = kH,
                                         .usage = TextureUsage::storage | TextureUsage::sampled});
  Texture dst = target(TextureFormat::rgba32_float);
  auto fill = device().create_compute_kernel(shaders::test_storage_fill::source());
  auto pipe = device().create_render_pipeline(
      {.vertex = &shaders::test_render_basic_vert::source(),
       .buffers = {{.stride = sizeof(Vertex),
                    .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0},
                                   {.format = VertexFormat::float32x4, .offset = 8, .location = 1}}}},
       .fragment = &shaders::test_render_fetch_frag::source(),
       .targets = {{.format = TextureFormat::rgba32_float}}});
  Sampler sampler = device().create_sampler();
  auto fill_group = device().create_bind_group(fill, {src});
  auto group = device().create_bind_group(pipe, {TextureBinding{.texture = &src, .sampler = &sampler}});
  auto vertices = device().create_buffer(std::vector<Vertex>{{-1, -1, 0, 0, 0, 0}, {3, -1, 0, 0, 0, 0}, {-1, 3, 0, 0, 0, 0}});
  struct FillPush {
    uint32_t width, height;
    float scale, seed;
  };
  CommandEncoder enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(fill, fill_group, FillPush{kW, kH, 0.25f, 7.5f}, Grid{(kW + 7) / 8, (kH + 7) / 8});
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &dst, .clear_value = {-1, -1, -1, -1}}}});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_push_constants(Push{0, 0, 0.5f});
  pass.set_vertex_buffer(0, vertices);
  pass.draw(3);
  device().submit(enc);
  std::vector<float> got(size_t(kW) * kH * 4);
  dst.read({}, std::as_writable_bytes(std::span<float>(got)));
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      const float* g = &got[(size_t(y) * kW + x) * 4];
      ASSERT_EQ(g[0], x * 0.25f) << x << "," << y;
      ASSERT_EQ(g[1], float(y));
      ASSERT_EQ(g[2], float(x + y));
      ASSERT_EQ(g[3], 7.5f);
    }
}

TEST_F(RenderTargets, BadAttachmentsAreRefused) {
  Texture t = target(TextureFormat::rgba8_unorm);
  Texture small = device().create_texture(
      {.format = TextureFormat::rgba8_unorm, .width = 8, .height = 8, .usage = TextureUsage::render_target});
  Texture sampled = device().create_texture({.format = TextureFormat::rgba8_unorm, .width = kW, .height = kH});
  Texture depth = target(TextureFormat::depth32_float);
  Texture ms = target(TextureFormat::rgba8_unorm, 4);
  auto pipe = pipeline();
  CommandEncoder enc = device().begin_commands();
  auto arg = [&](const RenderPassDescriptor& d) { return shape_error_argument([&] { enc.begin_render_pass(d); }); };
  EXPECT_EQ(arg({.color_attachments = {{.texture = nullptr}}}), "color_attachments[0]");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &sampled}}}), "color_attachments[0]");  // no render_target
  EXPECT_EQ(arg({.color_attachments = {{.texture = &t, .mip = 1}}}), "color_attachments[0]");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &depth}}}), "color_attachments[0]");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &t}, {.texture = &small}}}), "color_attachments[1]");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &t}}, .depth_attachment = RenderPassDepthAttachment{.texture = &t}}),
            "depth_attachment");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &ms}}, .depth_attachment = RenderPassDepthAttachment{.texture = &depth}}),
            "depth_attachment");  // 4 samples against 1
  EXPECT_EQ(arg({.color_attachments = {{.texture = &t, .resolve_target = &t}}}), "color_attachments[0].resolve_target");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &ms, .resolve_target = &small}}}),
            "color_attachments[0].resolve_target");
  EXPECT_EQ(arg({.color_attachments = {{.texture = &t}}, .width = 4, .height = 4}), "width");
  // A pipeline must match the pass's formats and samples.
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t}},
                                           .depth_attachment = RenderPassDepthAttachment{.texture = &depth}});
  EXPECT_EQ(shape_error_argument([&] { pass.set_pipeline(pipe); }), "pipeline");  // no depth in the pipeline
  RenderPass msp = enc.begin_render_pass({.color_attachments = {{.texture = &ms}}});
  EXPECT_EQ(shape_error_argument([&] { msp.set_pipeline(pipe); }), "pipeline");  // 1 sample against 4
  RenderPass ok = enc.begin_render_pass({.color_attachments = {{.texture = &t}}});
  ok.set_pipeline(pipe);
  device().submit(enc);
}

}  // namespace
}  // namespace onegpu
