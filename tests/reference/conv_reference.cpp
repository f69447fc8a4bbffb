#include "reference/conv_reference.h"

#include "reference/reference.h"

namespace onegpu::reference {
namespace {

void finish(std::vector<double>& y, int64_t batch, int64_t cout, int64_t pixels, std::span<const double> bias,
            std::span<const double> residual, const kernels::UnaryFunction& f) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t i = 0; i < pixels; ++i) {
        const size_t e = size_t((b * cout + o) * pixels + i);
        double v = y[e];
        if (!bias.empty()) v += bias[size_t(o)];
        if (!residual.empty()) v += residual[e];
        y[e] = unary(f, v);
      }
}

}  // namespace

std::vector<double> conv(const kernels::ConvProblem& p, std::span<const double> x, std::span<const double> w,
                         std::span<const double> bias, std::span<const double> residual) {
  const kernels::Extent2 out = p.output();
  std::vector<size_t> all(size_t(p.batch * p.out_channels * out[0] * out[1]));
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return conv_at(p, x, w, bias, residual, all);
}

std::vector<double> conv_at(const kernels::ConvProblem& p, std::span<const double> x, std::span<const double> w,
                            std::span<const double> bias, std::span<const double> residual,
                            std::span<const size_t> elements) {
  const kernels::Window win = kernels::resolve_auto_pad(p.window, p.auto_pad, p.input);
  const kernels::Extent2 out = p.output();
  const int64_t ih = p.input[0], iw = p.input[1], oh = out[0], ow = out[1];
  const int64_t cin_g = p.in_channels / p.groups, cout_g = p.out_channels / p.groups;
  const int64_t kh = win.kernel[0], kw = win.kernel[1];
  std::vector<double> y(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    const int64_t e = int64_t(elements[i]);
    const int64_t ox = e % ow, oy = e / ow % oh, o = e / (ow * oh) % p.out_channels, b = e / (ow * oh * p.out_channels);
    const int64_t g = o / cout_g;
    double sum = 0;
    for (int64_t c = 0; c < cin_g; ++c)
      for (int64_t u = 0; u < kh; ++u) {
        const int64_t iy = oy * win.strides[0] - win.pads[0] + u * win.dilations[0];
        if (iy < 0 || iy >= ih) continue;
        for (int64_t v = 0; v < kw; ++v) {
          const int64_t ix = ox * win.strides[1] - win.pads[1] + v * win.dilations[1];
          if (ix < 0 || ix >= iw) continue;
          sum += x[size_t(((b * p.in_channels + g * cin_g + c) * ih + iy) * iw + ix)] *
                 w[size_t(((o * cin_g + c) * kh + u) * kw + v)];
        }
      }
    if (!bias.empty()) sum += bias[size_t(o)];
    if (!residual.empty()) sum += residual[size_t(e)];
    y[i] = unary(p.activation, sum);
  }
  return y;
}

std::vector<double> conv_transpose(const kernels::ConvTransposeProblem& p, std::span<const double> x,
                                   std::span<const double> w, std::span<const double> bias,
                                   std::span<const double> residual) {
  const kernels::Window win = p.resolved_window();
  const kernels::Extent2 out = p.output();
  const int64_t ih = p.input[0], iw = p.input[1], oh = out[0], ow = out[1];
  const int64_t cin_g = p.in_channels / p.groups, cout_g = p.out_channels / p.groups;
  const int64_t kh = win.kernel[0], kw = win.kernel[1];
  std::vector<double> y(size_t(p.batch * p.out_channels * oh * ow), 0.0);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t ci = 0; ci < p.in_channels; ++ci) {
      const int64_t g = ci / cin_g;
      for (int64_t iy = 0; iy < ih; ++iy)
        for (int64_t ix = 0; ix < iw; ++ix) {
          const double xv = x[size_t(((b * p.in_channels + ci) * ih + iy) * iw + ix)];
          for (int64_t ol = 0; ol < cout_g; ++ol)
            for (int64_t u = 0; u < kh; ++u) {
              const int64_t oy = iy * win.strides[0] - win.pads[0] + u * win.dilations[0];
              if (oy < 0 || oy >= oh) continue;
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t ox = ix * win.strides[1] - win.pads[1] + v * win.dilations[1];
                if (ox < 0 || ox >= ow) continue;
                const int64_t o = g * cout_g + ol;
                y[size_t(((b * p.out_channels + o) * oh + oy) * ow + ox)] +=
                    xv * w[size_t(((ci * cout_g + ol) * kh + u) * kw + v)];
              }
            }
        }
    }
  finish(y, p.batch, p.out_channels, oh * ow, bias, residual, p.activation);
  return y;
}

}  // namespace onegpu::reference
