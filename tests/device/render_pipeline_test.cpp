// Render pipelines created on the device: several descriptors, no validation message, no leak;
// bad descriptors refused with their typed error before anything is created.
#include <gtest/gtest.h>

#include "support/device_fixture.h"
#include "support/shape_error.h"
#include "test_fill.h"
#include "test_render_basic_frag.h"
#include "test_render_basic_vert.h"
#include "test_render_io_frag.h"
#include "test_render_io_vert.h"
#include "test_render_uint_frag.h"

namespace onegpu {
namespace {

using testing::DeviceTest;
using testing::shape_error_argument;

class RenderPipelines : public DeviceTest {};

RenderPipelineDescriptor basic() {
  return {.vertex = &shaders::test_render_basic_vert::source(),
          .buffers = {{.stride = 24,
                       .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0},
                                      {.format = VertexFormat::float32x4, .offset = 8, .location = 1}}}},
          .fragment = &shaders::test_render_basic_frag::source(),
          .targets = {{.format = TextureFormat::rgba8_unorm}},
          .label = "basic"};
}

TEST_F(RenderPipelines, CreatedForSeveralDescriptors) {
  std::vector<RenderPipeline> pipelines;
  pipelines.push_back(device().create_render_pipeline(basic()));
  EXPECT_EQ(pipelines.back().label(), "basic");
  EXPECT_EQ(pipelines.back().reflection().push_constant_size, 12u);

  RenderPipelineDescriptor d = basic();  // blended, depth-tested, 4 samples, strips, culled
  d.label.clear();
  d.multisample.count = 4;
  d.depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float, .depth_compare = CompareFunction::less_equal};
  d.targets[0].blend = BlendState{
      .color = {.src_factor = BlendFactor::src_alpha, .dst_factor = BlendFactor::one_minus_src_alpha},
      .alpha = {.operation = BlendOperation::max, .src_factor = BlendFactor::one, .dst_factor = BlendFactor::one}};
  d.primitive = {.topology = PrimitiveTopology::triangle_strip, .front_face = FrontFace::cw, .cull_mode = CullMode::back};
  pipelines.push_back(device().create_render_pipeline(d));
  EXPECT_EQ(pipelines.back().label(), shaders::test_render_basic_vert::source().name);

  d = basic();  // depth only
  d.fragment = nullptr;
  d.targets.clear();
  d.depth_stencil = DepthStencilState{.depth_write = true, .depth_compare = CompareFunction::greater};
  d.primitive.topology = PrimitiveTopology::line_list;
  pipelines.push_back(device().create_render_pipeline(d));

  d = basic();  // an unsigned target, line strips, the colour from a second per-instance buffer
  d.fragment = &shaders::test_render_uint_frag::source();
  d.targets[0].format = TextureFormat::r32_uint;
  d.buffers[0].attributes.pop_back();
  d.buffers.push_back({.stride = 4, .step_mode = VertexStepMode::instance,
                       .attributes = {{.format = VertexFormat::unorm8x4, .location = 1}}});
  d.primitive.topology = PrimitiveTopology::line_strip;
  pipelines.push_back(device().create_render_pipeline(d));

  // Bindings in both stages, push constants, three targets (one unwritten), two buffers.
  d = {.vertex = &shaders::test_render_io_vert::source(),
       .buffers = {{.stride = 28,
                    .attributes = {{.format = VertexFormat::float32x3, .offset = 0, .location = 0},
                                   {.format = VertexFormat::sint32x2, .offset = 12, .location = 1},
                                   {.format = VertexFormat::float32, .offset = 20, .location = 5}}},
                   {.stride = 32,
                    .step_mode = VertexStepMode::instance,
                    .attributes = {{.format = VertexFormat::uint32x4, .offset = 0, .location = 2},
                                   {.format = VertexFormat::float32x2, .offset = 16, .location = 3},
                                   {.format = VertexFormat::float32x2, .offset = 24, .location = 4}}}},
       .fragment = &shaders::test_render_io_frag::source(),
       .targets = {{.format = TextureFormat::rgba16_float},
                   {.format = TextureFormat::bgra8_unorm, .write_mask = 0},
                   {.format = TextureFormat::r32_uint}},
       .primitive = {.topology = PrimitiveTopology::point_list},
       .depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float, .depth_write = false}};
  pipelines.push_back(device().create_render_pipeline(d));
  EXPECT_EQ(pipelines.back().reflection().bindings.size(), 3u);
  EXPECT_FALSE(pipelines.back().reflection().bindings[2].read_only);

  // Moving keeps the pipeline; the moved-from handle is empty.
  RenderPipeline moved = std::move(pipelines.front());
  EXPECT_TRUE(moved);
  EXPECT_FALSE(pipelines.front());
  EXPECT_THROW(pipelines.front().reflection(), UsageError);
}

TEST_F(RenderPipelines, BadDescriptorsAreRefusedBeforeCreation) {
  RenderPipelineDescriptor d = basic();
  d.buffers[0].attributes[1].format = VertexFormat::uint32x4;
  EXPECT_EQ(shape_error_argument([&] { device().create_render_pipeline(d); }), "buffers[0].attributes[1].format");
  d = basic();
  d.targets[0].format = TextureFormat::r32_uint;
  EXPECT_EQ(shape_error_argument([&] { device().create_render_pipeline(d); }), "targets[0].format");
  d = basic();
  d.multisample.count = 3;
  EXPECT_THROW(device().create_render_pipeline(d), UnsupportedError);
  d = basic();
  d.fragment = &shaders::test_fill::source();  // a compute module: its structure check refuses it
  EXPECT_EQ(shape_error_argument([&] { device().create_render_pipeline(d); }), "fragment");
  // A truncated vertex module never reaches the driver.
  const ShaderSource& v = shaders::test_render_basic_vert::source();
  ShaderSource cut = v;
  cut.spirv = v.spirv.first(v.spirv.size() - 2);
  d = basic();
  d.vertex = &cut;
  EXPECT_EQ(shape_error_argument([&] { device().create_render_pipeline(d); }), "vertex");
  // A vertex module is no compute kernel.
  EXPECT_EQ(shape_error_argument([&] { device().create_compute_kernel(v); }), "shader");
}

}  // namespace
}  // namespace onegpu
