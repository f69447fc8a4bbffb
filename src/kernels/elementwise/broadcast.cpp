#include "kernels/elementwise/broadcast.h"

#include <algorithm>
#include <string>

#include "elementwise/elementwise_push.h"
#include "kernels/common/merge.h"
#include "onegpu/errors.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels::elementwise {

namespace {

// a * b + c in 64 bits, or KernelShapeError when it does not fit.
uint64_t checked_mul_add(const char* op, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t p = 0, r = 0;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &r))
    throw KernelShapeError(op, "strides", "an operand's extent does not fit 64 bits");
  return r;
}

}  // namespace

Layout broadcast(const char* op, std::span<const std::span<const int64_t>> shapes,
                 std::span<const std::span<const int64_t>> given_strides) {
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
  for (auto s : shapes) onegpu::element_count(s, op, "shape");
  l.count = onegpu::element_count(std::span<const int64_t>(l.out_shape.data(), rank), op, "shape");
  if (l.count >= (1ull << 31)) throw KernelShapeError(op, "shape", "more than 2^31 - 1 elements");
  // Per-operand strides over the output's dimensions (0 where broadcast), and the elements each
  // operand reaches: 1 + the sum of (size - 1) x stride, 0 when it is empty.
  uint64_t strides[3][kMaxInputRank] = {};
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto s = shapes[k];
    const std::span<const int64_t> given = k < given_strides.size() ? given_strides[k] : std::span<const int64_t>();
    if (!given.empty() && given.size() != s.size())
      throw KernelShapeError(op, "strides", std::to_string(given.size()) + " strides for rank " + std::to_string(s.size()));
    uint64_t stride = 1, last = 0;
    bool empty = false;
    for (size_t i = s.size(); i-- > 0;) {
      if (!given.empty() && given[i] < 0)
        throw KernelShapeError(op, "strides", "stride " + std::to_string(i) + " is negative (" + std::to_string(given[i]) + ")");
      const uint64_t st = given.empty() ? stride : uint64_t(given[i]);
      strides[k][rank - s.size() + i] = s[i] == 1 ? 0 : st;
      empty = empty || s[i] == 0;
      if (s[i] > 1) last = checked_mul_add(op, uint64_t(s[i] - 1), st, last);
      if (given.empty()) stride *= uint64_t(s[i]);  // cannot wrap: the count was checked
    }
    l.operand_elements[k] = empty ? 0 : checked_mul_add(op, 1, 1, last);
  }
  // Drop size-1 dimensions, merge neighbours every operand walks contiguously.
  uint64_t dims[kMaxInputRank];
  int64_t signed_strides[3][kMaxInputRank];
  std::span<const int64_t> operand_strides[3];
  for (size_t i = 0; i < rank; ++i) dims[i] = uint64_t(l.out_shape[i]);
  for (size_t k = 0; k < shapes.size(); ++k) {
    for (size_t i = 0; i < rank; ++i) signed_strides[k][i] = int64_t(strides[k][i]);  // below 2^63: checked above
    operand_strides[k] = std::span<const int64_t>(signed_strides[k], rank);
  }
  const MergedDims merged = merge_dims(std::span<const uint64_t>(dims, rank), std::span(operand_strides, shapes.size()));
  uint64_t shape[kMaxInputRank];
  uint64_t st[3][kMaxInputRank];
  size_t n = merged.rank;
  for (size_t i = 0; i < n; ++i) {
    shape[i] = merged.shape[i];
    for (size_t k = 0; k < shapes.size(); ++k) st[k][i] = uint64_t(merged.stride[k][i]);
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
