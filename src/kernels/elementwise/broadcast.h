// Broadcasting decisions without a GPU: the output shape, per-operand strides, merging of
// dimensions and the kernel path.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace onegpu::kernels::elementwise {

inline constexpr uint32_t kMaxInputRank = 8;
inline constexpr uint32_t kMaxMergedRank = 6;

struct Layout {
  uint32_t rank = 0;           // merged dimensions, the last fastest
  uint64_t shape[kMaxMergedRank] = {};
  uint64_t stride[3][kMaxMergedRank] = {};  // per operand, 0 where broadcast
  uint64_t count = 0;          // output elements
  uint32_t operands = 0;
  uint32_t out_rank = 0;                   // the broadcast shape, unmerged
  std::array<int64_t, kMaxInputRank> out_shape{};
  std::array<uint64_t, 3> operand_elements{};  // elements each operand reaches from its offset
};

// Throws KernelShapeError(operation, ...) for ranks over 8, negative dimensions, element counts
// beyond 64 bits or 2^31 - 1, shapes that do not broadcast, or more than 6 dimensions after
// merging. `strides[k]`, when present and not empty, are operand k's element strides (one per
// dimension, non-negative; argument "strides" otherwise); else the operand is dense row-major.
// 0 to 3 operands; allocates nothing.
Layout broadcast(const char* operation, std::span<const std::span<const int64_t>> shapes,
                 std::span<const std::span<const int64_t>> strides = {});

// 0: every operand walks the output in order; 1: two dimensions from the grid, no division (a
// single broadcast dimension becomes one row); 2: general.
uint32_t path(Layout& l, uint64_t elements_per_word, uint64_t out_offset, uint64_t max_rows);

// Which operand types a variant fixes at compile time (type codes OG_T_* of elementwise_push.h):
// 1 when every operand and the output are single 32-bit words (float32 for the float group 0,
// int32 for the integer group 3, any 32-bit type for Where, group 1); 2 for int64 in the Where and
// integer groups; 0 (types read from the push constants) otherwise.
uint32_t fixed_types(uint32_t group, uint32_t in_code, uint32_t out_code);

}  // namespace onegpu::kernels::elementwise
