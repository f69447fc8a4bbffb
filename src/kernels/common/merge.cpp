#include "kernels/common/merge.h"

namespace onegpu::kernels {

MergedDims merge_dims(std::span<const uint64_t> shape, std::span<const std::span<const int64_t>> strides,
                      int32_t keep) {
  MergedDims m;
  const size_t operands = strides.size();
  bool last_kept = false;  // the previous merged dimension is `keep`
  for (size_t i = 0; i < shape.size(); ++i) {
    const uint64_t d = shape[i];
    const bool is_kept = int32_t(i) == keep;
    if (d == 1 && !is_kept) continue;
    bool merge = m.rank > 0 && !is_kept && !last_kept;
    for (size_t k = 0; merge && k < operands; ++k) {
      int64_t step = 0;
      merge = !__builtin_mul_overflow(strides[k][i], int64_t(d), &step) && m.stride[k][m.rank - 1] == step;
    }
    if (merge) {
      m.shape[m.rank - 1] *= d;
      for (size_t k = 0; k < operands; ++k) m.stride[k][m.rank - 1] = strides[k][i];
    } else {
      m.shape[m.rank] = d;
      for (size_t k = 0; k < operands; ++k) m.stride[k][m.rank] = strides[k][i];
      if (is_kept) m.kept = int32_t(m.rank);
      ++m.rank;
    }
    last_kept = is_kept;
  }
  return m;
}

}  // namespace onegpu::kernels
