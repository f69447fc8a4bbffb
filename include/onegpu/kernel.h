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
// UnsupportedError before creating anything. Move-only; destroyed once the GPU is done with it.
class ComputeKernel {
 public:
  ComputeKernel() = default;
  explicit ComputeKernel(std::shared_ptr<backend::Kernel> impl);
  explicit operator bool() const { return impl_ != nullptr; }
  const ShaderReflection& reflection() const;
  const std::string& label() const;
  // The driver's statistics, read when the kernel was created; empty unless the device was opened
  // with DeviceOptions::kernel_statistics (or ONEGPU_KERNEL_STATISTICS=1) and supports them.
  const std::vector<KernelStatistic>& statistics() const;
  backend::Kernel& impl() const;

 private:
  std::shared_ptr<backend::Kernel> impl_;
};

// The buffers bound to a kernel's bindings (a descriptor set on Vulkan). Made once per set of
// buffers and reused for any number of dispatches; holds no ownership of the buffers, which must
// outlive every submission that uses the group.
class BindGroup {
 public:
  BindGroup() = default;
  explicit BindGroup(std::shared_ptr<backend::BindGroup> impl);
  explicit operator bool() const { return impl_ != nullptr; }
  backend::BindGroup& impl() const;

 private:
  std::shared_ptr<backend::BindGroup> impl_;
};

}  // namespace onegpu
