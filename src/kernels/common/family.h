// What every kernel family's host code shares: pipelines built on first use, the bind-group
// cache (KernelFamily owns one KernelSet), and the checks on tensors in buffers.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "kernels/common/binding_cache.h"
#include "kernels/common/variant.h"
#include "onegpu/device.h"
#include "onegpu/kernels/common.h"
#include "onegpu/shader.h"

namespace onegpu::kernels {

class KernelSet {
 public:
  KernelSet(Device& device, uint32_t max_cached_bind_groups) : device_(&device), cache_(max_cached_bind_groups) {}

  Device& device() const { return *device_; }
  const ComputeCapabilities& caps() const { return device_->capabilities(); }
  // The pipeline for `name`, built from `source` the first time. A lookup allocates nothing.
  const ComputeKernel& kernel(std::string_view name, const ShaderSource& source, const KernelOptions& options = {});
  // The pipeline of a declared variant (UnsupportedError when the build could not compile it, or
  // the device cannot run it).
  const ComputeKernel& kernel(const Variant& variant, const KernelOptions& options = {});
  std::shared_ptr<const BindGroup> bind(const ComputeKernel& kernel, std::span<const BufferBinding> buffers) {
    return cache_.get(*device_, kernel, buffers);
  }
  BindingCache& cache() { return cache_; }

 private:
  Device* device_;
  BindingCache cache_;
  std::map<std::string, ComputeKernel, std::less<>> kernels_;
};

// Subgroup arithmetic the fast reductions may use: basic, vote and arithmetic operations in
// compute shaders, and no subgroup narrower than 4.
bool subgroup_reductions(const ComputeCapabilities& caps);

// Throws KernelShapeError(operation, argument) unless `count` elements of `element_bytes` from
// element `offset` lie inside the buffer (64-bit arithmetic).
void check_elements(const char* operation, const char* argument, const RawBuffer& buffer, uint64_t offset,
                    uint64_t count, uint64_t element_bytes);

// A family's buffers by binding slot, narrowed to the bindings a kernel declares, in its order (at
// most 8: BindingCache::kMaxBindings). Slot i serves binding i. Allocates nothing.
struct DeclaredBindings {
  std::array<BufferBinding, BindingCache::kMaxBindings> list;
  size_t count = 0;
  std::span<const BufferBinding> span() const { return {list.data(), count}; }
};
DeclaredBindings declared_bindings(const ComputeKernel& kernel, std::span<const BufferBinding> slots);

// Throws UnsupportedError when the buffer is larger than one storage binding, and
// KernelShapeError when an element offset does not fit the kernels' 32-bit indices.
void check_bindable(const char* operation, const RawBuffer& buffer, const ComputeCapabilities& caps);

}  // namespace onegpu::kernels
