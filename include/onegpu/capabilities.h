// onegpu/capabilities.h - what a device can do, as data. Every value comes from the graphics
// API's own query on the adapter; zero means the API did not report it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "onegpu/format.h"
#include "onegpu/shader.h"
#include "onegpu/tensor.h"

namespace onegpu {

struct SubgroupOperations {
  bool basic = false, vote = false, arithmetic = false, ballot = false;
  bool shuffle = false, shuffle_relative = false, clustered = false, quad = false;
};


// One shape the device's matrix hardware runs at subgroup scope: C[M x N] += A[M x K] * B[K x N].
struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  DataType a = DataType::float16, b = DataType::float16;
  DataType c = DataType::float32, result = DataType::float32;
  bool saturating_accumulation = false;
};

// A workgroup-scope shape with flexible dimensions (VK_NV_cooperative_matrix2): any M, N, K that
// are multiples of the granularities, in workgroups of `workgroup_invocations`.
struct FlexibleCooperativeMatrixShape {
  uint32_t m_granularity = 0, n_granularity = 0, k_granularity = 0;
  DataType a = DataType::float16, b = DataType::float16;
  DataType c = DataType::float32, result = DataType::float32;
  bool saturating_accumulation = false;
  uint32_t workgroup_invocations = 0;
};

// What the device does with one texture format (optimal tiling). Every flag false for a format the
// device lacks.
struct FormatCapabilities {
  bool sampled = false;        // a sampled binding (texelFetch, nearest sampling)
  bool filterable = false;     // linear filtering (samplers, generate_mipmaps)
  bool storage = false;        // a storage binding (imageLoad / imageStore)
  bool render_target = false;  // a colour or depth/stencil attachment
  bool blendable = false;      // a colour attachment with blending
  bool multisample = false;    // sample_count 4 as a render target
  bool resolve = false;        // a resolve target of a 4-sample render pass (colour formats)
  bool blit = false;           // a filtered blit source and destination (generate_mipmaps)
  bool copy = false;           // a copy source and destination (write, read, copies)
};

// Texture limits and per-format capabilities (vkGetPhysicalDeviceFormatProperties and the limits).
struct TextureCapabilities {
  std::array<FormatCapabilities, kTextureFormatCount> formats{};  // indexed by TextureFormat
  const FormatCapabilities& format(TextureFormat f) const { return formats[static_cast<uint32_t>(f)]; }
  uint32_t max_texture_2d = 0;          // width and height of d2 and d2_array textures
  uint32_t max_texture_3d = 0;          // each extent of d3 textures
  uint32_t max_texture_cube = 0;        // width (= height) of cube textures
  uint32_t max_texture_layers = 0;      // layers of d2_array textures
  uint32_t max_sampler_anisotropy = 1;  // 1 when anisotropic filtering is not offered
  float max_sampler_lod_bias = 0;
  uint32_t sub_texel_precision_bits = 0;  // bits of the fraction of a texel coordinate in filtering
  uint32_t mipmap_precision_bits = 0;     // bits of the fraction between two mips
  bool depth24_stencil8 = false;          // the format exists at all
};

struct ComputeCapabilities {
  uint32_t subgroup_size = 0;
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  SubgroupOperations subgroup_operations;
  // Shader features the device supports (and enables at creation). Includes the subgroup
  // operation bits, full_subgroups and cooperative_matrix where available.
  FeatureSet features;
  bool full_subgroups = false;         // VK 1.3 computeFullSubgroups
  bool subgroup_size_control = false;  // a size can be pinned for compute
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;
  // Workgroup-scope matrices (feature cooperative_matrix2): shapes, the largest workgroup, and the
  // workgroup memory the driver reserves for them.
  std::vector<FlexibleCooperativeMatrixShape> cooperative_matrix_workgroup_shapes;
  uint32_t cooperative_matrix_workgroup_max_invocations = 0;
  uint32_t cooperative_matrix_workgroup_reserved_memory_bytes = 0;

  std::array<uint32_t, 3> max_workgroup_size{};
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_workgroup_memory_bytes = 0;
  uint32_t max_workgroup_subgroups = 0;  // maxComputeWorkgroupSubgroups
  uint32_t max_push_constants_bytes = 0;
  // The device runs the library's SPIR-V kernels (Vulkan). False where kernels are taken as WGSL
  // (WebGPU): the families then choose only variants whose WGSL the build generated, and one
  // without WGSL throws UnsupportedError "spirv_kernels".
  bool spirv_kernels = true;
  // A buffer bound writable in a dispatch may be used a second way too: bound to another of its
  // slots, read-only or writable over the same bytes, or read as its indirect arguments (Vulkan).
  // False on WebGPU, which refuses all three: a family binds a buffer of its own to a slot it leaves
  // unused, refuses with UnsupportedError (this capability) an input in the buffer an output is
  // written to, before recording anything, and leaves out paths whose dispatches read their grids
  // from a buffer they write.
  bool aliased_writable_bindings = true;

  uint64_t max_storage_buffer_range = 0;  // bytes one storage binding can see
  uint64_t max_uniform_buffer_range = 0;  // bytes one uniform binding can see
  uint64_t max_memory_allocation_size = 0;
  uint64_t max_buffer_size = 0;
  uint64_t min_storage_buffer_offset_alignment = 0;

  bool timestamps = false;
  double timestamp_period_ns = 0;  // nanoseconds per tick

  // The driver can report statistics of compiled kernels (registers, memory, instruction counts:
  // VK_KHR_pipeline_executable_properties); see DeviceOptions::kernel_statistics.
  bool kernel_statistics = false;

  // The operations a submission should carry at most before the encoder splits it (see
  // CommandEncoder::report_work); 0: no budget. 0 on Vulkan, where the driver sets no limit.
  uint64_t submission_work_budget = 0;

  // One line: "subgroup 32 (32..32), f16 i8 i16 i64 f64 dot coopmat(3), wg 1024, smem 48 KiB, ..."
  std::string describe() const;
};

}  // namespace onegpu
