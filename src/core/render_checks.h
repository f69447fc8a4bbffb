// Decisions about render pipelines that need no GPU: whether a descriptor fits its shaders and the
// device, and the merged reflection of its two stages. Plain functions over plain structs, tested
// without a device (tests/unit/render_checks_test.cpp).
#pragma once

#include <array>
#include <cstdint>

#include "onegpu/format.h"
#include "onegpu/render.h"
#include "onegpu/shader.h"

namespace onegpu::core {

// What a device offers a format as a render target.
struct RenderFormatSupport {
  bool color_attachment = false;
  bool blendable = false;
  bool depth_attachment = false;
  uint32_t sample_counts = 0;  // bit n set: 2^n samples
};

// The device's render limits and format support (the Vulkan backend reads them from the physical
// device: format features, sample counts and the vertex-input limits).
struct RenderLimits {
  bool graphics = false;  // the device's queue runs graphics work
  std::array<RenderFormatSupport, kTextureFormatCount> formats{};
  uint32_t max_vertex_buffers = 0;
  uint32_t max_vertex_attributes = 0;
  uint32_t max_vertex_stride = 0;
  uint32_t max_color_attachments = 0;
  uint32_t max_push_constants_bytes = 0;
  FeatureSet features;  // the shader features the device supports
  bool vertex_stores = false;    // vertexPipelineStoresAndAtomics: a vertex shader may write buffers
  bool fragment_stores = false;  // fragmentStoresAndAtomics: a fragment shader may write buffers
  bool independent_blend = false;  // targets may differ in blending and write mask
};

struct RenderPipelinePlan {
  // Bindings of both stages (sorted, merged), the larger push-constant block with the members of
  // both, stage vertex, the vertex shader's inputs and the fragment shader's outputs.
  ShaderReflection reflection;
};

// Every check of render.h's contract except the modules' structure (core::check_spirv_structure,
// which needs the words). Throws KernelShapeError (operation "create_render_pipeline") or
// UnsupportedError.
RenderPipelinePlan plan_render_pipeline(const RenderPipelineDescriptor& d, const RenderLimits& limits);

}  // namespace onegpu::core
