// Float64 references for reductions, softmax and normalisation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "onegpu/kernels/reduce.h"

namespace onegpu::reference {

// Row-major over the kept dimensions; arg ops give the index into the reduced dimensions
// (flattened row-major), first occurrence, NaN the extreme.
std::vector<double> reduce(kernels::ReduceOp op, std::span<const double> x, std::span<const int64_t> shape,
                           std::span<const int64_t> axes);
std::vector<double> softmax(std::span<const double> x, std::span<const int64_t> shape, int64_t axis, bool log);
std::vector<double> layer_norm(std::span<const double> x, uint64_t len, std::span<const double> scale,
                               std::span<const double> bias, double epsilon, bool rms);

}  // namespace onegpu::reference
