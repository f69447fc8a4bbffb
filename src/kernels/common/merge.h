// Merging of tensor dimensions without a GPU, shared by the families that walk an output with
// several strided operands (element-wise broadcasting, the layout copies).
#pragma once

#include <cstdint>
#include <span>

namespace onegpu::kernels {

inline constexpr uint32_t kMergeMaxRank = 8;
inline constexpr uint32_t kMergeMaxOperands = 4;

// Dimensions after merging, the last fastest; stride[k][i] is operand k's signed element stride.
struct MergedDims {
  uint32_t rank = 0;
  uint64_t shape[kMergeMaxRank] = {};
  int64_t stride[kMergeMaxOperands][kMergeMaxRank] = {};
  int32_t kept = -1;  // the merged position of dimension `keep`, or -1
};

// Drops the size-1 dimensions of `shape` and merges each dimension into the one before it when
// every operand steps over it contiguously (stride[i - 1] == stride[i] * shape[i]). Dimension
// `keep` (when not negative) is neither dropped nor merged with a neighbour. A shape of only
// size-1 dimensions gives rank 0. `strides` holds one span per operand (at most 4), each of
// shape.size() strides (at most 8 dimensions); allocates nothing.
MergedDims merge_dims(std::span<const uint64_t> shape, std::span<const std::span<const int64_t>> strides,
                      int32_t keep = -1);

}  // namespace onegpu::kernels
