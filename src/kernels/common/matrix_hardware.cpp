#include "kernels/common/matrix_hardware.h"

namespace onegpu::kernels {

ScalarType matrix_element_type(DataType type) {
  switch (type) {
    case DataType::float32: return ScalarType::float32;
    case DataType::float16: return ScalarType::float16;
    case DataType::bfloat16: return ScalarType::bfloat16;
    case DataType::int32: return ScalarType::int32;
    case DataType::uint32: return ScalarType::uint32;
    case DataType::int64: return ScalarType::int64;
    case DataType::int8: return ScalarType::int8;
    case DataType::uint8: return ScalarType::uint8;
    case DataType::boolean: break;
  }
  return ScalarType::unknown;
}

namespace {

template <class Shape>
bool types_match(const Shape& s, MatrixTypes t) {
  const ScalarType in = matrix_element_type(t.input), acc = matrix_element_type(t.accumulator);
  return in != ScalarType::unknown && acc != ScalarType::unknown && s.a == in && s.b == in && s.c == acc &&
         s.result == acc;
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
