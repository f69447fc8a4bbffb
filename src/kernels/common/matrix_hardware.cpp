#include "kernels/common/matrix_hardware.h"

namespace onegpu::kernels {

namespace {

template <class Shape>
bool types_match(const Shape& s, MatrixTypes t) {
  return s.a == t.input && s.b == t.input && s.c == t.accumulator && s.result == t.accumulator;
}

}  // namespace

bool has_subgroup_matrix_shape(const ComputeCapabilities& caps, uint32_t m, uint32_t n, uint32_t k, MatrixTypes types) {
  for (const CooperativeMatrixShape& s : caps.cooperative_matrix_shapes)
    if (s.m == m && s.n == n && s.k == k && types_match(s, types)) return true;
  return false;
}

bool has_workgroup_matrix_shape(const ComputeCapabilities& caps, uint32_t invocations, uint32_t bm, uint32_t bn,
                                uint32_t bk, MatrixTypes types) {
  if (!caps.features.has(ShaderFeature::cooperative_matrix2) ||
      caps.cooperative_matrix_workgroup_max_invocations < invocations)
    return false;
  for (const FlexibleCooperativeMatrixShape& s : caps.cooperative_matrix_workgroup_shapes)
    if (types_match(s, types) && s.workgroup_invocations == invocations && s.m_granularity > 0 &&
        s.n_granularity > 0 && s.k_granularity > 0 && bm % s.m_granularity == 0 && bn % s.n_granularity == 0 &&
        bk % s.k_granularity == 0)
      return true;
  return false;
}

}  // namespace onegpu::kernels
