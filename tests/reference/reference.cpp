#include "reference/reference.h"

#include <algorithm>

#include "support/parity_report.h"

namespace onegpu::reference {

double scaled_error(std::span<const float> gpu, std::span<const double> ref, std::span<const uint8_t> mask) {
  double max_ref = 0, max_diff = 0;
  size_t compared = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!mask.empty() && !mask[i]) continue;
    ++compared;
    max_ref = std::max(max_ref, std::abs(ref[i]));
    double d = std::abs(double(gpu[i]) - ref[i]);
    if (std::isnan(d)) max_diff = std::numeric_limits<double>::infinity();
    else max_diff = std::max(max_diff, d);
  }
  const double error = max_ref == 0 || std::isinf(max_diff) ? max_diff : max_diff / max_ref;
  testing::report_parity(error, compared);
  return error;
}

float round_to(DataType t, float v) {
  switch (t) {
    case DataType::float16: return to_float(to_float16(v));
    case DataType::bfloat16: return to_float(to_bfloat16(v));
    default: return v;
  }
}

double unary(kernels::UnaryOp op, kernels::UnaryParams params, double x) {
  using kernels::UnaryOp;
  const double alpha = params.alpha, beta = params.beta;
  const double sqrt_half = std::sqrt(0.5);
  switch (op) {
    case UnaryOp::identity: return x;
    case UnaryOp::relu: return std::isnan(x) ? x : std::max(x, 0.0);
    // x Phi(x); through erfc on the negative side, where 1 + erf(x) cancels.
    case UnaryOp::gelu_erf: return x >= 0 ? 0.5 * x * (1 + std::erf(x * sqrt_half)) : 0.5 * x * std::erfc(-x * sqrt_half);
    case UnaryOp::gelu_tanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case UnaryOp::neg: return -x;
    case UnaryOp::abs: return std::abs(x);
    case UnaryOp::sqrt: return std::sqrt(x);
    case UnaryOp::reciprocal: return 1 / x;
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::erf: return std::erf(x);
    case UnaryOp::sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::silu: return x / (1 + std::exp(-x));
    case UnaryOp::hard_sigmoid: return std::isnan(x) ? x : std::clamp(alpha * x + beta, 0.0, 1.0);
    case UnaryOp::hard_swish: return std::isnan(x) ? x : x * std::clamp(x / 6 + 0.5, 0.0, 1.0);
    case UnaryOp::clip: return std::isnan(x) ? x : std::min(std::max(x, alpha), beta);
    case UnaryOp::leaky_relu: return x >= 0 ? x : alpha * x;
  }
  return std::numeric_limits<double>::quiet_NaN();  // not a unary function
}

namespace {
struct Resolved {
  uint64_t lda, ldb, ldc, sa, sb, sc;
};
Resolved resolve(const kernels::GemmProblem& p) {
  uint64_t a_cols = p.transpose_a ? p.m : p.k, a_rows = p.transpose_a ? p.k : p.m;
  uint64_t b_cols = p.transpose_b ? p.k : p.n, b_rows = p.transpose_b ? p.n : p.k;
  Resolved r;
  r.lda = p.lda.value_or(std::max<uint64_t>(a_cols, 1));
  r.ldb = p.ldb.value_or(std::max<uint64_t>(b_cols, 1));
  r.ldc = p.ldc.value_or(std::max<uint64_t>(p.n, 1));
  auto span = [](uint64_t rows, uint64_t cols, uint64_t ld) { return rows && cols ? (rows - 1) * ld + cols : 0; };
  r.sa = p.stride_a.value_or(span(a_rows, a_cols, r.lda));
  r.sb = p.stride_b.value_or(span(b_rows, b_cols, r.ldb));
  r.sc = p.stride_c.value_or(span(p.m, p.n, r.ldc));
  return r;
}
}  // namespace

void gemm(const kernels::GemmProblem& p, std::span<const double> a, std::span<const double> b, std::span<double> c,
          std::span<const double> bias, const kernels::UnaryFunction& f) {
  const Resolved r = resolve(p);
  for (uint64_t z = 0; z < p.batch; ++z)
    for (uint64_t i = 0; i < p.m; ++i)
      for (uint64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (uint64_t k = 0; k < p.k; ++k) {
          double x = a[p.offset_a + z * r.sa + (p.transpose_a ? k * r.lda + i : i * r.lda + k)];
          double y = b[p.offset_b + z * r.sb + (p.transpose_b ? j * r.ldb + k : k * r.ldb + j)];
          sum += x * y;
        }
        double& out = c[p.offset_c + z * r.sc + i * r.ldc + j];
        double v = double(p.alpha) * sum + (p.beta != 0 ? double(p.beta) * out : 0.0);
        if (!bias.empty()) v += bias[j];
        out = unary(f, v);
      }
}

std::vector<uint8_t> gemm_written(const kernels::GemmProblem& p, size_t size) {
  const Resolved r = resolve(p);
  std::vector<uint8_t> w(size, 0);
  for (uint64_t z = 0; z < p.batch; ++z)
    for (uint64_t i = 0; i < p.m; ++i)
      for (uint64_t j = 0; j < p.n; ++j) w[p.offset_c + z * r.sc + i * r.ldc + j] = 1;
  return w;
}

}  // namespace onegpu::reference
