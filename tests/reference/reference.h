// Float64 references for every kernel family, the scaled-error measure and the tolerance table.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "onegpu/kernels/gemm.h"
#include "onegpu/kernels/unary.h"
#include "onegpu/numeric.h"
#include "onegpu/tensor.h"

namespace onegpu::reference {

// The limits the specification asserts, per input type (max|gpu - ref| / max|ref|). Float16 and
// bfloat16 inputs are first rounded to their type, so what remains is float32 accumulation and
// the output's rounding; the limits leave room for the worst-conditioned sums the tests make.
struct Tolerance {
  static constexpr double float32 = 1e-5;
  static constexpr double float16 = 2e-3;
  static constexpr double bfloat16 = 8e-3;
  // Float types by the element type of the inputs (integer results are compared exactly).
  static double of(DataType t) { return t == DataType::float32 ? float32 : t == DataType::float16 ? float16 : bfloat16; }
};

// max|gpu - ref| / max|ref| over the elements where `mask` is true (all when empty). NaN in gpu
// where ref is finite gives infinity.
double scaled_error(std::span<const float> gpu, std::span<const double> ref, std::span<const uint8_t> mask = {});

// The value a float becomes when stored as `t` (float32, float16 or bfloat16; others unchanged).
float round_to(DataType t, float v);

// Every unary function of kernels/unary.h in float64, as the specification defines it (NaN stays
// NaN where the shaders keep it: relu, erf, hard_sigmoid, hard_swish, clip).
double unary(kernels::UnaryOp op, kernels::UnaryParams params, double x);
inline double unary(const kernels::UnaryFunction& f, double x) { return unary(f.op, f.params, x); }

// C = f(alpha * op(A) op(B) + beta * C + bias) over the problem, in float64, in place on `c`.
// `a` and `b` are the operands' values (already rounded to their type).
void gemm(const kernels::GemmProblem& p, std::span<const double> a, std::span<const double> b,
          std::span<double> c, std::span<const double> bias = {}, const kernels::UnaryFunction& f = {});

// Which elements of a C buffer of `size` elements the problem writes.
std::vector<uint8_t> gemm_written(const kernels::GemmProblem& p, size_t size);

}  // namespace onegpu::reference
