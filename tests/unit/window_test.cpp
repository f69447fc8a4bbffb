// Window geometry without a GPU: auto_pad, output extents (floor and ceil mode), transposed
// extents and pads from output_shape, and the errors.
#include <gtest/gtest.h>

#include "onegpu/errors.h"
#include "support/shape_error.h"
#include "onegpu/kernels/window.h"

namespace onegpu::kernels {
namespace {

Window win(int64_t k, int64_t s = 1, int64_t d = 1, std::array<int64_t, 4> pads = {0, 0, 0, 0}) {
  return {{k, k}, {s, s}, {d, d}, pads};
}

using onegpu::testing::shape_error_argument;

TEST(Window, OutputExtentFloorsLikeOnnx) {
  EXPECT_EQ(window_output_extent(win(3, 1, 1, {1, 1, 1, 1}), {14, 14}), (Extent2{14, 14}));
  EXPECT_EQ(window_output_extent(win(7, 2, 1, {3, 3, 3, 3}), {224, 224}), (Extent2{112, 112}));
  EXPECT_EQ(window_output_extent(win(3, 2, 1, {1, 1, 1, 1}), {7, 8}), (Extent2{4, 4}));
  EXPECT_EQ(window_output_extent(win(3, 2, 2), {9, 10}), (Extent2{3, 3}));  // extent 5
  // 1-D as height 1.
  EXPECT_EQ(window_output_extent(Window{{1, 3}, {1, 2}, {1, 1}, {0, 1, 0, 1}}, {1, 3000}), (Extent2{1, 1500}));
}

TEST(Window, CeilModeDropsAWindowStartingInTheEndPadding) {
  // 112 + 1 + 1 - 3 = 111, / 2 = 55.5: floor 56 outputs, ceil 57 (the 57th starts at 112 - 1 = 111 < 113).
  EXPECT_EQ(window_output_extent(win(3, 2, 1, {1, 1, 1, 1}), {112, 112}, false), (Extent2{56, 56}));
  EXPECT_EQ(window_output_extent(win(3, 2, 1, {0, 0, 0, 0}), {6, 6}, true), (Extent2{3, 3}));
  EXPECT_EQ(window_output_extent(win(2, 2, 1, {0, 0, 0, 0}), {5, 5}, true), (Extent2{3, 3}));
  // Input 4, kernel 2, stride 2, end pad 1: ceil gives 3 windows, the last would start at 4 (inside the
  // end padding, start >= input + pad begin) and is dropped.
  EXPECT_EQ(window_output_extent(Window{{2, 2}, {2, 2}, {1, 1}, {0, 0, 1, 1}}, {4, 4}, true), (Extent2{2, 2}));
  EXPECT_EQ(window_output_extent(Window{{2, 2}, {2, 2}, {1, 1}, {0, 0, 1, 1}}, {5, 5}, true), (Extent2{3, 3}));
}

TEST(Window, AutoPadSplitsTheOddPixel) {
  Window w = resolve_auto_pad(win(4, 1), AutoPad::same_upper, {10, 10});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{1, 1, 2, 2}));
  EXPECT_EQ(window_output_extent(w, {10, 10}), (Extent2{10, 10}));
  w = resolve_auto_pad(win(4, 1), AutoPad::same_lower, {10, 10});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{2, 2, 1, 1}));
  w = resolve_auto_pad(win(3, 2), AutoPad::same_upper, {7, 8});  // out 4: total pad 2 and 1
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{1, 0, 1, 1}));
  EXPECT_EQ(window_output_extent(w, {7, 8}), (Extent2{4, 4}));
  w = resolve_auto_pad(win(3, 1, 1, {5, 5, 5, 5}), AutoPad::valid, {7, 7});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{0, 0, 0, 0}));
  w = resolve_auto_pad(win(3, 1, 1, {5, 6, 7, 8}), AutoPad::explicit_pads, {7, 7});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{5, 6, 7, 8}));
  // Dilation widens the window the padding covers.
  w = resolve_auto_pad(win(3, 1, 2), AutoPad::same_upper, {9, 9});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{2, 2, 2, 2}));
}

TEST(Window, TransposedExtentAndPadsFromOutputShape) {
  // 4x4 stride 2 pad 1 doubles the image.
  EXPECT_EQ(transpose_output_extent(win(4, 2, 1, {1, 1, 1, 1}), {32, 32}), (Extent2{64, 64}));
  EXPECT_EQ(transpose_output_extent(win(3, 2, 1, {1, 1, 1, 1}), {5, 5}, {1, 1}), (Extent2{10, 10}));
  // output_shape 10 from 5 with kernel 3 stride 2: full = 2*4 + 0 + 3 = 11, total 1.
  Window w = transpose_pads_for_output(win(3, 2), AutoPad::same_upper, {5, 5}, {10, 10});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{0, 0, 1, 1}));
  w = transpose_pads_for_output(win(3, 2), AutoPad::explicit_pads, {5, 5}, {10, 10});
  EXPECT_EQ(w.pads, (std::array<int64_t, 4>{1, 1, 0, 0}));
  EXPECT_EQ(transpose_output_extent(w, {5, 5}), (Extent2{10, 10}));
}

TEST(Window, BadGeometryRaisesNamingTheArgument) {
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(0), {4, 4}); }), "kernel");
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(3, 0), {4, 4}); }), "strides");
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(3, 1, 0), {4, 4}); }), "dilations");
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(3, 1, 1, {-1, 0, 0, 0}), {4, 4}); }), "pads");
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(3), {0, 4}); }), "input");
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(5), {4, 4}); }), "kernel");  // larger than the input
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(3), {INT64_MAX, 4}); }), "input");
  // A dilation near 2^31 with a big kernel: the extent is still exact in 64 bits, and larger than the input.
  EXPECT_EQ(shape_error_argument([] { window_output_extent(win(int64_t(1) << 30, 1, (int64_t(1) << 31) - 1), {4, 4}); }),
            "kernel");
  EXPECT_EQ(shape_error_argument([] { transpose_output_extent(win(3, 2), {5, 5}, {2, 2}); }), "output_padding");
  EXPECT_EQ(shape_error_argument([] { transpose_output_extent(win(1, 1, 1, {1, 1, 1, 1}), {1, 1}); }), "pads");
  EXPECT_EQ(shape_error_argument([] { transpose_pads_for_output(win(3, 2), AutoPad::same_upper, {5, 5}, {12, 12}); }),
            "output_shape");
  EXPECT_EQ(shape_error_argument([] { transpose_output_extent(win(3, (int64_t(1) << 31) - 1), {int64_t(1) << 30, 4}); }),
            "input");
}

}  // namespace
}  // namespace onegpu::kernels
