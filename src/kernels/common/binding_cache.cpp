#include "kernels/common/binding_cache.h"

#include <stdexcept>

namespace onegpu::kernels {

size_t BindingCache::KeyHash::operator()(const Key& k) const noexcept {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t v : k) h = (h ^ v) * 1099511628211ull;
  return static_cast<size_t>(h);
}

std::shared_ptr<const BindGroup> BindingCache::get(Device& device, const ComputeKernel& kernel, std::span<const BufferBinding> buffers) {
  if (buffers.size() > kMaxBindings) throw std::logic_error("BindingCache: too many bindings");
  Key key{};
  key[0] = reinterpret_cast<uint64_t>(&kernel.impl());
  for (size_t i = 0; i < buffers.size(); ++i) {
    key[1 + 3 * i] = buffers[i].buffer->id();
    key[2 + 3 * i] = buffers[i].offset_bytes;
    key[3 + 3 * i] = buffers[i].size_bytes;
  }
  auto it = groups_.find(key);
  if (it != groups_.end()) return it->second;
  if (groups_.size() >= max_groups_) groups_.clear();
  auto group = std::make_shared<const BindGroup>(device.create_bind_group(kernel, buffers));
  ++created_;
  groups_.emplace(key, group);
  return group;
}

}  // namespace onegpu::kernels
