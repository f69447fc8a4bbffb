// onegpu/render.h - render pipelines: vertex and fragment shaders with the fixed-function state
// that joins them (vertex buffer layouts, primitive assembly, blending, depth test, multisampling).
//
// The names follow webgpu.h (WGPURenderPipelineDescriptor and its members). A pipeline is built
// for colour and depth formats, not for particular textures: any render pass whose attachments
// have those formats and sample count can use it. Viewport and scissor are set per pass, not baked
// into the pipeline.
//
// Checks: Device::create_render_pipeline checks the descriptor against both shaders' reflection
// and the device before anything reaches the driver, and throws
// - KernelShapeError (operation "create_render_pipeline", argument naming the field, e.g.
//   "buffers[1].attributes[0]", "targets[0]", "vertex", "fragment") for a descriptor that does not
//   fit its shaders: a vertex input no attribute feeds (or two do), an attribute of the wrong kind
//   or too few components, attributes outside the stride or sharing a location, a fragment output
//   without a target or of the wrong kind, a target the shader does not write with a non-zero
//   write mask, a depth format that is not one, a module of the wrong stage or malformed, stages
//   that disagree on a binding (kind, texture view dimension, texel kind, storage format,
//   combined sampler) or on the push-constant block;
// - UnsupportedError (capability, expected, actual) for what the device lacks or a limit it sets:
//   a sample count other than 1 or 4, or one the format does not offer; a colour format it cannot
//   render to or blend; more vertex buffers, attributes or colour targets than it allows.
// Thread safety: as for every other Device method. Lifetime: a pipeline must not outlive its device;
// the encoder keeps a pipeline it records alive until the submission has finished.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "onegpu/texture.h"
#include "onegpu/format.h"
#include "onegpu/shader.h"

namespace onegpu {

namespace backend { class RenderPipeline; }

// The layout of one vertex attribute in its buffer: component type and count.
enum class VertexFormat : uint8_t {
  float32, float32x2, float32x3, float32x4,
  uint32, uint32x2, uint32x3, uint32x4,
  sint32, sint32x2, sint32x3, sint32x4,
  unorm8x4, snorm8x4, uint8x4, float16x2, float16x4,
};
inline constexpr uint32_t kVertexFormatCount = 17;

struct VertexFormatInfo {
  const char* name;      // "float32x3"
  uint32_t bytes;        // size in the buffer
  uint32_t components;
  ComponentKind kind;    // what the shader reads: unorm/snorm/float formats read as floats
};
VertexFormatInfo vertex_format_info(VertexFormat format);

enum class VertexStepMode : uint8_t { vertex, instance };

struct VertexAttribute {
  VertexFormat format = VertexFormat::float32x4;
  uint64_t offset = 0;    // bytes from the start of the element; a multiple of min(4, format size)
  uint32_t location = 0;  // the vertex shader input it feeds (one the shader does not read is ignored)
};

// One vertex buffer slot: its stride (bytes between elements; a multiple of 4, 0 reads one
// element for every vertex or instance) and the attributes read from it.
struct VertexBufferLayout {
  uint64_t stride = 0;
  VertexStepMode step_mode = VertexStepMode::vertex;
  std::vector<VertexAttribute> attributes;
};

enum class PrimitiveTopology : uint8_t { point_list, line_list, line_strip, triangle_list, triangle_strip };
enum class CullMode : uint8_t { none, front, back };
// Which winding is front-facing, in framebuffer coordinates (y down, as in Vulkan and WebGPU).
enum class FrontFace : uint8_t { ccw, cw };

struct PrimitiveState {
  PrimitiveTopology topology = PrimitiveTopology::triangle_list;
  FrontFace front_face = FrontFace::ccw;
  CullMode cull_mode = CullMode::none;
};

enum class BlendFactor : uint8_t {
  zero, one, src, one_minus_src, src_alpha, one_minus_src_alpha, dst, one_minus_dst, dst_alpha,
  one_minus_dst_alpha, src_alpha_saturated, constant, one_minus_constant,
};
enum class BlendOperation : uint8_t { add, subtract, reverse_subtract, min, max };

// result = src * src_factor (operation) dst * dst_factor; min and max ignore the factors.
struct BlendComponent {
  BlendOperation operation = BlendOperation::add;
  BlendFactor src_factor = BlendFactor::one;
  BlendFactor dst_factor = BlendFactor::zero;
};
struct BlendState {
  BlendComponent color;
  BlendComponent alpha;
};

// Bits of ColorTargetState::write_mask.
inline constexpr uint8_t kColorWriteRed = 1, kColorWriteGreen = 2, kColorWriteBlue = 4, kColorWriteAlpha = 8;
inline constexpr uint8_t kColorWriteAll = 0xF;

// Fragment output `location` i writes targets[i]. The output's kind must be the format's
// (float outputs for unorm, srgb and float formats; uint for r32_uint) with at least the format's
// components. A target the shader does not write must have write_mask 0.
struct ColorTargetState {
  TextureFormat format = TextureFormat::rgba8_unorm;
  std::optional<BlendState> blend;  // none: the output replaces the target
  uint8_t write_mask = kColorWriteAll;
};

struct DepthStencilState {
  TextureFormat format = TextureFormat::depth32_float;
  bool depth_write = true;
  CompareFunction depth_compare = CompareFunction::less;
};

struct MultisampleState {
  uint32_t count = 1;  // 1 or 4
};

// `vertex` and `fragment` must stay valid during the call only. The pipeline's name is `label`,
// or the vertex shader's name when empty.
struct RenderPipelineDescriptor {
  const ShaderSource* vertex = nullptr;
  std::vector<VertexBufferLayout> buffers;       // slot i is set_vertex_buffer(i, ...)
  const ShaderSource* fragment = nullptr;        // null: depth only (no targets; depth_stencil set)
  std::vector<ColorTargetState> targets;
  PrimitiveState primitive;
  std::optional<DepthStencilState> depth_stencil;
  MultisampleState multisample;
  std::string label;
};

// A render pipeline (a VkPipeline with dynamic rendering). Move-only. reflection() merges both
// stages: the bindings of either (a binding both use is read-only only if both only read it), and
// the larger push-constant block (push constants are visible to both stages).
class RenderPipeline {
 public:
  RenderPipeline() = default;
  explicit RenderPipeline(std::shared_ptr<backend::RenderPipeline> impl);
  RenderPipeline(RenderPipeline&&) noexcept = default;
  RenderPipeline& operator=(RenderPipeline&&) noexcept = default;
  RenderPipeline(const RenderPipeline&) = delete;
  RenderPipeline& operator=(const RenderPipeline&) = delete;
  ~RenderPipeline() = default;

  explicit operator bool() const { return impl_ != nullptr; }
  // The merged bindings and push constants; stage is vertex, inputs the vertex shader's, outputs
  // the fragment shader's.
  const ShaderReflection& reflection() const;
  const std::string& label() const;
  backend::RenderPipeline& impl() const;

 private:
  std::shared_ptr<backend::RenderPipeline> impl_;
};

}  // namespace onegpu
