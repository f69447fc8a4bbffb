// The rendered scene shared by the render-scene example and the rendering benchmark: a lit,
// textured torus over a checkered floor, drawn with a depth test into a 4-sample colour target
// that resolves into a 1-sample texture (an offscreen image or a window's swapchain image).
#pragma once

#include <cstdint>
#include <functional>

#include "onegpu/onegpu.h"
#include "scene_math.h"

namespace scene {

class Scene {
 public:
  // Builds the pipeline for `color_format` (rgba8_unorm offscreen, the surface's format in a window)
  // and `sample_count` (4, or 1), the meshes, the mipmapped texture (its mips generated on the
  // device) and the light's uniform buffer. Uploads run before the next submission.
  Scene(onegpu::Device& device, onegpu::TextureFormat color_format, uint32_t sample_count = 4);

  // Records one frame into `target` (a 1-sample texture of the scene's colour format with usage
  // render_target): the torus turned by `angle` radians. The multisampled colour and depth targets
  // follow the target's size (recreated when it changes).
  void record(onegpu::CommandEncoder& encoder, const onegpu::Texture& target, float angle);

  // Begins the scene's render pass into `target` (cleared to the fog colour, depth cleared), sets
  // the pipeline and bind group, lets `draw` record into it, and ends it. record() draws the floor
  // and the torus this way; the benchmark records its own draws.
  void record_pass(onegpu::CommandEncoder& encoder, const onegpu::Texture& target,
                   const std::function<void(onegpu::RenderPass&)>& draw);

  uint32_t sample_count() const { return samples_; }
  uint32_t draws_per_frame() const { return 2; }
  uint64_t triangles_per_frame() const { return (torus_indices_ + floor_indices_) / 3; }
  uint16_t anisotropy() const { return anisotropy_; }
  const onegpu::RenderPipeline& pipeline() const { return pipeline_; }

  // The push constants of one draw (scene_draw.glsl), 128 bytes.
  struct Draw {
    Mat4 model_view_projection;
    float model_view_rows[3][4];
    float tint[4];
  };
  static_assert(sizeof(Draw) == 128);
  // The push constants for drawing an object placed by `model` seen from the scene's camera.
  static Draw draw_for(const Mat4& model, float aspect, const float tint[3]);

 private:
  void ensure_targets(uint32_t width, uint32_t height);

  onegpu::Device& device_;
  onegpu::TextureFormat format_;
  uint32_t samples_;
  onegpu::RenderPipeline pipeline_;
  onegpu::Buffer<Vertex> torus_vertices_, floor_vertices_;
  onegpu::Buffer<uint32_t> torus_index_buffer_, floor_index_buffer_;
  uint32_t torus_indices_ = 0, floor_indices_ = 0;
  onegpu::Texture albedo_;
  onegpu::Sampler sampler_;
  uint16_t anisotropy_ = 1;
  onegpu::Buffer<float> light_;
  onegpu::BindGroup group_;
  onegpu::Texture color_, depth_;  // the multisampled colour target (sample_count > 1) and depth
  uint32_t width_ = 0, height_ = 0;
};

}  // namespace scene
