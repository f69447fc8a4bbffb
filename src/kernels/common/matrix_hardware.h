// Choosing matrix hardware (cooperative matrices) for a kernel family: whether the device lists
// the shape a variant is written for, and trying variants in order until the device accepts one.
// The checks are plain functions over ComputeCapabilities, tested without a GPU; any family with
// matrix-hardware variants (GEMM, attention, convolution) decides with them, never by vendor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "onegpu/capabilities.h"
#include "onegpu/errors.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels {

// The element types of C += A * B on matrix hardware: A and B are `input`, C and the result
// `accumulator`.
struct MatrixTypes {
  DataType input = DataType::float16;
  DataType accumulator = DataType::float32;
};

// Whether the device lists the subgroup-scope shape M x N x K (VK_KHR_cooperative_matrix) of these
// types.
bool has_subgroup_matrix_shape(const ComputeCapabilities& caps, uint32_t m, uint32_t n, uint32_t k, MatrixTypes types);

// Whether the device has workgroup-scope matrices with flexible dimensions (the cooperative_matrix2
// feature) in workgroups of `invocations`, with a shape of these types for that workgroup size
// whose granularities divide a BM x BN x BK tile.
bool has_workgroup_matrix_shape(const ComputeCapabilities& caps, uint32_t invocations, uint32_t bm, uint32_t bn,
                                uint32_t bk, MatrixTypes types);

// Tries `candidates` in order: the first for which `make(candidate)` returns (it builds the
// candidate's pipeline, which checks the variant's own requirements against the device) wins, and
// its index is returned; UnsupportedError moves on to the next (the build lacks the variant, or the
// device rejects it); nullopt when none is accepted. Other exceptions propagate.
template <class T, class Make>
std::optional<size_t> first_accepted(std::span<const T> candidates, Make&& make) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      make(candidates[i]);
      return i;
    } catch (const UnsupportedError&) {
    }
  }
  return std::nullopt;
}

}  // namespace onegpu::kernels
