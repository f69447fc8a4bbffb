// onegpu/kernels/common.h - what every kernel family shares.
//
// A family (Gemm, ...) is created once from a Device and keeps the pipelines it builds the first
// time a variant is used. encode(...) records into the caller's CommandEncoder; every shape,
// stride, offset and size is checked in 64-bit arithmetic before anything is recorded, and a bad
// one throws KernelShapeError naming the operation and the argument. Once the bind group for a
// set of buffers is cached a call allocates nothing.
//
// Families are not thread-safe: use one from one thread at a time. A family must not outlive its
// device; destroying it releases its pipelines once the GPU is done with them.
#pragma once

#include <cstdint>
#include <memory>

namespace onegpu {
class Device;
}

namespace onegpu::kernels {

class KernelSet;  // the pipelines and bind groups of one family instance (internal)

// fast: any summation order the variant likes (matrix hardware, subgroup arithmetic).
// deterministic: a fixed order, no atomics, no subgroup arithmetic; two runs on one device and
// driver give identical bits.
enum class KernelMode { fast, deterministic };

// Bind groups are cached by buffer identity (and bound range); when a family has seen more than
// this many sets it drops them all and starts again (correct, only slower: a group already
// recorded, or about to be, stays alive until the GPU is done with it).
inline constexpr uint32_t kDefaultMaxCachedBindGroups = 1024;

// What every kernel family is: the pipelines it has built (each the first time a variant is
// used) and its cache of bind groups. Families derive from it; it is movable, not copyable.
class KernelFamily {
 public:
  // Drops every cached bind group now (pipelines stay).
  void release_bindings();
  // Bind groups built so far (never reset).
  uint64_t bind_groups_created() const;

 protected:
  KernelFamily(Device& device, uint32_t max_cached_bind_groups);
  ~KernelFamily();
  KernelFamily(KernelFamily&&) noexcept;
  KernelFamily& operator=(KernelFamily&&) noexcept;
  // Stays at one address for the family's life, moves included.
  KernelSet& kernels() const { return *kernels_; }

 private:
  std::unique_ptr<KernelSet> kernels_;
};

}  // namespace onegpu::kernels
