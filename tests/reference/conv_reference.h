// Float64 references for Conv and ConvTranspose, written from the ONNX definitions: the sum over
// the window (taps in the padding read zero), then bias, residual and activation.
#pragma once

#include <span>
#include <vector>

#include "onegpu/kernels/conv.h"

namespace onegpu::reference {

// y (dense NCHW) from x (NCHW), w (OIHW) and the optional bias and residual (empty when absent);
// the problem's pads and output extent as the library resolves them (window.h).
std::vector<double> conv(const kernels::ConvProblem& p, std::span<const double> x, std::span<const double> w,
                         std::span<const double> bias = {}, std::span<const double> residual = {});

// The same at the given output elements only (indices into dense NCHW y), for large layers.
std::vector<double> conv_at(const kernels::ConvProblem& p, std::span<const double> x, std::span<const double> w,
                            std::span<const double> bias, std::span<const double> residual,
                            std::span<const size_t> elements);

// ConvTranspose by scattering each input element through the window (w is
// [in_channels, out_channels / groups, KH, KW]).
std::vector<double> conv_transpose(const kernels::ConvTransposeProblem& p, std::span<const double> x,
                                   std::span<const double> w, std::span<const double> bias = {},
                                   std::span<const double> residual = {});

}  // namespace onegpu::reference
