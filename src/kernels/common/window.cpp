#include "onegpu/kernels/window.h"

#include <algorithm>
#include <string>

#include "kernels/common/checked.h"
#include "kernels/common/conv_channels.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {
namespace {

constexpr int64_t kMaxExtent = int64_t(1) << 31;  // extents must fit int32 (and the shaders' uint)

void check_window(const Window& w, const char* op) {
  for (int a = 0; a < 2; ++a) {
    if (w.kernel[a] < 1 || w.kernel[a] >= kMaxExtent)
      throw KernelShapeError(op, "kernel", "kernel extents must lie in [1, 2^31)");
    if (w.strides[a] < 1 || w.strides[a] >= kMaxExtent)
      throw KernelShapeError(op, "strides", "strides must lie in [1, 2^31)");
    if (w.dilations[a] < 1 || w.dilations[a] >= kMaxExtent)
      throw KernelShapeError(op, "dilations", "dilations must lie in [1, 2^31)");
  }
  for (int64_t p : w.pads)
    if (p < 0 || p >= kMaxExtent) throw KernelShapeError(op, "pads", "pads must lie in [0, 2^31)");
}

void check_input(Extent2 input, const char* op) {
  for (int64_t v : input)
    if (v < 1 || v >= kMaxExtent) throw KernelShapeError(op, "input", "spatial extents must lie in [1, 2^31)");
}

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }  // a >= 0, b > 0

// stride * (input - 1) + output_padding + extent along `axis`: a transposed window's output before
// the pads, with output_padding checked (below the stride or the dilation).
int64_t transposed_span(const Window& w, int axis, int64_t input, int64_t output_padding, const char* op) {
  const size_t a = size_t(axis);
  if (output_padding < 0 || (output_padding >= w.strides[a] && output_padding >= w.dilations[a]))
    throw KernelShapeError(op, "output_padding", "output_padding must be below the stride or the dilation");
  return checked_add(op, "input", checked_mul(op, "input", w.strides[a], input - 1), output_padding + w.extent(axis));
}

}  // namespace

int64_t Window::extent(int axis) const {
  // Both factors below 2^31: the product fits 63 bits.
  return (kernel[size_t(axis)] - 1) * dilations[size_t(axis)] + 1;
}

Window resolve_auto_pad(Window w, AutoPad auto_pad, Extent2 input, const char* op) {
  check_window(w, op);
  check_input(input, op);
  if (auto_pad == AutoPad::explicit_pads) return w;
  for (int a = 0; a < 2; ++a) {
    int64_t total = 0;
    if (auto_pad != AutoPad::valid) {
      const int64_t out = ceil_div(input[a], w.strides[a]);
      total = std::max<int64_t>(0, (out - 1) * w.strides[a] + w.extent(a) - input[a]);
    }
    const int64_t small = total / 2, large = total - small;
    const bool upper = auto_pad == AutoPad::same_upper;
    w.pads[size_t(a)] = upper ? small : large;
    w.pads[size_t(a) + 2] = upper ? large : small;
  }
  check_window(w, op);
  return w;
}

Extent2 window_output_extent(const Window& w, Extent2 input, bool ceil_mode, const char* op) {
  check_window(w, op);
  check_input(input, op);
  Extent2 out{};
  for (int a = 0; a < 2; ++a) {
    // Every term below 2^33: no overflow.
    const int64_t span = input[a] + w.pad_begin(a) + w.pad_end(a) - w.extent(a);
    if (span < 0)
      throw KernelShapeError(op, "kernel", "the window (" + std::to_string(w.extent(a)) +
                                               " with dilation) is larger than the padded input (" +
                                               std::to_string(input[a] + w.pad_begin(a) + w.pad_end(a)) + ")");
    int64_t n = (ceil_mode ? ceil_div(span, w.strides[a]) : span / w.strides[a]) + 1;
    // A last window that starts inside the end padding is dropped.
    if (ceil_mode && (n - 1) * w.strides[a] >= input[a] + w.pad_begin(a)) --n;
    if (n >= kMaxExtent) throw KernelShapeError(op, "input", "an output extent does not fit 31 bits");
    out[size_t(a)] = n;
  }
  return out;
}

Extent2 transpose_output_extent(const Window& w, Extent2 input, Extent2 output_padding, const char* op) {
  check_window(w, op);
  check_input(input, op);
  Extent2 out{};
  for (int a = 0; a < 2; ++a) {
    const int64_t full = transposed_span(w, a, input[a], output_padding[size_t(a)], op);
    const int64_t n = full - w.pad_begin(a) - w.pad_end(a);
    if (n < 1) throw KernelShapeError(op, "pads", "the pads remove the whole output");
    if (n >= kMaxExtent) throw KernelShapeError(op, "input", "an output extent does not fit 31 bits");
    out[size_t(a)] = n;
  }
  return out;
}

Window transpose_pads_for_output(Window w, AutoPad auto_pad, Extent2 input, Extent2 output_shape,
                                 Extent2 output_padding, const char* op) {
  check_window(w, op);
  check_input(input, op);
  for (int a = 0; a < 2; ++a) {
    if (output_shape[size_t(a)] < 1 || output_shape[size_t(a)] >= kMaxExtent)
      throw KernelShapeError(op, "output_shape", "output extents must lie in [1, 2^31)");
    const int64_t full = transposed_span(w, a, input[a], output_padding[size_t(a)], op);
    const int64_t total = full - output_shape[size_t(a)];
    if (total < 0)
      throw KernelShapeError(op, "output_shape", "output_shape is larger than the transposed window can cover");
    if (total / 2 >= kMaxExtent) throw KernelShapeError(op, "pads", "pads must lie in [0, 2^31)");
    const int64_t small = total / 2, large = total - small;
    const bool upper = auto_pad == AutoPad::same_upper;
    w.pads[size_t(a)] = upper ? small : large;
    w.pads[size_t(a) + 2] = upper ? large : small;
  }
  return w;
}

void check_conv_channels(const char* op, int64_t batch, int64_t in_channels, int64_t out_channels, int64_t groups) {
  const int64_t limit = int64_t(1) << 31;  // element counts of one tensor
  auto s = [](int64_t v) { return std::to_string(v); };
  if (batch < 0 || batch >= limit) throw KernelShapeError(op, "batch", "must lie in [0, 2^31)");
  if (in_channels < 1 || in_channels >= limit) throw KernelShapeError(op, "in_channels", "must lie in [1, 2^31)");
  if (out_channels < 1 || out_channels >= limit) throw KernelShapeError(op, "out_channels", "must lie in [1, 2^31)");
  if (groups < 1) throw KernelShapeError(op, "groups", "must be at least 1");
  if (in_channels % groups != 0)
    throw KernelShapeError(op, "groups", s(groups) + " groups do not divide " + s(in_channels) + " input channels");
  if (out_channels % groups != 0)
    throw KernelShapeError(op, "groups", s(groups) + " groups do not divide " + s(out_channels) + " output channels");
}

}  // namespace onegpu::kernels
