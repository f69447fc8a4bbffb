// Render pipeline descriptors against their shaders and a device's limits, without a device.
#include <gtest/gtest.h>

#include <string>

#include "core/render_checks.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"
#include "test_fill.h"
#include "test_render_basic_frag.h"
#include "test_render_basic_vert.h"
#include "test_render_io_frag.h"
#include "test_render_io_vert.h"
#include "test_render_uint_frag.h"

namespace onegpu {
namespace {

using testing::shape_error_argument;
using testing::shape_error_message;

// A device that renders to every colour format, blends all but r32_float and r32_uint, and offers
// 1 and 4 samples everywhere (4 not for rgba32_float).
core::RenderLimits full_limits() {
  core::RenderLimits l;
  l.graphics = true;
  for (uint32_t i = 0; i < kTextureFormatCount; ++i) {
    const TextureFormat f = static_cast<TextureFormat>(i);
    core::RenderFormatSupport& s = l.formats[i];
    s.color_attachment = !is_depth_format(f);
    s.blendable = s.color_attachment && f != TextureFormat::r32_float && f != TextureFormat::r32_uint;
    s.depth_attachment = is_depth_format(f);
    s.sample_counts = f == TextureFormat::rgba32_float ? 1u : 1u | 4u;
  }
  l.max_vertex_buffers = 16;
  l.max_vertex_attributes = 16;
  l.max_vertex_stride = 2048;
  l.max_color_attachments = 8;
  l.max_push_constants_bytes = 128;
  l.vertex_stores = l.fragment_stores = l.independent_blend = true;
  return l;
}

// render_basic: vec2 position at 0, vec4 colour at 1, in one interleaved buffer.
RenderPipelineDescriptor basic() {
  return {.vertex = &shaders::test_render_basic_vert::source(),
          .buffers = {{.stride = 24,
                       .attributes = {{.format = VertexFormat::float32x2, .offset = 0, .location = 0},
                                      {.format = VertexFormat::float32x4, .offset = 8, .location = 1}}}},
          .fragment = &shaders::test_render_basic_frag::source(),
          .targets = {{.format = TextureFormat::rgba8_unorm}}};
}

// render_io: inputs of every kind, two outputs at locations 0 and 2, bindings in both stages.
RenderPipelineDescriptor io() {
  return {.vertex = &shaders::test_render_io_vert::source(),
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
                      {.format = TextureFormat::rgba8_unorm, .write_mask = 0},
                      {.format = TextureFormat::r32_uint}}};
}

std::string argument(const RenderPipelineDescriptor& d, const core::RenderLimits& l = full_limits()) {
  return shape_error_argument([&] { core::plan_render_pipeline(d, l); });
}
std::string message(const RenderPipelineDescriptor& d, const core::RenderLimits& l = full_limits()) {
  return shape_error_message([&] { core::plan_render_pipeline(d, l); });
}
// The capability an UnsupportedError names, or "(nothing thrown)".
std::string unsupported(const RenderPipelineDescriptor& d, const core::RenderLimits& l = full_limits()) {
  try {
    core::plan_render_pipeline(d, l);
  } catch (const UnsupportedError& e) {
    return e.capability();
  }
  return "(nothing thrown)";
}

TEST(RenderChecks, ValidDescriptorsPass) {
  const core::RenderPipelinePlan p = core::plan_render_pipeline(basic(), full_limits());
  EXPECT_EQ(p.reflection.stage, ShaderStage::vertex);
  EXPECT_EQ(p.reflection.push_constant_size, 12u);
  EXPECT_EQ(p.reflection.inputs.size(), 2u);
  EXPECT_EQ(p.reflection.outputs.size(), 1u);
  EXPECT_NO_THROW(core::plan_render_pipeline(io(), full_limits()));
  RenderPipelineDescriptor d = basic();
  d.multisample.count = 4;
  d.depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float};
  d.targets[0].blend = BlendState{.color = {.src_factor = BlendFactor::src_alpha, .dst_factor = BlendFactor::one_minus_src_alpha}};
  d.primitive = {.topology = PrimitiveTopology::triangle_strip, .front_face = FrontFace::cw, .cull_mode = CullMode::back};
  EXPECT_NO_THROW(core::plan_render_pipeline(d, full_limits()));
  // More components than the shader reads are fine; unused attributes too.
  d = basic();
  d.buffers[0].attributes[0].format = VertexFormat::float32x3;
  d.buffers[0].attributes.push_back({.format = VertexFormat::uint32, .offset = 20, .location = 7});
  EXPECT_NO_THROW(core::plan_render_pipeline(d, full_limits()));
  // Depth only: no fragment stage, no targets.
  d = basic();
  d.fragment = nullptr;
  d.targets.clear();
  d.depth_stencil = DepthStencilState{};
  EXPECT_NO_THROW(core::plan_render_pipeline(d, full_limits()));
  // An unsigned output to r32_uint.
  d = basic();
  d.fragment = &shaders::test_render_uint_frag::source();
  d.targets[0].format = TextureFormat::r32_uint;
  EXPECT_NO_THROW(core::plan_render_pipeline(d, full_limits()));
}

TEST(RenderChecks, BothStagesMerge) {
  const ShaderReflection r = core::plan_render_pipeline(io(), full_limits()).reflection;
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.bindings[0].kind, BindingKind::uniform_buffer);  // vertex only
  EXPECT_TRUE(r.bindings[1].read_only);                         // both read it
  EXPECT_EQ(r.bindings[2].binding, 2u);                          // fragment only, written
  EXPECT_FALSE(r.bindings[2].read_only);
  EXPECT_EQ(r.push_constant_size, 20u);
  EXPECT_EQ(r.push_constants.size(), 2u);  // the same two members in both stages, listed once
  EXPECT_EQ(r.inputs.size(), 6u);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[1].location, 2u);
}

TEST(RenderChecks, VertexInputsNeedExactlyOneCompatibleAttribute) {
  RenderPipelineDescriptor d = basic();
  d.buffers[0].attributes.pop_back();
  EXPECT_EQ(argument(d), "buffers");
  EXPECT_NE(message(d).find("input location 1 (color) (float32x4) is fed by no attribute"), std::string::npos)
      << message(d);

  d = basic();
  d.buffers.push_back({.stride = 16, .attributes = {{.format = VertexFormat::float32x4, .location = 1}}});
  EXPECT_EQ(argument(d), "buffers[1].attributes[0].location");
  EXPECT_NE(message(d).find("also fed by buffers[0].attributes[1]"), std::string::npos) << message(d);

  d = basic();
  d.buffers[0].attributes[1].format = VertexFormat::uint32x4;
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].format");
  EXPECT_NE(message(d).find("uint32x4 gives uint components"), std::string::npos) << message(d);
  d.buffers[0].attributes[1].format = VertexFormat::sint32x4;
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].format");
  d.buffers[0].attributes[1].format = VertexFormat::unorm8x4;  // read as floats
  EXPECT_EQ(argument(d), "(nothing thrown)");

  d = basic();
  d.buffers[0].attributes[0].format = VertexFormat::float32;  // position is a vec2
  EXPECT_EQ(argument(d), "buffers[0].attributes[0].format");
  EXPECT_NE(message(d).find("float32 has 1 components, input location 0 (position) reads 2"), std::string::npos)
      << message(d);

  // Integer inputs of render_io fed by float formats.
  d = io();
  d.buffers[0].attributes[1].format = VertexFormat::float32x2;
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].format");
  d = io();
  d.buffers[1].attributes[0].format = VertexFormat::sint32x4;
  EXPECT_EQ(argument(d), "buffers[1].attributes[0].format");
  // The matrix's second column (location 4) unfed.
  d = io();
  d.buffers[1].attributes.pop_back();
  EXPECT_NE(message(d).find("input location 4 (rotation)"), std::string::npos) << message(d);
}

TEST(RenderChecks, AttributesInsideTheirStride) {
  RenderPipelineDescriptor d = basic();
  d.buffers[0].stride = 20;  // the colour ends at 24
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].offset");
  EXPECT_NE(message(d).find("float32x4 at offset 8 ends past the stride 20"), std::string::npos) << message(d);
  d.buffers[0].stride = 26;
  EXPECT_EQ(argument(d), "buffers[0].stride");
  d = basic();
  d.buffers[0].attributes[1].offset = 10;
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].offset");
  EXPECT_NE(message(d).find("10 is not a multiple of 4"), std::string::npos) << message(d);
  d = basic();
  d.buffers[0].attributes[1].offset = ~uint64_t(0) - 3;  // offset + size overflows 64 bits
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].offset");
  // Stride 0: one element for every vertex, attributes within the largest stride.
  d = basic();
  d.buffers[0].stride = 0;
  EXPECT_EQ(argument(d), "(nothing thrown)");
  d.buffers[0].attributes[1].offset = 2048;
  EXPECT_EQ(argument(d), "buffers[0].attributes[1].offset");
  d = basic();
  d.buffers[0].attributes[0].format = static_cast<VertexFormat>(40);
  EXPECT_EQ(argument(d), "buffers[0].attributes[0].format");
}

TEST(RenderChecks, FragmentOutputsAgainstTargets) {
  RenderPipelineDescriptor d = basic();
  d.targets.clear();
  EXPECT_EQ(argument(d), "targets");
  EXPECT_NE(message(d).find("output location 0 (out_color) has no target (0 targets)"), std::string::npos) << message(d);

  d = basic();
  d.targets[0].format = TextureFormat::r32_uint;  // a float output
  EXPECT_EQ(argument(d), "targets[0].format");
  EXPECT_NE(message(d).find("r32_uint takes uint values, output location 0 (out_color) is float32x4"),
            std::string::npos)
      << message(d);
  d = basic();
  d.fragment = &shaders::test_render_uint_frag::source();  // a uint output to rgba8_unorm
  EXPECT_EQ(argument(d), "targets[0].format");
  d.targets[0].format = TextureFormat::r8_unorm;
  EXPECT_EQ(argument(d), "targets[0].format");  // still float, not uint

  d = basic();
  d.targets[0].format = TextureFormat::depth32_float;
  EXPECT_EQ(argument(d), "targets[0].format");
  EXPECT_NE(message(d).find("depth32_float is a depth format"), std::string::npos);

  // A target the shader does not write must not be written.
  d = io();
  d.targets[1].write_mask = kColorWriteRed;
  EXPECT_EQ(argument(d), "targets[1].write_mask");
  d = basic();
  d.targets.push_back({.format = TextureFormat::rgba8_unorm});
  EXPECT_EQ(argument(d), "targets[1].write_mask");
  d.targets[1].write_mask = 0;
  EXPECT_EQ(argument(d), "(nothing thrown)");
  d.targets[0].write_mask = 0x1F;
  EXPECT_EQ(argument(d), "targets[0].write_mask");

  // An output with fewer components than its target.
  d = io();
  d.targets[2].format = TextureFormat::r32_uint;
  d.targets[0].format = TextureFormat::r32_float;  // vec4 into one component: fine
  EXPECT_EQ(argument(d), "(nothing thrown)");
}

TEST(RenderChecks, DepthSamplesAndBlending) {
  RenderPipelineDescriptor d = basic();
  d.depth_stencil = DepthStencilState{.format = TextureFormat::r32_float};
  EXPECT_EQ(argument(d), "depth_stencil.format");
  EXPECT_NE(message(d).find("r32_float is not a depth format"), std::string::npos);

  d = basic();
  d.multisample.count = 2;
  EXPECT_EQ(unsupported(d), "sample_count");
  d.multisample.count = 0;
  EXPECT_EQ(unsupported(d), "sample_count");
  d = basic();
  d.multisample.count = 4;
  d.targets[0].format = TextureFormat::rgba32_float;  // 1 sample only here
  EXPECT_EQ(unsupported(d), "sample_count");
  core::RenderLimits l = full_limits();
  l.formats[static_cast<uint32_t>(TextureFormat::depth32_float)].sample_counts = 1;
  d = basic();
  d.multisample.count = 4;
  d.depth_stencil = DepthStencilState{};
  EXPECT_EQ(unsupported(d, l), "sample_count");

  d = basic();
  d.fragment = &shaders::test_render_uint_frag::source();
  d.targets[0] = {.format = TextureFormat::r32_uint, .blend = BlendState{}};
  EXPECT_EQ(argument(d), "targets[0].blend");
  EXPECT_NE(message(d).find("r32_uint is an integer format"), std::string::npos);
  d = basic();
  d.targets[0] = {.format = TextureFormat::r32_float, .blend = BlendState{}};
  EXPECT_EQ(unsupported(d), "blendable");
  d.targets[0].blend->alpha.operation = static_cast<BlendOperation>(9);
  EXPECT_EQ(argument(d), "targets[0].blend");

  l = full_limits();
  l.formats[static_cast<uint32_t>(TextureFormat::rgba8_unorm)].color_attachment = false;
  EXPECT_EQ(unsupported(basic(), l), "color_attachment");
  l = full_limits();
  l.formats[static_cast<uint32_t>(TextureFormat::depth24_stencil8)].depth_attachment = false;
  d = basic();
  d.depth_stencil = DepthStencilState{.format = TextureFormat::depth24_stencil8};
  EXPECT_EQ(unsupported(d, l), "depth_attachment");
}

TEST(RenderChecks, StagesMustBeVertexAndFragment) {
  RenderPipelineDescriptor d = basic();
  d.vertex = &shaders::test_render_basic_frag::source();
  EXPECT_EQ(argument(d), "vertex");
  EXPECT_NE(message(d).find("a fragment shader, not a vertex shader"), std::string::npos) << message(d);
  d = basic();
  d.fragment = &shaders::test_fill::source();
  EXPECT_EQ(argument(d), "fragment");
  EXPECT_NE(message(d).find("a compute shader, not a fragment shader"), std::string::npos) << message(d);
  d = basic();
  d.vertex = nullptr;
  EXPECT_EQ(argument(d), "vertex");

  // Without a fragment stage: no targets, and a depth attachment.
  d = basic();
  d.fragment = nullptr;
  EXPECT_EQ(argument(d), "targets");
  d.targets.clear();
  EXPECT_EQ(argument(d), "depth_stencil");

  // The fragment stage reads an input the vertex stage does not write.
  d = basic();
  d.fragment = &shaders::test_render_io_frag::source();
  d.targets = {{.format = TextureFormat::rgba8_unorm}, {.format = TextureFormat::rgba8_unorm, .write_mask = 0},
               {.format = TextureFormat::r32_uint}};
  EXPECT_EQ(argument(d), "fragment");
  EXPECT_NE(message(d).find("input location 1 (v_id) is not written by the vertex shader"), std::string::npos)
      << message(d);
}

// Hand-made reflections: what the two stages declare must agree where they overlap.
TEST(RenderChecks, StagesAgreeOnBindingsAndPushConstants) {
  ShaderSource v = shaders::test_render_basic_vert::source();
  ShaderSource f = shaders::test_render_basic_frag::source();
  v.reflection.bindings = {{0, 1, BindingKind::storage_buffer, true, "a"}};
  f.reflection.bindings = {{0, 1, BindingKind::uniform_buffer, true, "b"}};
  RenderPipelineDescriptor d = basic();
  d.vertex = &v;
  d.fragment = &f;
  EXPECT_EQ(argument(d), "fragment");
  EXPECT_NE(message(d).find("binding 1 (set 0) is a uniform_buffer (none) in the fragment shader and a storage_buffer (none)"),
            std::string::npos)
      << message(d);
  f.reflection.bindings = {{0, 1, BindingKind::storage_buffer, false, "b"}, {0, 4, BindingKind::storage_buffer, true, ""}};
  const ShaderReflection merged = core::plan_render_pipeline(d, full_limits()).reflection;
  ASSERT_EQ(merged.bindings.size(), 2u);
  EXPECT_FALSE(merged.bindings[0].read_only);  // the fragment stage writes it

  // vertex: offset [0, 8) and depth [8, 12); a fragment member [4, 8) straddles nothing but
  // overlaps offset with another extent.
  f.reflection.bindings.clear();
  f.reflection.push_constants = {{"scale", 4, 4}};
  f.reflection.push_constant_size = 8;
  EXPECT_EQ(argument(d), "push_constants");
  EXPECT_NE(message(d).find("member scale [4, 8) overlaps the vertex shader's offset [0, 8)"), std::string::npos)
      << message(d);
  f.reflection.push_constants = {{"depth", 8, 4}, {"extra", 12, 4}};
  f.reflection.push_constant_size = 16;
  const ShaderReflection pc = core::plan_render_pipeline(d, full_limits()).reflection;
  EXPECT_EQ(pc.push_constant_size, 16u);
  ASSERT_EQ(pc.push_constants.size(), 3u);
  EXPECT_EQ(pc.push_constants[2].name, "extra");
  core::RenderLimits l = full_limits();
  l.max_push_constants_bytes = 12;
  EXPECT_EQ(unsupported(d, l), "max_push_constants_bytes");

  // Bindings outside set 0 are not offered yet.
  f.reflection.bindings = {{1, 0, BindingKind::storage_buffer, true, ""}};
  EXPECT_EQ(unsupported(d), "descriptor_sets");
  // Textures: both stages must see one the same way (kind, view dimension, texel kind).
  v.reflection.bindings = {{0, 0, BindingKind::sampled_texture, true, "t"}};
  v.reflection.bindings[0].view_dimension = TextureViewDimension::d2;
  f.reflection.bindings = v.reflection.bindings;
  EXPECT_EQ(argument(d), "(nothing thrown)");
  f.reflection.bindings[0].view_dimension = TextureViewDimension::cube;
  EXPECT_EQ(argument(d), "fragment");
}

TEST(RenderChecks, DeviceLimits) {
  core::RenderLimits l = full_limits();
  l.graphics = false;
  EXPECT_EQ(unsupported(basic(), l), "graphics");
  l = full_limits();
  l.max_vertex_buffers = 1;
  EXPECT_EQ(unsupported(io(), l), "max_vertex_buffers");
  l = full_limits();
  l.max_vertex_attributes = 5;  // location 5 is past the limit
  EXPECT_EQ(unsupported(io(), l), "max_vertex_attributes");
  l = full_limits();
  l.max_vertex_stride = 16;
  EXPECT_EQ(unsupported(basic(), l), "max_vertex_stride");
  l = full_limits();
  l.max_color_attachments = 2;
  EXPECT_EQ(unsupported(io(), l), "max_color_attachments");
  l = full_limits();
  l.fragment_stores = false;  // render_io.frag writes binding 2
  EXPECT_EQ(unsupported(io(), l), "fragment_stores_and_atomics");
  EXPECT_EQ(unsupported(basic(), l), "(nothing thrown)");
  l = full_limits();
  ShaderSource v = shaders::test_render_basic_vert::source();
  v.reflection.features = ShaderFeature::float64;
  RenderPipelineDescriptor d = basic();
  d.vertex = &v;
  EXPECT_EQ(unsupported(d, l), "float64");
  // 16-bit vertex inputs need a feature the library does not enable.
  v.reflection.features = {};
  v.reflection.inputs[0].bits = 16;
  EXPECT_EQ(unsupported(d, l), "vertex_input_width");
}

TEST(RenderChecks, PointListsNeedPointSize) {
  RenderPipelineDescriptor d = basic();
  d.primitive.topology = PrimitiveTopology::point_list;
  EXPECT_EQ(argument(d), "primitive.topology");
  EXPECT_NE(message(d).find("writes gl_PointSize"), std::string::npos) << message(d);
  EXPECT_FALSE(shaders::test_render_basic_vert::source().reflection.writes_point_size);
  d = io();
  d.primitive.topology = PrimitiveTopology::point_list;
  EXPECT_TRUE(shaders::test_render_io_vert::source().reflection.writes_point_size);
  EXPECT_EQ(argument(d), "(nothing thrown)");
}

TEST(RenderChecks, TargetsDifferOnlyWithIndependentBlend) {
  core::RenderLimits l = full_limits();
  l.independent_blend = false;
  RenderPipelineDescriptor d = io();  // target 1 has write mask 0, the others 0xF
  EXPECT_EQ(unsupported(d, l), "independent_blend");
  for (ColorTargetState& t : d.targets) t.write_mask = 0;
  EXPECT_EQ(unsupported(d, l), "(nothing thrown)");  // every mask 0: alike
  d = basic();
  d.targets.push_back({.format = TextureFormat::rgba16_float, .write_mask = 0});
  d.targets[0].write_mask = 0;
  EXPECT_EQ(unsupported(d, l), "(nothing thrown)");
  d.targets[1].blend = BlendState{};
  EXPECT_EQ(unsupported(d, l), "independent_blend");
  EXPECT_EQ(unsupported(d), "(nothing thrown)");
}

TEST(RenderChecks, VertexFormatTable) {
  for (uint32_t i = 0; i < kVertexFormatCount; ++i) {
    const VertexFormatInfo f = vertex_format_info(static_cast<VertexFormat>(i));
    const std::string name = f.name;
    const uint32_t component_bytes = name.find("8x") != std::string::npos ? 1 : name.find("16") != std::string::npos ? 2 : 4;
    EXPECT_EQ(f.bytes, f.components * component_bytes) << name;
    const ComponentKind kind = name.rfind("uint", 0) == 0 ? ComponentKind::uint
                               : name.rfind("sint", 0) == 0 ? ComponentKind::sint
                                                            : ComponentKind::float_;
    EXPECT_EQ(f.kind, kind) << name;
  }
  EXPECT_STREQ(vertex_format_info(VertexFormat::snorm8x4).name, "snorm8x4");
  EXPECT_EQ(vertex_format_info(VertexFormat::float32x3).components, 3u);
}

}  // namespace
}  // namespace onegpu
