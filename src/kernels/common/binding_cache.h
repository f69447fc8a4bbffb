// Bind groups cached by kernel and buffer identity (and bound range), for every family.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>

#include "onegpu/device.h"

namespace onegpu::kernels {

class BindingCache {
 public:
  static constexpr size_t kMaxBindings = 8;  // the 8-bit products bind eight (A, B, C, two zero points, scale, two biases)

  explicit BindingCache(uint32_t max_groups) : max_groups_(max_groups == 0 ? 1 : max_groups) {}

  // The group binding `buffers` to `kernel`, built on first use. Builds allocate; hits do not.
  // The caller shares ownership: an eviction (when the cache is full) never destroys a group that
  // a caller still holds, so a family may bind several groups before it records them.
  std::shared_ptr<const BindGroup> get(Device& device, const ComputeKernel& kernel,
                                       std::span<const BufferBinding> buffers);
  void clear() { groups_.clear(); }
  uint64_t created() const { return created_; }

 private:
  using Key = std::array<uint64_t, 1 + 3 * kMaxBindings>;
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };
  uint32_t max_groups_;
  uint64_t created_ = 0;
  std::unordered_map<Key, std::shared_ptr<const BindGroup>, KeyHash> groups_;
};

}  // namespace onegpu::kernels
