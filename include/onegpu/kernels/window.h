// onegpu/kernels/window.h - the geometry of a sliding window over an image, shared by convolution,
// transposed convolution and pooling.
//
// Tensors are NCHW; a window covers the two spatial axes, height then width (a 1-D operator is a
// 2-D one with height 1, kernel height 1). The fields are ONNX's attributes: `pads` in ONNX order
// {height begin, width begin, height end, width end}. Every function checks its arguments in
// 64-bit arithmetic and throws KernelShapeError naming `operation` and the argument ("kernel",
// "strides", "dilations", "pads", "input", "output_padding", "output_shape").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace onegpu::kernels {

// ONNX auto_pad. explicit_pads is ONNX's NOTSET: the window's own pads are used.
enum class AutoPad { explicit_pads, same_upper, same_lower, valid };

struct Window {
  std::array<int64_t, 2> kernel{1, 1};     // kernel extent, >= 1
  std::array<int64_t, 2> strides{1, 1};    // >= 1
  std::array<int64_t, 2> dilations{1, 1};  // >= 1
  std::array<int64_t, 4> pads{0, 0, 0, 0}; // >= 0; {h begin, w begin, h end, w end}

  // (kernel - 1) * dilation + 1 along `axis` (0 height, 1 width).
  int64_t extent(int axis) const;
  int64_t pad_begin(int axis) const { return pads[std::size_t(axis)]; }
  int64_t pad_end(int axis) const { return pads[std::size_t(axis) + 2]; }
  friend bool operator==(const Window&, const Window&) = default;
};

using Extent2 = std::array<int64_t, 2>;  // {height, width}

// The window with its pads resolved from `auto_pad` for an input of `input` {height, width}, as
// ONNX Conv and pooling define it: same_upper / same_lower pad so that the output is
// ceil(input / stride), the odd pixel of padding going to the end (upper) or the beginning (lower);
// valid pads nothing; explicit_pads returns the window unchanged (after checking it).
Window resolve_auto_pad(Window window, AutoPad auto_pad, Extent2 input, const char* operation = "Conv");

// Output extent of a window sliding over `input`: floor((input + pads - extent) / stride) + 1, or
// with `ceil_mode` (pooling) rounded up, dropping a last window that would start inside the end
// padding. Throws when the padded input is smaller than the window (no output position) or when
// an extent does not fit 32 bits.
Extent2 window_output_extent(const Window& window, Extent2 input, bool ceil_mode = false,
                             const char* operation = "Conv");

// Output extent of a transposed convolution (ONNX ConvTranspose without output_shape):
// stride * (input - 1) + output_padding + extent - pad begin - pad end. output_padding must be
// below the stride or the dilation of its axis. Throws when the result is below 1.
Extent2 transpose_output_extent(const Window& window, Extent2 input, Extent2 output_padding = {0, 0},
                                const char* operation = "ConvTranspose");

// The pads of a transposed convolution that produces `output_shape` (ONNX ConvTranspose with
// output_shape, or auto_pad same_* where the output is input * stride): the total padding
// stride * (input - 1) + output_padding + extent - output is split with the odd element at the end
// for same_upper and at the beginning otherwise. Throws when the total is negative.
Window transpose_pads_for_output(Window window, AutoPad auto_pad, Extent2 input, Extent2 output_shape,
                                 Extent2 output_padding = {0, 0}, const char* operation = "ConvTranspose");

}  // namespace onegpu::kernels
