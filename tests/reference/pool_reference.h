// Float64 references for pooling: the ONNX definitions written out over plain vectors of NCHW
// values (already rounded to their type).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace onegpu::reference {

struct PoolGeometry {
  int64_t planes = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// MaxPool: the largest real tap, NaN taps skipped unless all are NaN, `lowest` for a window with no
// real tap; first maximum in window order (so the sign of equal zeros follows the first).
inline std::vector<double> max_pool(const PoolGeometry& g, const std::vector<double>& x, double lowest) {
  std::vector<double> y;
  for (int64_t pl = 0; pl < g.planes; ++pl)
    for (int64_t oh = 0; oh < g.out_h; ++oh)
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        bool any = false, nan_tap = false;
        double best = 0;
        for (int64_t kh = 0; kh < g.kernel_h; ++kh)
          for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const int64_t h = oh * g.stride_h + kh * g.dilation_h - g.pad_top;
            const int64_t w = ow * g.stride_w + kw * g.dilation_w - g.pad_left;
            if (h < 0 || h >= g.in_h || w < 0 || w >= g.in_w) continue;
            const double v = x[size_t((pl * g.in_h + h) * g.in_w + w)];
            if (std::isnan(v)) {
              nan_tap = true;
            } else if (!any || v > best) {
              best = v;
              any = true;
            }
          }
        y.push_back(any ? best : nan_tap ? std::numeric_limits<double>::quiet_NaN() : lowest);
      }
  return y;
}

// AveragePool: the sum of the real taps over their number, or with count_include_pad over the
// taps inside the padded input (real or padding; ceil-mode taps beyond it never count). Zero
// taps: NaN.
inline std::vector<double> average_pool(const PoolGeometry& g, const std::vector<double>& x, bool count_include_pad) {
  std::vector<double> y;
  for (int64_t pl = 0; pl < g.planes; ++pl)
    for (int64_t oh = 0; oh < g.out_h; ++oh)
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        double sum = 0;
        int64_t real = 0, inside = 0;
        for (int64_t kh = 0; kh < g.kernel_h; ++kh)
          for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const int64_t h = oh * g.stride_h + kh * g.dilation_h - g.pad_top;
            const int64_t w = ow * g.stride_w + kw * g.dilation_w - g.pad_left;
            if (h >= g.in_h + g.pad_bottom || w >= g.in_w + g.pad_right) continue;
            ++inside;
            if (h < 0 || h >= g.in_h || w < 0 || w >= g.in_w) continue;
            sum += x[size_t((pl * g.in_h + h) * g.in_w + w)];
            ++real;
          }
        const int64_t n = count_include_pad ? inside : real;
        y.push_back(n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / double(n));
      }
  return y;
}

// GlobalAveragePool (max false) or GlobalMaxPool over `planes` planes of `size` values.
inline std::vector<double> global_pool(const std::vector<double>& x, int64_t planes, int64_t size, bool max) {
  std::vector<double> y;
  for (int64_t pl = 0; pl < planes; ++pl) {
    double acc = max ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    for (int64_t i = 0; i < size; ++i) {
      const double v = x[size_t(pl * size + i)];
      if (!max) acc += v;
      else if (!std::isnan(v) && (std::isnan(acc) || v > acc)) acc = v;
    }
    y.push_back(max ? acc : acc / double(size));
  }
  return y;
}

}  // namespace onegpu::reference
