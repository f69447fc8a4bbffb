// Decisions that need no GPU: whether a kernel can run on a device, whether a set of buffer
// ranges fits a kernel's bindings, whether a grid fits the limits. Plain functions over plain
// structs, tested without a device.
#pragma once

#include <cstdint>
#include <span>

#include "onegpu/capabilities.h"
#include "onegpu/encoder.h"
#include "onegpu/kernel.h"
#include "onegpu/shader.h"

namespace onegpu::core {

// How the pipeline must be created once the checks pass.
struct KernelPlan {
  bool full_subgroups = false;
  uint32_t pinned_subgroup_size = 0;  // 0: do not chain a required size (none, or fixed width)
};

// Throws UnsupportedError naming the first requirement the device does not meet.
KernelPlan plan_kernel(const ShaderReflection& shader, const KernelOptions& options,
                       const ComputeCapabilities& caps);

struct BindingRange {
  uint64_t buffer_bytes = 0;  // size of the whole buffer
  uint64_t offset = 0;
  uint64_t size = 0;          // 0: to the end
};

// Resolves size 0 to "rest of the buffer" in place and checks count, bounds, alignment and the
// storage range. Throws KernelShapeError (operation "bind") or UnsupportedError.
void check_bindings(const ShaderReflection& shader, std::span<BindingRange> ranges,
                    const ComputeCapabilities& caps);

// Throws UnsupportedError when a dimension exceeds max_workgroup_count.
void check_grid(const Grid& grid, const ComputeCapabilities& caps);

// Checks [offset, offset + bytes) lies inside a buffer of `size` bytes (64-bit, overflow-safe);
// throws KernelShapeError(operation, argument).
void check_range(const char* operation, const char* argument, uint64_t offset, uint64_t bytes,
                 uint64_t size);

}  // namespace onegpu::core
