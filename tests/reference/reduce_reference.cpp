#include "reference/reduce_reference.h"

#include <cmath>
#include <limits>

namespace onegpu::reference {

std::vector<double> reduce(kernels::ReduceOp op, std::span<const double> x, std::span<const int64_t> shape,
                           std::span<const int64_t> axes) {
  using kernels::ReduceOp;
  const size_t rank = shape.size();
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) red[size_t(a < 0 ? a + int64_t(rank) : a)] = true;
  std::vector<int64_t> kept_dims, red_dims;
  for (size_t i = 0; i < rank; ++i) (red[i] ? red_dims : kept_dims).push_back(shape[i]);
  uint64_t outputs = 1, count = 1;
  for (auto d : kept_dims) outputs *= uint64_t(d);
  for (auto d : red_dims) count *= uint64_t(d);
  std::vector<uint64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * uint64_t(shape[i]);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> out(outputs);
  for (uint64_t o = 0; o < outputs; ++o) {
    double acc = op == ReduceOp::max ? -INFINITY : op == ReduceOp::min ? INFINITY : op == ReduceOp::prod ? 1.0 : 0.0;
    double best = 0;
    uint64_t best_i = 0;
    for (uint64_t r = 0; r < count; ++r) {
      // Element index from (o, r): walk dimensions innermost first.
      uint64_t oo = o, rr = r, e = 0;
      for (size_t i = rank; i-- > 0;) {
        uint64_t& q = red[i] ? rr : oo;
        e += (q % uint64_t(shape[i])) * stride[i];
        q /= uint64_t(shape[i]);
      }
      const double v = x[e];
      switch (op) {
        case ReduceOp::sum: case ReduceOp::mean: case ReduceOp::log_sum: acc += v; break;
        case ReduceOp::max: acc = (std::isnan(acc) || std::isnan(v)) ? nan : std::max(acc, v); break;
        case ReduceOp::min: acc = (std::isnan(acc) || std::isnan(v)) ? nan : std::min(acc, v); break;
        case ReduceOp::prod: acc *= v; break;
        case ReduceOp::l1: acc += std::abs(v); break;
        case ReduceOp::l2: case ReduceOp::sum_square: acc += v * v; break;
        case ReduceOp::arg_max: case ReduceOp::arg_min: {
          const bool better = r == 0 || (std::isnan(v) && !std::isnan(best)) ||
                              (!std::isnan(v) && !std::isnan(best) && (op == ReduceOp::arg_max ? v > best : v < best));
          if (better) { best = v; best_i = r; }
          break;
        }
      }
    }
    if (op == ReduceOp::mean) acc /= double(count);
    if (op == ReduceOp::l2) acc = std::sqrt(acc);
    if (op == ReduceOp::log_sum) acc = std::log(acc);
    out[o] = (op == ReduceOp::arg_max || op == ReduceOp::arg_min) ? double(best_i) : acc;
  }
  return out;
}

std::vector<double> softmax(std::span<const double> x, std::span<const int64_t> shape, int64_t axis, bool log) {
  const size_t a = size_t(axis < 0 ? axis + int64_t(shape.size()) : axis);
  uint64_t outer = 1, inner = 1;
  for (size_t i = 0; i < a; ++i) outer *= uint64_t(shape[i]);
  for (size_t i = a + 1; i < shape.size(); ++i) inner *= uint64_t(shape[i]);
  const uint64_t len = uint64_t(shape[a]);
  std::vector<double> y(x.size());
  for (uint64_t o = 0; o < outer; ++o)
    for (uint64_t in = 0; in < inner; ++in) {
      const uint64_t base = o * len * inner + in;
      double m = -INFINITY;
      bool nan = false;
      for (uint64_t j = 0; j < len; ++j) {
        const double v = x[base + j * inner];
        if (std::isnan(v)) nan = true;
        m = std::max(m, v);
      }
      double s = 0;
      for (uint64_t j = 0; j < len; ++j) s += std::exp(x[base + j * inner] - m);
      for (uint64_t j = 0; j < len; ++j) {
        const double d = x[base + j * inner] - m;
        double v = log ? d - std::log(s) : std::exp(d) / s;
        if (nan || (std::isinf(m) && m > 0) || m == -INFINITY) v = std::numeric_limits<double>::quiet_NaN();
        y[base + j * inner] = v;
      }
    }
  return y;
}

std::vector<double> layer_norm(std::span<const double> x, uint64_t len, std::span<const double> scale,
                               std::span<const double> bias, double epsilon, bool rms) {
  std::vector<double> y(x.size());
  for (uint64_t r = 0; r < x.size() / len; ++r) {
    const double* row = x.data() + r * len;
    double mean = 0;
    if (!rms) {
      for (uint64_t j = 0; j < len; ++j) mean += row[j];
      mean /= double(len);
    }
    double var = 0;
    for (uint64_t j = 0; j < len; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= double(len);
    const double inv = 1.0 / std::sqrt(var + epsilon);
    for (uint64_t j = 0; j < len; ++j) {
      double v = (row[j] - mean) * inv;
      if (!scale.empty()) v *= scale[j];
      if (!bias.empty()) v += bias[j];
      y[r * len + j] = v;
    }
  }
  return y;
}

}  // namespace onegpu::reference
