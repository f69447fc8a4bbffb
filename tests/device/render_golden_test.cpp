// Golden scenes: small render passes (64 x 64) read back and compared with reviewed PNGs in
// tests/goldens/render/ (docs/goldens.md), each also checked against what the host knows of the
// picture (flat colours, blend results, colours at instance centres, a texture's exact contents),
// so a wrong golden cannot pass by being looked at. The render-target and render-pass tests keep
// their exact host-reference checks; these complement them with whole pictures.
//
// Tolerances (docs/rendering.md): exact scenes (clears, nearest sampling at texel interiors,
// axis-aligned blending) allow no difference beyond 1 per channel; rasterized edges, MSAA coverage
// and filtered sampling allow 2..4 per channel and up to 1-2 % of the pixels (edge pixels whose
// centre or sample lies within the sub-pixel precision of an edge, filter rounding).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "support/device_fixture.h"
#include "support/golden.h"
#include "test_golden_color_vert.h"
#include "test_golden_instanced_vert.h"
#include "test_golden_pattern.h"
#include "test_golden_textured_frag.h"
#include "test_golden_textured_vert.h"
#include "test_render_basic_frag.h"

namespace onegpu::testing {
namespace {

constexpr uint32_t kSize = 64;

struct ColorVertex {
  float x, y, z;
  float r, g, b, a;
};
struct TexVertex {
  float x, y, u, v;
};
struct Instance {
  float x, y, scale, angle;
  float r, g, b, a;
};

class RenderGolden : public DeviceTest {
 protected:
  Texture target(uint32_t samples = 1) {
    return device().create_texture({.format = TextureFormat::rgba8_unorm, .width = kSize, .height = kSize,
                                    .sample_count = samples,
                                    .usage = samples == 1 ? TextureUsage::render_target | TextureUsage::copy_src
                                                          : TextureUsage::render_target});
  }
  Texture depth() {
    return device().create_texture({.format = TextureFormat::depth32_float, .width = kSize, .height = kSize,
                                    .usage = TextureUsage::render_target});
  }
  Image read(const Texture& t) {
    std::vector<std::byte> texels(size_t(kSize) * kSize * 4);
    t.read({}, texels);
    return to_rgba8(TextureFormat::rgba8_unorm, kSize, kSize, texels);
  }
  RenderPipeline color_pipeline(std::optional<BlendState> blend = {}, bool with_depth = false, uint32_t samples = 1) {
    RenderPipelineDescriptor d{
        .vertex = &shaders::test_golden_color_vert::source(),
        .buffers = {{.stride = sizeof(ColorVertex),
                     .attributes = {{.format = VertexFormat::float32x3, .offset = 0, .location = 0},
                                    {.format = VertexFormat::float32x4, .offset = 12, .location = 1}}}},
        .fragment = &shaders::test_render_basic_frag::source(),
        .targets = {{.format = TextureFormat::rgba8_unorm, .blend = blend}},
        .multisample = {.count = samples}};
    if (with_depth) d.depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float};
    return device().create_render_pipeline(d);
  }
  RenderPipeline instanced_pipeline() {
    return device().create_render_pipeline(
        {.vertex = &shaders::test_golden_instanced_vert::source(),
         .buffers = {{.stride = 8, .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0}}},
                     {.stride = sizeof(Instance),
                      .step_mode = VertexStepMode::instance,
                      .attributes = {{.format = VertexFormat::float32x4, .offset = 0, .location = 1},
                                     {.format = VertexFormat::float32x4, .offset = 16, .location = 2}}}},
         .fragment = &shaders::test_render_basic_frag::source(),
         .targets = {{.format = TextureFormat::rgba8_unorm}}});
  }
  RenderPipeline textured_pipeline() {
    return device().create_render_pipeline(
        {.vertex = &shaders::test_golden_textured_vert::source(),
         .buffers = {{.stride = sizeof(TexVertex),
                      .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0},
                                     {.format = VertexFormat::float32x2, .offset = 8, .location = 1}}}},
         .fragment = &shaders::test_golden_textured_frag::source(),
         .targets = {{.format = TextureFormat::rgba8_unorm}}});
  }
  void expect_golden(const char* name, const Image& image, const GoldenTolerance& tolerance) {
    const GoldenResult r = compare_with_golden(std::string("render/") + name, kSize, kSize, image.rgba, tolerance);
    EXPECT_TRUE(r) << r.message;
  }
};

// |a - b| <= tolerance for r, g, b, a.
::testing::AssertionResult near(const std::array<uint8_t, 4>& px, std::array<int, 4> want, int tolerance) {
  for (int c = 0; c < 4; ++c)
    if (std::abs(int(px[c]) - want[c]) > tolerance)
      return ::testing::AssertionFailure() << "(" << int(px[0]) << ", " << int(px[1]) << ", " << int(px[2]) << ", "
                                           << int(px[3]) << ") is not (" << want[0] << ", " << want[1] << ", "
                                           << want[2] << ", " << want[3] << ") within " << tolerance;
  return ::testing::AssertionSuccess();
}

// 16 instances of a small triangle around the origin in a 4 x 4 grid, each turned and coloured.
std::vector<Instance> grid_instances() {
  std::vector<Instance> v;
  for (int i = 0; i < 16; ++i) {
    const float x = -0.75f + 0.5f * float(i % 4), y = -0.75f + 0.5f * float(i / 4);
    v.push_back({x, y, 0.2f, 0.4f * float(i), float(i % 4) / 3.0f, float(i / 4) / 3.0f, 1.0f - float(i) / 15.0f, 1});
  }
  return v;
}
const std::vector<float> kTriangle = {0.0f, -1.0f, 0.87f, 0.5f, -0.87f, 0.5f};  // centroid at the origin

// The pixel at clip-space (x, y).
std::array<uint8_t, 4> at(const Image& image, float x, float y) {
  return image.pixel(uint32_t((x + 1) * 0.5f * kSize), uint32_t((y + 1) * 0.5f * kSize));
}

TEST_F(RenderGolden, Clear) {
  Texture t = target();
  CommandEncoder enc = device().begin_commands();
  enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0.25, 0.5, 0.75, 1}}}});
  device().submit(enc);
  const Image image = read(t);
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) ASSERT_TRUE(near(image.pixel(x, y), {64, 128, 191, 255}, 1)) << x << "," << y;
  expect_golden("clear", image, {.max_channel_difference = 1});
}

TEST_F(RenderGolden, Triangle) {
  Texture t = target();
  auto pipe = color_pipeline();
  auto vertices = device().create_buffer(std::vector<ColorVertex>{
      {-0.8f, 0.8f, 0.5f, 1, 0, 0, 1}, {0.85f, 0.5f, 0.5f, 0, 1, 0, 1}, {-0.2f, -0.85f, 0.5f, 0, 0, 1, 1}});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0.05, 0.05, 0.1, 1}}}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, vertices);
  pass.draw(3);
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  // The centroid blends the three colours equally; a corner outside keeps the clear colour.
  EXPECT_TRUE(near(at(image, (-0.8f + 0.85f - 0.2f) / 3, (0.8f + 0.5f - 0.85f) / 3), {85, 85, 85, 255}, 6));
  EXPECT_TRUE(near(image.pixel(63, 63), {13, 13, 26, 255}, 1));
  expect_golden("triangle", image, {.max_channel_difference = 2, .max_differing_fraction = 0.01});
}

// Two triangles whose depths cross (red nearer on the left, green on the right) and a blue quad at
// depth 0.5 behind the top of both, from one indexed draw of 16-bit indices.
TEST_F(RenderGolden, IndexedMeshWithDepth) {
  Texture t = target();
  Texture d = depth();
  auto pipe = color_pipeline({}, true);
  auto vertices = device().create_buffer(std::vector<ColorVertex>{
      {-0.9f, -0.6f, 0.2f, 1, 0, 0, 1}, {0.9f, -0.6f, 0.8f, 1, 0, 0, 1}, {0.0f, 0.7f, 0.5f, 1, 0, 0, 1},
      {-0.9f, -0.3f, 0.8f, 0, 1, 0, 1}, {0.9f, -0.3f, 0.2f, 0, 1, 0, 1}, {0.0f, 0.9f, 0.5f, 0, 1, 0, 1},
      {-0.6f, 0.1f, 0.45f, 0.1f, 0.3f, 1, 1}, {0.6f, 0.1f, 0.45f, 0.1f, 0.3f, 1, 1},
      {0.6f, 0.95f, 0.45f, 0.1f, 0.3f, 1, 1}, {-0.6f, 0.95f, 0.45f, 0.1f, 0.3f, 1, 1}});
  auto indices = device().create_buffer(std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 6, 8, 9});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0, 0, 0, 1}}},
                                           .depth_attachment = RenderPassDepthAttachment{.texture = &d}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, vertices);
  pass.set_index_buffer(indices, IndexFormat::uint16);
  pass.draw_indexed(12);
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  EXPECT_TRUE(near(at(image, -0.5f, -0.2f), {255, 0, 0, 255}, 0)) << "red is nearer on the left";
  EXPECT_TRUE(near(at(image, 0.5f, -0.2f), {0, 255, 0, 255}, 0)) << "green is nearer on the right";
  EXPECT_TRUE(near(at(image, -0.5f, 0.8f), {26, 77, 255, 255}, 1)) << "the quad where no triangle is";
  expect_golden("indexed_depth", image, {.max_channel_difference = 2, .max_differing_fraction = 0.02});
}

// Three half-transparent axis-aligned quads (red, green, blue) over white, blended over each other.
TEST_F(RenderGolden, Blending) {
  Texture t = target();
  const BlendState over{.color = {.src_factor = BlendFactor::src_alpha, .dst_factor = BlendFactor::one_minus_src_alpha},
                        .alpha = {.src_factor = BlendFactor::one, .dst_factor = BlendFactor::one_minus_src_alpha}};
  auto pipe = color_pipeline(over);
  std::vector<ColorVertex> v;
  auto quad = [&](float x0, float y0, float x1, float y1, float r, float g, float b) {
    const ColorVertex c[4] = {{x0, y0, 0.5f, r, g, b, 0.5f}, {x1, y0, 0.5f, r, g, b, 0.5f},
                              {x1, y1, 0.5f, r, g, b, 0.5f}, {x0, y1, 0.5f, r, g, b, 0.5f}};
    for (int i : {0, 1, 2, 0, 2, 3}) v.push_back(c[i]);
  };
  quad(-0.875f, -0.875f, 0.375f, 0.375f, 1, 0, 0);
  quad(-0.375f, -0.625f, 0.875f, 0.625f, 0, 1, 0);
  quad(-0.625f, -0.375f, 0.625f, 0.875f, 0, 0, 1);
  auto vertices = device().create_buffer(v);
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {1, 1, 1, 1}}}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, vertices);
  pass.draw(uint32_t(v.size()));
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  // Red alone: 0.5 red + 0.5 white; red then green then blue, each halving what was there.
  EXPECT_TRUE(near(at(image, -0.8f, -0.8f), {255, 128, 128, 255}, 1));
  EXPECT_TRUE(near(at(image, 0.0f, 0.0f), {64, 96, 160, 255}, 2));
  EXPECT_TRUE(near(at(image, 0.8f, -0.5f), {128, 255, 128, 255}, 1));
  EXPECT_TRUE(near(at(image, 0.95f, 0.95f), {255, 255, 255, 255}, 0));
  expect_golden("blending", image, {.max_channel_difference = 2});
}

// A white triangle and a thin sliver drawn with 4 samples and resolved: edges get in-between greys.
TEST_F(RenderGolden, MultisampleResolve) {
  Texture msaa = target(4);
  Texture t = target();
  auto pipe = color_pipeline({}, false, 4);
  auto vertices = device().create_buffer(std::vector<ColorVertex>{
      {-0.9f, 0.7f, 0.5f, 1, 1, 1, 1}, {0.8f, 0.9f, 0.5f, 1, 1, 1, 1}, {0.1f, -0.9f, 0.5f, 1, 1, 1, 1},
      {-0.95f, -0.8f, 0.5f, 1, 0.8f, 0.2f, 1}, {0.95f, -0.6f, 0.5f, 1, 0.8f, 0.2f, 1},
      {-0.95f, -0.74f, 0.5f, 1, 0.8f, 0.2f, 1}});
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &msaa, .store_op = StoreOp::discard,
                                                                  .clear_value = {0, 0, 0, 1}, .resolve_target = &t}}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, vertices);
  pass.draw(6);
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  EXPECT_TRUE(near(at(image, 0.0f, 0.5f), {255, 255, 255, 255}, 0));
  EXPECT_TRUE(near(at(image, 0.9f, 0.0f), {0, 0, 0, 255}, 0));
  int partial = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const uint8_t r = image.pixel(x, y)[0];
      partial += r > 20 && r < 235;
    }
  EXPECT_GT(partial, 40) << "a resolve averages the samples along the edges";
  expect_golden("msaa_resolve", image, {.max_channel_difference = 2, .max_differing_fraction = 0.01});
}

// A 64 x 64 checkerboard (8-texel squares) with its mips generated, sampled trilinearly in four
// strips that shrink it 1, 4, 16 and 64 times (mips 0, 2, 4 and 6): sharp, finer, then flat grey.
TEST_F(RenderGolden, TextureSamplingWithMips) {
  Texture t = target();
  Texture tex = device().create_texture({.format = TextureFormat::rgba8_unorm, .width = 64, .height = 64, .mip_levels = 7,
                                         .usage = TextureUsage::sampled | TextureUsage::copy_dst | TextureUsage::copy_src});
  const uint8_t a[4] = {240, 200, 40, 255}, b[4] = {30, 60, 160, 255};
  std::vector<uint8_t> texels(64 * 64 * 4);
  for (uint32_t y = 0; y < 64; ++y)
    for (uint32_t x = 0; x < 64; ++x)
      for (int c = 0; c < 4; ++c) texels[(y * 64 + x) * 4 + c] = ((x / 8 + y / 8) % 2) ? b[c] : a[c];
  tex.write({}, std::as_bytes(std::span<const uint8_t>(texels)));
  Sampler sampler = device().create_sampler({.address_u = AddressMode::repeat, .address_v = AddressMode::repeat,
                                             .mag_filter = FilterMode::linear, .min_filter = FilterMode::linear,
                                             .mipmap_filter = FilterMode::linear});
  auto pipe = textured_pipeline();
  auto group = device().create_bind_group(pipe, {TextureBinding{.texture = &tex, .sampler = &sampler}});
  std::vector<TexVertex> v;
  for (int i = 0; i < 4; ++i) {
    const float s = float(1 << (2 * i));  // texels per pixel
    const float y0 = -1.0f + 0.5f * float(i), y1 = y0 + 0.5f;
    const TexVertex c[4] = {{-1, y0, 0, 0}, {1, y0, s, 0}, {1, y1, s, s / 4}, {-1, y1, 0, s / 4}};
    for (int k : {0, 1, 2, 0, 2, 3}) v.push_back(c[k]);
  }
  auto vertices = device().create_buffer(v);
  CommandEncoder enc = device().begin_commands();
  enc.generate_mipmaps(tex);
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t}}});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_vertex_buffer(0, vertices);
  pass.draw(uint32_t(v.size()));
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  // Mip 0 at one texel per pixel: texel centres, so exact squares.
  EXPECT_TRUE(near(image.pixel(3, 3), {240, 200, 40, 255}, 1));
  EXPECT_TRUE(near(image.pixel(11, 3), {30, 60, 160, 255}, 1));
  // Mip 6 (and 4) is the average of the two colours: the strip is flat.
  for (uint32_t x = 0; x < kSize; x += 7) EXPECT_TRUE(near(image.pixel(x, 56), {135, 130, 100, 255}, 3)) << x;
  expect_golden("texture_mips", image, {.max_channel_difference = 4, .max_differing_fraction = 0.02});
}

// A compute pass writes a 32 x 32 picture into a storage texture; the next render pass samples it
// (bilinear) on a turned square.
TEST_F(RenderGolden, ComputeWrittenTextureSampled) {
  Texture t = target();
  Texture tex = device().create_texture({.format = TextureFormat::rgba8_unorm, .width = 32, .height = 32,
                                         .usage = TextureUsage::storage | TextureUsage::sampled | TextureUsage::copy_src});
  auto fill = device().create_compute_kernel(shaders::test_golden_pattern::source());
  auto fill_group = device().create_bind_group(fill, {tex});
  Sampler sampler = device().create_sampler({.mag_filter = FilterMode::linear, .min_filter = FilterMode::linear});
  auto pipe = textured_pipeline();
  auto group = device().create_bind_group(pipe, {TextureBinding{.texture = &tex, .sampler = &sampler}});
  std::vector<TexVertex> v;
  const float c = std::cos(0.35f) * 0.85f, s = std::sin(0.35f) * 0.85f;
  const TexVertex corner[4] = {{-c + s, -s - c, 0, 0}, {c + s, s - c, 1, 0}, {c - s, s + c, 1, 1}, {-c - s, -s + c, 0, 1}};
  for (int k : {0, 1, 2, 0, 2, 3}) v.push_back(corner[k]);
  auto vertices = device().create_buffer(v);
  struct FillPush {
    uint32_t width, height;
  };
  CommandEncoder enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(fill, fill_group, FillPush{32, 32}, Grid{4, 4});
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0.1, 0.1, 0.1, 1}}}});
  pass.set_pipeline(pipe);
  pass.set_bind_group(group);
  pass.set_vertex_buffer(0, vertices);
  pass.draw(6);
  pass.end();
  device().submit(enc);
  // The compute pass's picture, against the host's.
  std::vector<uint8_t> written(32 * 32 * 4);
  tex.read({}, std::as_writable_bytes(std::span<uint8_t>(written)));
  for (uint32_t y = 0; y < 32; ++y)
    for (uint32_t x = 0; x < 32; ++x) {
      const double dx = x + 0.5 - 16, dy = y + 0.5 - 16;
      const int ring = (uint32_t(std::sqrt(dx * dx + dy * dy)) / 3) & 1;
      const uint8_t* p = &written[(y * 32 + x) * 4];
      ASSERT_EQ(p[0], ring * 255) << x << "," << y;
      ASSERT_NEAR(p[1], std::round(x / 31.0 * 255), 1) << x << "," << y;
      ASSERT_NEAR(p[2], std::round(y / 31.0 * 255), 1) << x << "," << y;
    }
  const Image image = read(t);
  EXPECT_TRUE(near(image.pixel(0, 0), {26, 26, 26, 255}, 1)) << "outside the square";
  expect_golden("compute_texture", image, {.max_channel_difference = 4, .max_differing_fraction = 0.02});
}

TEST_F(RenderGolden, InstancedDraw) {
  Texture t = target();
  auto pipe = instanced_pipeline();
  const std::vector<Instance> instances = grid_instances();
  auto shape = device().create_buffer(kTriangle);
  auto placements = device().create_buffer(instances);
  CommandEncoder enc = device().begin_commands();
  RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0, 0, 0, 1}}}});
  pass.set_pipeline(pipe);
  pass.set_vertex_buffer(0, shape);
  pass.set_vertex_buffer(1, placements);
  pass.draw(3, 16);
  pass.end();
  device().submit(enc);
  const Image image = read(t);
  for (const Instance& i : instances)
    EXPECT_TRUE(near(at(image, i.x, i.y), {int(std::lround(i.r * 255)), int(std::lround(i.g * 255)),
                                           int(std::lround(i.b * 255)), 255}, 1)) << i.x << "," << i.y;
  expect_golden("instanced", image, {.max_channel_difference = 2, .max_differing_fraction = 0.02});
}

// The instanced picture again, from two indirect draws (one plain, one indexed) of 8 instances each:
// it must equal the direct draw's exactly.
TEST_F(RenderGolden, IndirectDraw) {
  auto pipe = instanced_pipeline();
  auto shape = device().create_buffer(kTriangle);
  auto placements = device().create_buffer(grid_instances());
  auto indices = device().create_buffer(std::vector<uint32_t>{0, 1, 2});
  // draw: 3 vertices, 8 instances, first vertex 0, first instance 0; then (at byte 16) indexed:
  // 3 indices, 8 instances, first index 0, base vertex 0, first instance 0 (a non-zero first
  // instance in indirect arguments needs drawIndirectFirstInstance, which the device does not
  // enable: the second draw reads the last 8 instances through the vertex buffer's offset).
  auto args = device().create_buffer(std::vector<uint32_t>{3, 8, 0, 0, 3, 8, 0, 0, 0});
  auto draw = [&](bool indirect) {
    Texture t = target();
    CommandEncoder enc = device().begin_commands();
    RenderPass pass = enc.begin_render_pass({.color_attachments = {{.texture = &t, .clear_value = {0, 0, 0, 1}}}});
    pass.set_pipeline(pipe);
    pass.set_vertex_buffer(0, shape);
    pass.set_vertex_buffer(1, placements);
    if (indirect) {
      pass.draw_indirect(args, 0);
      pass.set_index_buffer(indices, IndexFormat::uint32);
      pass.set_vertex_buffer(1, placements, 8 * sizeof(Instance));
      pass.draw_indexed_indirect(args, 16);
    } else {
      pass.draw(3, 16);
    }
    pass.end();
    device().submit(enc);
    return read(t);
  };
  const Image image = draw(true);
  const Image direct = draw(false);
  const ImageDifference diff = difference(image, direct, 0);
  EXPECT_EQ(diff.differing_pixels, 0u) << "indirect draws against the same draws made directly";
  expect_golden("indirect", image, {.max_channel_difference = 2, .max_differing_fraction = 0.02});
}

}  // namespace
}  // namespace onegpu::testing
