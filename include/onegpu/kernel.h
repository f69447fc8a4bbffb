// onegpu/kernel.h - compute kernels built from shader reflection, and the buffer sets they bind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onegpu/shader.h"

namespace onegpu {

namespace backend { class Kernel; class BindGroup; }

struct KernelOptions {
  // Every subgroup of every workgroup is full. Set automatically for kernels whose reflection
  // lists full_subgroups (every cooperative-matrix kernel).
  bool require_full_subgroups = false;
  // Pin the subgroup width (0: the driver chooses). Needs subgroup size control, or a device
  // whose only size is this one.
  uint32_t required_subgroup_size = 0;
};

// One figure the driver reports for a compiled kernel (VK_KHR_pipeline_executable_properties),
// under the driver's own names: for example "Register Count" or "Local Memory Size" on NVIDIA.
struct KernelStatistic {
  std::string executable;   // the compiled program it describes (a driver may report several)
  std::string name;
  std::string description;
  double value = 0;         // booleans read 0 or 1
};

// A compute pipeline. Created by Device::create_compute_kernel, which first checks the shader
// against the device (workgroup size and memory, features, subgroup requirements) and throws
// UnsupportedError before creating anything (a texture binding whose view dimension, storage
// format or texel kind the library does not bind is refused: "texture_view_dimension",
// "storage_texture_format", "texture_texel_kind"). Move-only; the pipeline is destroyed once the
// GPU has finished every submission that uses it.
class ComputeKernel {
 public:
  ComputeKernel() = default;
  explicit ComputeKernel(std::shared_ptr<backend::Kernel> impl);
  ComputeKernel(ComputeKernel&&) noexcept = default;
  ComputeKernel& operator=(ComputeKernel&&) noexcept = default;
  ComputeKernel(const ComputeKernel&) = delete;
  ComputeKernel& operator=(const ComputeKernel&) = delete;
  ~ComputeKernel() = default;

  explicit operator bool() const { return impl_ != nullptr; }
  const ShaderReflection& reflection() const;
  const std::string& label() const;
  // The driver's statistics, read when the kernel was created; empty unless the device was opened
  // with DeviceOptions::kernel_statistics (or ONEGPU_KERNEL_STATISTICS=1) and supports them.
  const std::vector<KernelStatistic>& statistics() const;
  // Workgroup memory the compiled kernel uses, in bytes: the driver's own figure where its
  // statistics give one (a statistic named "Shared Memory Size", as NVIDIA reports; needs
  // statistics, see above), else the size the shader declares (reflection().workgroup_memory_bytes).
  // A driver's figure can exceed the declared size (padding, memory it reserves).
  uint32_t reported_workgroup_memory_bytes() const;
  backend::Kernel& impl() const;

 private:
  std::shared_ptr<backend::Kernel> impl_;
};

// The buffers, textures and samplers bound to a kernel's bindings (a descriptor set on Vulkan).
// Made once and reused for any number of dispatches. Move-only. The group refers to its buffers
// and textures without owning them (a cache of groups never keeps memory alive): dispatching a
// group one of whose buffers or textures was destroyed throws UsageError; it holds its samplers. Once a dispatch is recorded, the encoder keeps
// the group and its buffers alive until the submission has finished.
class BindGroup {
 public:
  BindGroup() = default;
  explicit BindGroup(std::shared_ptr<backend::BindGroup> impl);
  BindGroup(BindGroup&&) noexcept = default;
  BindGroup& operator=(BindGroup&&) noexcept = default;
  BindGroup(const BindGroup&) = delete;
  BindGroup& operator=(const BindGroup&) = delete;
  ~BindGroup() = default;

  explicit operator bool() const { return impl_ != nullptr; }
  backend::BindGroup& impl() const;

 private:
  std::shared_ptr<backend::BindGroup> impl_;
};

}  // namespace onegpu
