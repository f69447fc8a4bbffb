// Layout decisions that need no GPU: each operation becomes a copy (the output's shape and, per
// source, a signed stride for every output dimension), the copy's dimensions are merged
// (kernels/common/merge.h), and the merged copy picks its variant, grid and push constants.
// Every check is made here, before anything is recorded; encode adds only the buffers' checks.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "layout/layout_push.h"
#include "kernels/common/operand.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels::layout {

inline constexpr uint32_t kMaxRank = 8;
inline constexpr uint32_t kMaxMergedRank = OG_LAYOUT_MAX_RANK;
inline constexpr uint32_t kMaxSources = OG_LAYOUT_MAX_SOURCES;

// The shader a pass runs: layout.copy.*, layout.tiled.*, layout.rows.*.
enum class Algorithm : uint32_t { copy = 0, tiled = 1, rows = 2 };

using kernels::Operand;
using kernels::operand_of;

// A copy before merging. Output element (c_0, ..., c_{rank-1}) of the dense output comes from the
// source s whose range along dimension `sel`, [lo[s], lo[s + 1]) (the last up to sel_end), holds
// c_sel, at element offset[s] + sum (c_d - (d == sel ? lo[s] : 0)) * stride[s][d].
struct Copy {
  uint32_t rank = 0;
  uint64_t shape[kMaxRank] = {};
  uint32_t sources = 1;
  int64_t offset[kMaxSources] = {};
  int64_t stride[kMaxSources][kMaxRank] = {};
  int32_t sel = -1;  // -1: one source covers everything
  uint64_t lo[kMaxSources] = {};
  uint64_t sel_end = 0;
  uint32_t input[kMaxSources] = {};  // concat: the input each source is
  // An output that is not dense (one input's block of a concat): its element strides. Only the
  // row copy writes such outputs.
  bool strided_out = false;
  int64_t out_stride[kMaxRank] = {};
};

// One dispatch.
struct Pass {
  Algorithm algorithm = Algorithm::copy;
  uint32_t width = 32;  // element bits
  uint32_t rank = 1;    // merged
  uint64_t shape[kMaxMergedRank] = {};
  uint32_t sel = 0;
  uint32_t sources = 1;
  int64_t offset[kMaxSources] = {};  // lo taken out
  int64_t stride[kMaxSources][kMaxMergedRank] = {};
  uint64_t lo[kMaxSources] = {};
  uint64_t sel_end = 0;
  uint64_t count = 0;  // output elements
  uint64_t out_offset = 0;
  uint64_t workgroups = 0;
  uint32_t input[kMaxSources] = {};
  int64_t out_stride[kMaxMergedRank] = {};  // the output's strides (dense unless the copy's are not)
  uint32_t tile_p = 0;  // tiled: the output dimension along which the source is contiguous
  bool empty() const { return count == 0; }
};

// Sources one copy pass can take at a merged rank (the push constants hold 14 strides).
constexpr uint32_t sources_per_pass(uint32_t rank) {
  const uint32_t fit = OG_LAYOUT_STRIDES / (rank == 0 ? 1 : rank);
  return fit < kMaxSources ? fit : kMaxSources;
}

// Elements an operand reaches from its offset: 1 + sum (n - 1) x stride, 0 when it is empty.
// Checks the strides (one per dimension, non-negative; argument "strides") and that the extent
// fits 64 bits.
uint64_t reach(const char* operation, const char* argument, const Operand& x);

// The copies of the operations. Each checks ranks (at most 8), types (output's equal to the
// input's, argument "output" or the input's name), shapes and counts (below 2^31), and throws
// KernelShapeError(operation, argument, ...).
Copy transpose_copy(const Operand& x, std::span<const int64_t> perm, const Operand& out);
Copy slice_copy(const Operand& x, std::span<const int64_t> starts, std::span<const int64_t> ends,
                std::span<const int64_t> axes, std::span<const int64_t> steps, const Operand& out);
Copy expand_copy(const Operand& x, const Operand& out);
// Checks every input against the output and returns the concat axis (non-negative).
uint32_t concat_check(std::span<const TensorRef> inputs, int64_t axis, const Operand& out);
// The copy of inputs from `first` on (skipping empty ones), at most `max_sources` of them; `next`
// is set to the first input it does not take (inputs.size() when done).
Copy concat_copy(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t first, size_t& next,
                 uint32_t max_sources);

// Input k's block of the output as a row copy with a strided output (algorithm rows), or a pass
// whose algorithm is not rows when its rows are not whole aligned vectors. Empty for an empty
// input.
Pass concat_block(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t k);
// Whether every non-empty input's block is a row copy (and there is at least one).
bool concat_by_blocks(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out);

// Merges the copy's dimensions (at most 6 may remain) and picks the algorithm and the grid.
Pass plan(const char* operation, const Copy& copy, DataType type, uint64_t out_offset);

// The output shapes (static helpers of the public class): the rank, the shape in `shape`.
// transpose_shape also gives x's dimension for each output dimension in `order`.
uint32_t transpose_shape(std::span<const int64_t> x_shape, std::span<const int64_t> perm, int64_t* shape,
                         int64_t* order = nullptr);
uint32_t slice_shape(std::span<const int64_t> x_shape, std::span<const int64_t> starts, std::span<const int64_t> ends,
                     std::span<const int64_t> axes, std::span<const int64_t> steps, int64_t* shape,
                     int64_t* first = nullptr, int64_t* step = nullptr);
uint32_t expand_shape(std::span<const int64_t> x_shape, std::span<const int64_t> shape, int64_t* out);

// The next concat pass from input `first` on: as many inputs as the merged rank lets one pass
// take (four for dense inputs). An empty pass when no input from `first` on has elements.
Pass concat_pass(std::span<const TensorRef> inputs, uint32_t axis, const Operand& out, size_t first, size_t& next);

LayoutCopyPush copy_push(const Pass& pass);
LayoutTilePush tile_push(const Pass& pass);
LayoutRowsPush rows_push(const Pass& pass);

}  // namespace onegpu::kernels::layout
