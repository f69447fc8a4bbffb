#include "kernels/common/family.h"

#include "onegpu/errors.h"

namespace onegpu::kernels {

KernelFamily::KernelFamily(Device& device, uint32_t max_cached_bind_groups)
    : kernels_(std::make_unique<KernelSet>(device, max_cached_bind_groups)) {}
KernelFamily::~KernelFamily() = default;
KernelFamily::KernelFamily(KernelFamily&&) noexcept = default;
KernelFamily& KernelFamily::operator=(KernelFamily&&) noexcept = default;
void KernelFamily::release_bindings() { kernels_->cache().clear(); }
uint64_t KernelFamily::bind_groups_created() const { return kernels_->cache().created(); }

const ComputeKernel& KernelSet::kernel(std::string_view name, const ShaderSource& source, const KernelOptions& options) {
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return it->second;
  return kernels_.emplace(std::string(name), device_->create_compute_kernel(source, std::string(name), options))
      .first->second;
}

const ComputeKernel& KernelSet::kernel(const Variant& variant, const KernelOptions& options) {
  // A device that takes no SPIR-V (WebGPU) runs only the variants the build translated to WGSL.
  if (!caps().spirv_kernels && variant.built() && !variant.has_wgsl())
    throw UnsupportedError("spirv_kernels", std::string(variant.name()) + " (SPIR-V only: it has no WGSL)",
                           "WGSL kernels only");
  return kernel(variant.name(), variant.source(), options);
}

bool subgroup_reductions(const ComputeCapabilities& caps) {
  const SubgroupOperations& o = caps.subgroup_operations;
  return o.basic && o.vote && o.arithmetic && caps.min_subgroup_size >= 4;
}

void check_elements(const char* operation, const char* argument, const RawBuffer& buffer, uint64_t offset,
                    uint64_t count, uint64_t element_bytes) {
  if (!buffer) throw KernelShapeError(operation, argument, "the buffer is empty");
  const uint64_t capacity = buffer.size_bytes() / element_bytes;
  if (offset > capacity || count > capacity - offset)
    throw KernelShapeError(operation, argument,
                           "needs " + std::to_string(count) + " elements from offset " + std::to_string(offset) +
                               ", the buffer holds " + std::to_string(capacity));
}

void check_bindable(const char* operation, const RawBuffer& buffer, const ComputeCapabilities& caps) {
  if (buffer.size_bytes() > caps.max_storage_buffer_range)
    throw UnsupportedError("max_storage_buffer_range",
                           std::string(operation) + " buffer of " + std::to_string(buffer.size_bytes()) + " bytes",
                           std::to_string(caps.max_storage_buffer_range));
}

DeclaredBindings declared_bindings(const ComputeKernel& kernel, std::span<const BufferBinding> slots) {
  DeclaredBindings b{{slots[0], slots[0], slots[0], slots[0], slots[0], slots[0], slots[0], slots[0]}, 0};
  for (const ShaderBinding& sb : kernel.reflection().bindings) b.list[b.count++] = slots[sb.binding];
  return b;
}

}  // namespace onegpu::kernels
