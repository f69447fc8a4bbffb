#include "kernels/elementwise/broadcast.h"

#include <algorithm>
#include <string>

#include "elementwise/elementwise_push.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::elementwise {

Layout broadcast(const char* op, std::span<const std::span<const int64_t>> shapes) {
  Layout l;
  size_t rank = 0;
  for (auto s : shapes) {
    if (s.size() > kMaxInputRank) throw KernelShapeError(op, "shape", "rank " + std::to_string(s.size()) + " is above 8");
    rank = std::max(rank, s.size());
  }
  l.out_rank = uint32_t(rank);
  l.operands = uint32_t(shapes.size());
  for (size_t i = 0; i < rank; ++i) l.out_shape[i] = 1;
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto s = shapes[k];
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t d = s[i];
      if (d < 0) throw KernelShapeError(op, "shape", "dimension " + std::to_string(i) + " is negative");
      int64_t& o = l.out_shape[rank - s.size() + i];
      if (d == o || d == 1) continue;
      if (o == 1) o = d;
      else
        throw KernelShapeError(op, "shape", "dimension " + std::to_string(rank - s.size() + i) + ": " +
                                                std::to_string(o) + " and " + std::to_string(d) + " do not broadcast");
    }
  }
  l.count = 1;
  for (size_t i = 0; i < rank; ++i) l.count *= uint64_t(l.out_shape[i]);
  if (l.count >= (1ull << 31)) throw KernelShapeError(op, "shape", "more than 2^31 - 1 elements");
  // Per-operand strides over the output's dimensions.
  uint64_t strides[3][kMaxInputRank] = {};
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto s = shapes[k];
    uint64_t stride = 1;
    for (size_t i = s.size(); i-- > 0;) {
      strides[k][rank - s.size() + i] = s[i] == 1 ? 0 : stride;
      stride *= uint64_t(s[i]);
    }
    l.operand_elements[k] = stride;
  }
  // Drop size-1 dimensions, merge neighbours every operand walks contiguously.
  uint64_t shape[kMaxInputRank];
  uint64_t st[3][kMaxInputRank];
  size_t n = 0;
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t d = uint64_t(l.out_shape[i]);
    if (d == 1) continue;
    bool merge = n > 0;
    for (size_t k = 0; merge && k < shapes.size(); ++k) merge = st[k][n - 1] == strides[k][i] * d;
    if (merge) {
      shape[n - 1] *= d;
      for (size_t k = 0; k < shapes.size(); ++k) st[k][n - 1] = strides[k][i];
    } else {
      shape[n] = d;
      for (size_t k = 0; k < shapes.size(); ++k) st[k][n] = strides[k][i];
      ++n;
    }
  }
  if (n == 0) {  // a single element (or none)
    shape[0] = l.count;
    for (size_t k = 0; k < shapes.size(); ++k) st[k][0] = 1;
    n = 1;
  }
  if (n > kMaxMergedRank)
    throw KernelShapeError(op, "shape", std::to_string(n) + " dimensions remain after merging, at most 6");
  l.rank = uint32_t(n);
  for (size_t i = 0; i < n; ++i) {
    l.shape[i] = shape[i];
    for (size_t k = 0; k < shapes.size(); ++k) l.stride[k][i] = st[k][i];
  }
  return l;
}

uint32_t path(Layout& l, uint64_t per_word, uint64_t out_offset, uint64_t max_rows) {
  bool in_order = l.rank == 1;
  for (uint32_t k = 0; k < l.operands; ++k) in_order = in_order && l.stride[k][0] == 1;
  if (in_order) return 0;
  if (l.rank == 1) {  // a broadcast scalar: one row
    l.rank = 2;
    l.shape[1] = l.shape[0];
    l.shape[0] = 1;
    for (uint32_t k = 0; k < 3; ++k) {
      l.stride[k][1] = l.stride[k][0];
      l.stride[k][0] = 0;
    }
  }
  // Rows of at least 256 words (one word per invocation of a workgroup) go two-dimensional;
  // narrower rows would leave most of each row's workgroup idle.
  if (l.rank == 2 && out_offset % per_word == 0 && l.shape[1] % per_word == 0 && l.shape[1] / per_word >= 256 &&
      l.shape[0] <= max_rows)
    return 1;
  return 2;
}

uint32_t fixed_types(uint32_t group, uint32_t in_code, uint32_t out_code) {
  const bool word32 = [](uint32_t t) { return t == OG_T_F32 || t == OG_T_I32 || t == OG_T_U32; }(in_code);
  if (group == 0) return in_code == OG_T_F32 && out_code == OG_T_F32 ? 1 : 0;
  if (group == 1) return word32 ? 1 : in_code == OG_T_I64 ? 2 : 0;
  if (group == 3 && in_code == out_code) return in_code == OG_T_I32 ? 1 : in_code == OG_T_I64 ? 2 : 0;
  return 0;
}

}  // namespace onegpu::kernels::elementwise
