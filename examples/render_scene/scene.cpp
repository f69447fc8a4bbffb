#include "scene.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "scene_frag.h"
#include "scene_vert.h"

namespace scene {

using namespace onegpu;

namespace {

constexpr Vec3 kEye{0.0f, 2.6f, 5.2f};
constexpr Vec3 kCenter{0.0f, 1.0f, 0.0f};
constexpr float kFogColour[3] = {0.62f, 0.70f, 0.80f};
constexpr uint32_t kTextureSize = 256;

Mat4 view() { return look_at(kEye, kCenter, {0, 1, 0}); }

}  // namespace

Scene::Draw Scene::draw_for(const Mat4& model, float aspect, const float tint[3]) {
  const Mat4 model_view = view() * model;
  Draw d{};
  d.model_view_projection = perspective(0.8f, aspect, 0.1f, 60.0f) * model_view;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) d.model_view_rows[r][c] = model_view.at(r, c);
  d.tint[0] = tint[0];
  d.tint[1] = tint[1];
  d.tint[2] = tint[2];
  d.tint[3] = 1;
  return d;
}

Scene::Scene(Device& device, TextureFormat color_format, uint32_t sample_count)
    : device_(device), format_(color_format), samples_(sample_count) {
  pipeline_ = device.create_render_pipeline({
      .vertex = &shaders::scene_vert::source(),
      .buffers = {{.stride = sizeof(Vertex),
                   .attributes = {{.format = VertexFormat::float32x3, .offset = 0, .location = 0},
                                  {.format = VertexFormat::float32x3, .offset = 12, .location = 1},
                                  {.format = VertexFormat::float32x2, .offset = 24, .location = 2}}}},
      .fragment = &shaders::scene_frag::source(),
      .targets = {{.format = color_format}},
      // The torus is closed: its inside faces are never seen, so they are culled. Its triangles
      // wind clockwise on screen when seen from outside (the projection flips y).
      .primitive = {.front_face = FrontFace::cw, .cull_mode = CullMode::back},
      .depth_stencil = DepthStencilState{.format = TextureFormat::depth32_float},
      .multisample = {.count = sample_count},
      .label = "scene",
  });

  const Mesh torus_mesh = torus(1.0f, 0.4f, 96, 48);
  const Mesh floor_mesh = floor_quad(40.0f, 0.0f);
  torus_vertices_ = device.create_buffer(torus_mesh.vertices);
  torus_index_buffer_ = device.create_buffer(torus_mesh.indices);
  floor_vertices_ = device.create_buffer(floor_mesh.vertices);
  floor_index_buffer_ = device.create_buffer(floor_mesh.indices);
  torus_indices_ = uint32_t(torus_mesh.indices.size());
  floor_indices_ = uint32_t(floor_mesh.indices.size());

  // A checkerboard with every mip generated on the device, sampled trilinearly (and anisotropically
  // where the device offers it): the floor's far squares blend into grey instead of shimmering.
  const uint8_t light_square[4] = {235, 235, 230, 255}, dark_square[4] = {70, 72, 84, 255};
  const std::vector<uint8_t> texels = checker_rgba8(kTextureSize, 8, dark_square, light_square);
  const uint32_t mips = uint32_t(std::log2(double(kTextureSize))) + 1;
  albedo_ = device.create_texture({.format = TextureFormat::rgba8_unorm, .width = kTextureSize,
                                   .height = kTextureSize, .mip_levels = mips,
                                   .usage = TextureUsage::sampled | TextureUsage::copy_dst | TextureUsage::copy_src,
                                   .label = "checker"});
  albedo_.write({.mip = 0}, std::as_bytes(std::span<const uint8_t>(texels)));
  {
    CommandEncoder enc = device.begin_commands();
    enc.generate_mipmaps(albedo_);
    device.submit(enc);
  }
  anisotropy_ = uint16_t(std::min<uint32_t>(16, device.texture_capabilities().max_sampler_anisotropy));
  sampler_ = device.create_sampler({.address_u = AddressMode::repeat, .address_v = AddressMode::repeat,
                                    .address_w = AddressMode::repeat, .mag_filter = FilterMode::linear,
                                    .min_filter = FilterMode::linear, .mipmap_filter = FilterMode::linear,
                                    .max_anisotropy = anisotropy_, .label = "checker"});

  // The light, in eye space (the shader lights eye-space normals).
  const Vec3 towards_light = normalize({-0.5f, 1.0f, 0.7f});
  const Mat4 v = view();
  const Vec3 eye_dir{v.at(0, 0) * towards_light.x + v.at(0, 1) * towards_light.y + v.at(0, 2) * towards_light.z,
                     v.at(1, 0) * towards_light.x + v.at(1, 1) * towards_light.y + v.at(1, 2) * towards_light.z,
                     v.at(2, 0) * towards_light.x + v.at(2, 1) * towards_light.y + v.at(2, 2) * towards_light.z};
  light_ = device.create_buffer(std::vector<float>{
      eye_dir.x, eye_dir.y, eye_dir.z, 0,                   // direction
      0.85f, 0.82f, 0.75f, 0,                               // colour
      0.22f, 0.24f, 0.30f, 0,                               // ambient
      kFogColour[0], kFogColour[1], kFogColour[2], 0.045f,  // fog colour, density
  });
  group_ = device.create_bind_group(pipeline_, {light_, TextureBinding{.texture = &albedo_, .sampler = &sampler_}});
}

void Scene::ensure_targets(uint32_t width, uint32_t height) {
  if (width == width_ && height == height_) return;
  if (samples_ > 1)
    color_ = device_.create_texture({.format = format_, .width = width, .height = height, .sample_count = samples_,
                                     .usage = TextureUsage::render_target, .label = "scene colour"});
  depth_ = device_.create_texture({.format = TextureFormat::depth32_float, .width = width, .height = height,
                                   .sample_count = samples_, .usage = TextureUsage::render_target,
                                   .label = "scene depth"});
  width_ = width;
  height_ = height;
}

void Scene::record_pass(CommandEncoder& encoder, const Texture& target, const std::function<void(RenderPass&)>& draw) {
  const TextureDescriptor& d = target.descriptor();
  ensure_targets(d.width, d.height);
  const Color clear{kFogColour[0], kFogColour[1], kFogColour[2], 1};
  RenderPassColorAttachment colour{.clear_value = clear};
  if (samples_ > 1) {
    colour.texture = &color_;
    colour.store_op = StoreOp::discard;  // only the resolved image is kept
    colour.resolve_target = &target;
  } else {
    colour.texture = &target;
  }
  RenderPass pass = encoder.begin_render_pass(
      {.color_attachments = {colour},
       .depth_attachment = RenderPassDepthAttachment{.texture = &depth_, .depth_store_op = StoreOp::discard},
       .label = "scene"});
  pass.set_pipeline(pipeline_);
  pass.set_bind_group(group_);
  draw(pass);
  pass.end();
}

void Scene::record(CommandEncoder& encoder, const Texture& target, float angle) {
  const float aspect = float(target.descriptor().width) / float(target.descriptor().height);
  record_pass(encoder, target, [&](RenderPass& pass) {
    const float floor_tint[3] = {0.75f, 0.85f, 1.0f};
    pass.set_push_constants(draw_for(Mat4::identity(), aspect, floor_tint));
    pass.set_vertex_buffer(0, floor_vertices_);
    pass.set_index_buffer(floor_index_buffer_, IndexFormat::uint32);
    pass.draw_indexed(floor_indices_);

    const float torus_tint[3] = {1.0f, 0.55f, 0.22f};
    const Mat4 model = translation({0, 1.45f, 0}) * rotation_y(angle) * rotation_x(1.0f);
    pass.set_push_constants(draw_for(model, aspect, torus_tint));
    pass.set_vertex_buffer(0, torus_vertices_);
    pass.set_index_buffer(torus_index_buffer_, IndexFormat::uint32);
    pass.draw_indexed(torus_indices_);
  });
}

}  // namespace scene
