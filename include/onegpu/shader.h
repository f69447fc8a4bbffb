// onegpu/shader.h - compiled shaders (compute, vertex, fragment) and what their SPIR-V says.
//
// A ShaderSource is SPIR-V plus the reflection the device needs to build a pipeline: the stage,
// the buffer and texture bindings, the push-constant block, the workgroup size and memory (compute),
// the vertex inputs (vertex) or colour outputs (fragment), and the features the module declares. The library's own kernels get theirs generated at build
// time (see cmake/OnegpuShaders.cmake); your own shaders can use the same CMake function, or
// call reflect_spirv() at run time on a module you compiled yourself.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "onegpu/format.h"

namespace onegpu {

// Features a shader module can require. Each maps to one or more SPIR-V capabilities; the device
// checks them against its ComputeCapabilities before anything is created.
enum class ShaderFeature : uint32_t {
  float16 = 1u << 0,
  float64 = 1u << 1,
  int8 = 1u << 2,
  int16 = 1u << 3,
  int64 = 1u << 4,
  storage_buffer_8bit = 1u << 5,
  storage_buffer_16bit = 1u << 6,
  integer_dot_product = 1u << 7,
  bfloat16 = 1u << 8,
  cooperative_matrix = 1u << 9,
  // Every subgroup of a workgroup is full. Implied by cooperative_matrix (below SPIR-V 1.6 the
  // pipeline has to ask for it).
  full_subgroups = 1u << 10,
  subgroup_basic = 1u << 11,
  subgroup_vote = 1u << 12,
  subgroup_arithmetic = 1u << 13,
  subgroup_ballot = 1u << 14,
  subgroup_shuffle = 1u << 15,
  subgroup_shuffle_relative = 1u << 16,
  subgroup_clustered = 1u << 17,
  subgroup_quad = 1u << 18,
  // Workgroup-scope cooperative matrices with flexible dimensions, tensor addressing,
  // per-element operations and reductions (VK_NV_cooperative_matrix2).
  cooperative_matrix2 = 1u << 19,
};

// A set of ShaderFeature bits.
class FeatureSet {
 public:
  constexpr FeatureSet() = default;
  constexpr FeatureSet(ShaderFeature f) : bits_(static_cast<uint32_t>(f)) {}  // NOLINT(implicit)
  constexpr static FeatureSet from_bits(uint32_t bits) { FeatureSet s; s.bits_ = bits; return s; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr bool has(ShaderFeature f) const { return (bits_ & static_cast<uint32_t>(f)) != 0; }
  constexpr bool contains(FeatureSet o) const { return (bits_ & o.bits_) == o.bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr FeatureSet& operator|=(FeatureSet o) { bits_ |= o.bits_; return *this; }
  constexpr friend FeatureSet operator|(FeatureSet a, FeatureSet b) { a |= b; return a; }
  constexpr friend FeatureSet operator-(FeatureSet a, FeatureSet b) {
    return from_bits(a.bits_ & ~b.bits_);
  }
  constexpr friend bool operator==(FeatureSet, FeatureSet) = default;
  // Names of the features in the set, e.g. "float16, subgroup_arithmetic".
  std::string to_string() const;

 private:
  uint32_t bits_ = 0;
};

// The name a feature is reported under ("float16", "cooperative_matrix", ...).
const char* feature_name(ShaderFeature f);

// What a binding holds.
enum class BindingKind : uint8_t {
  storage_buffer,
  uniform_buffer,
  sampled_texture,  // a sampled image, alone or combined with its sampler
  storage_texture,  // a storage image
  sampler,
};
// "storage_buffer", "uniform_buffer", "sampled_texture", "storage_texture", "sampler".
const char* binding_kind_name(BindingKind kind);

// How a texture binding views its texture (OpTypeImage's Dim and Arrayed). `other` covers what
// the library does not bind (1-D, rectangle, buffer, subpass images, cube arrays): a kernel with
// such a binding is refused at creation (UnsupportedError "texture_view_dimension").
enum class TextureViewDimension : uint8_t { none, d2, d2_array, cube, d3, other };
// "none", "d2", "d2_array", "cube", "d3", "other".
const char* view_dimension_name(TextureViewDimension d);

struct ShaderBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  BindingKind kind = BindingKind::storage_buffer;
  bool read_only = false;   // every member is NonWritable (always true for uniform buffers,
                            // sampled textures and samplers; for a storage texture, the variable
                            // is NonWritable: GLSL readonly)
  std::string name;         // the block's instance name, when the module kept names
  // Texture bindings only (sampled_texture, storage_texture):
  TextureViewDimension view_dimension = TextureViewDimension::none;
  bool multisampled = false;     // sampler2DMS / texture2DMS
  // What the shader reads: float_ (sampler2D, image2D), uint_ (usampler2D, uimage2D), sint_
  // (isampler2D) or depth (a shadow sampler: sampler2DShadow, depth comparison).
  TexelKind texel_kind = TexelKind::float_;
  // Storage textures: the format the shader declares (layout(rgba8) -> rgba8_unorm, r32f ->
  // r32_float, rgba16f, rgba32f, r16f, r8, rg8, r32ui); nothing for formats the library has no
  // TextureFormat for (such a kernel is refused at creation, UnsupportedError
  // "storage_texture_format").
  std::optional<TextureFormat> storage_format;
  bool combined_sampler = false;  // a sampled texture that carries its sampler (GLSL sampler2D)
};

struct PushConstantMember {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
};

// The pipeline stage of an entry point (its SPIR-V execution model).
enum class ShaderStage : uint8_t { compute, vertex, fragment };
// "compute", "vertex", "fragment".
const char* shader_stage_name(ShaderStage stage);

// The numeric kind of a stage input or output's components.
enum class ComponentKind : uint8_t { float_, sint, uint };
// "float", "sint", "uint".
const char* component_kind_name(ComponentKind kind);

// One user-defined input or output of a vertex or fragment entry point (built-ins such as
// gl_Position or gl_VertexIndex are not listed). A matrix or array input takes consecutive
// locations and is listed once per location.
struct StageVariable {
  uint32_t location = 0;
  ComponentKind kind = ComponentKind::float_;
  uint32_t bits = 32;        // 16 or 32 (64-bit inputs are listed with 64)
  uint32_t components = 1;   // 1 to 4
  std::string name;          // when the module kept names
  uint32_t matrix_column = 0;  // which column of a matrix input this location holds (0 otherwise)
};

struct ShaderReflection {
  ShaderStage stage = ShaderStage::compute;     // the entry point's execution model
  std::vector<ShaderBinding> bindings;          // sorted by (set, binding)
  uint32_t push_constant_size = 0;              // bytes; 0 when the shader has no block
  std::vector<PushConstantMember> push_constants;
  std::array<uint32_t, 3> local_size{1, 1, 1};  // LocalSize, or LocalSizeId's default values
  uint32_t workgroup_memory_bytes = 0;          // sum of the Workgroup-storage variables
  FeatureSet features;                          // what the declared capabilities need
  uint32_t spirv_version = 0;                   // 0x00010600 for SPIR-V 1.6
  // Vertex and fragment stages: the entry point's user-defined inputs and outputs, sorted by
  // location. A vertex shader's inputs are its vertex attributes; a fragment shader's outputs
  // are its colour targets.
  std::vector<StageVariable> inputs;
  std::vector<StageVariable> outputs;
  // Vertex stage: the entry point's module stores to gl_PointSize (a point list needs it).
  bool writes_point_size = false;
};

// How WGSL reads its push constants on the WebGPU backend: from a uniform buffer (hand-written
// WGSL), or from a read-only storage buffer (the WGSL the build generates from GLSL: a storage
// buffer keeps the C++ struct's 4-byte array strides, which a uniform buffer would round up to 16).
// Either way it is binding 0 of the group after the highest set the bindings use, one 256-byte
// slot bound with a dynamic offset.
enum class WgslPushConstants : uint8_t { uniform, read_only_storage };

// SPIR-V words and their reflection. `spirv` must stay valid while the source is used to create
// kernels (the generated sources point at static arrays).
struct ShaderSource {
  std::string name;
  std::span<const uint32_t> spirv;
  // The kernel in WGSL, for the WebGPU backend (which takes SPIR-V too, where its Dawn reads it).
  // `reflection` must describe it: the WGSL has no reflection of its own here. Its push
  // constants, if any, are a uniform buffer at binding 0 of the group after the highest set the
  // bindings use (docs/webgpu.md). The Vulkan backend ignores it and needs `spirv`.
  std::string wgsl;
  WgslPushConstants wgsl_push_constants = WgslPushConstants::uniform;
  std::string entry_point = "main";
  ShaderReflection reflection;
};

// Reads the reflection out of a SPIR-V module for its entry point named `entry_point`, whatever
// its stage (GLCompute, Vertex or Fragment: the stage is recorded in ShaderReflection::stage).
// Throws std::invalid_argument when the words are not a SPIR-V module or have no compute,
// vertex or fragment entry point of that name. Which stage a module must be is checked where it
// is used: create_compute_kernel refuses a vertex module, create_render_pipeline a compute one.
ShaderReflection reflect_spirv(std::span<const uint32_t> words, const std::string& entry_point = "main");

}  // namespace onegpu
