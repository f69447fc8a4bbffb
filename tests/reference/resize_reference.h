// Reference for ONNX Resize (nearest and linear) on NCHW planes: the coordinate of each output
// index in float32, written out as ONNX runtimes compute it, then the interpolation in float64.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace onegpu::reference {

enum class ResizeTransform { half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric };
enum class ResizeRounding { round_prefer_floor, round_prefer_ceil, floor, ceil };

inline float resize_coordinate(ResizeTransform t, int64_t o, float scale, int64_t in, int64_t out) {
  const float x = float(o);
  switch (t) {
    case ResizeTransform::half_pixel: return (x + 0.5f) / scale - 0.5f;
    case ResizeTransform::half_pixel_symmetric: {
      const float adjustment = float(out) / (scale * float(in));
      const float offset = float(in) / 2.f * (1.f - adjustment);
      return offset + (x + 0.5f) / scale - 0.5f;
    }
    case ResizeTransform::pytorch_half_pixel: return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.f;
    case ResizeTransform::align_corners: return out == 1 ? 0.f : x * float(in - 1) / float(out - 1);
    case ResizeTransform::asymmetric: return x / scale;
  }
  return 0.f;
}

inline int64_t resize_nearest_index(ResizeRounding r, float x, int64_t in) {
  int64_t i = 0;
  const bool tie = x - std::floor(x) == 0.5f;
  switch (r) {
    case ResizeRounding::round_prefer_floor: i = int64_t(tie ? std::floor(x) : std::round(x)); break;
    case ResizeRounding::round_prefer_ceil: i = int64_t(tie ? std::ceil(x) : std::round(x)); break;
    case ResizeRounding::floor: i = int64_t(std::floor(x)); break;
    case ResizeRounding::ceil: i = int64_t(std::ceil(x)); break;
  }
  return std::clamp<int64_t>(i, 0, in - 1);
}

struct ResizeGeometry {
  int64_t planes = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  float scale_h = 1, scale_w = 1;
  ResizeTransform transform = ResizeTransform::half_pixel;
};

// Nearest: the index of the input element each output element copies.
inline std::vector<int64_t> resize_nearest(const ResizeGeometry& g, ResizeRounding r) {
  std::vector<int64_t> src;
  for (int64_t p = 0; p < g.planes; ++p)
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const int64_t h = resize_nearest_index(r, resize_coordinate(g.transform, oh, g.scale_h, g.in_h, g.out_h), g.in_h);
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        const int64_t w =
            resize_nearest_index(r, resize_coordinate(g.transform, ow, g.scale_w, g.in_w, g.out_w), g.in_w);
        src.push_back((p * g.in_h + h) * g.in_w + w);
      }
    }
  return src;
}

// Linear: the coordinate clamped to [0, in - 1], the two neighbours (the last repeated) weighted.
inline std::vector<double> resize_linear(const ResizeGeometry& g, const std::vector<double>& x) {
  auto axis = [](float c, int64_t in, int64_t& i0, int64_t& i1, double& w) {
    const double v = std::clamp(double(c), 0.0, double(in - 1));
    i0 = int64_t(std::floor(v));
    i1 = std::min(i0 + 1, in - 1);
    w = v - double(i0);
  };
  std::vector<double> y;
  for (int64_t p = 0; p < g.planes; ++p)
    for (int64_t oh = 0; oh < g.out_h; ++oh)
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        int64_t h0, h1, w0, w1;
        double wy, wx;
        axis(resize_coordinate(g.transform, oh, g.scale_h, g.in_h, g.out_h), g.in_h, h0, h1, wy);
        axis(resize_coordinate(g.transform, ow, g.scale_w, g.in_w, g.out_w), g.in_w, w0, w1, wx);
        auto at = [&](int64_t h, int64_t w) { return x[size_t((p * g.in_h + h) * g.in_w + w)]; };
        const double top = at(h0, w0) * (1 - wx) + at(h0, w1) * wx;
        const double bottom = at(h1, w0) * (1 - wx) + at(h1, w1) * wx;
        y.push_back(top * (1 - wy) + bottom * wy);
      }
  return y;
}

}  // namespace onegpu::reference
