// Resize plans without a device: output extents from scales and sizes, the tap tables of each
// coordinate transformation and rounding (hand-computed values), variants, and the checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/resize/resize_plan.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::kernels {
namespace {

ResizeProblem base(Extent2 in, std::array<float, 2> scales) {
  ResizeProblem p;
  p.input = in;
  p.scales = scales;
  return p;
}

std::vector<uint32_t> firsts(const std::vector<ResizeTap>& taps) {
  std::vector<uint32_t> v;
  for (const auto& t : taps) v.push_back(t.first);
  return v;
}

TEST(ResizePlan, OutputExtents) {
  EXPECT_EQ(ResizeTaps::of(base({7, 9}, {2.f, 0.5f})).output, (Extent2{14, 4}));
  EXPECT_EQ(ResizeTaps::of(base({9, 7}, {2.3f, 0.45f})).output, (Extent2{20, 3}));
  ResizeProblem p = base({9, 7}, {0.f, 0.f});
  p.sizes = {20, 3};
  EXPECT_EQ(ResizeTaps::of(p).output, (Extent2{20, 3}));
  EXPECT_EQ(resize::plan(p).scales[0], 20.f / 9.f);
  // floor of the exact product: 10 * 0.7f is 6.99999988 (7.0 when rounded to float32).
  EXPECT_EQ(ResizeTaps::of(base({10, 10}, {0.7f, 1.f})).output, (Extent2{6, 10}));
}

TEST(ResizePlan, NearestRoundings) {
  // 4 -> 8 with asymmetric: coordinates 0, 0.5, 1, 1.5, ...
  ResizeProblem p = base({1, 4}, {1.f, 2.f});
  p.coordinates = ResizeCoordinates::asymmetric;
  p.nearest_mode = ResizeNearestMode::round_prefer_floor;
  EXPECT_EQ(firsts(ResizeTaps::of(p).columns), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  p.nearest_mode = ResizeNearestMode::round_prefer_ceil;
  EXPECT_EQ(firsts(ResizeTaps::of(p).columns), (std::vector<uint32_t>{0, 1, 1, 2, 2, 3, 3, 3}));
  p.nearest_mode = ResizeNearestMode::floor;
  EXPECT_EQ(firsts(ResizeTaps::of(p).columns), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  p.nearest_mode = ResizeNearestMode::ceil;
  EXPECT_EQ(firsts(ResizeTaps::of(p).columns), (std::vector<uint32_t>{0, 1, 1, 2, 2, 3, 3, 3}));
  // half_pixel, 4 -> 8: (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, ...
  p.coordinates = ResizeCoordinates::half_pixel;
  p.nearest_mode = ResizeNearestMode::round_prefer_floor;
  EXPECT_EQ(firsts(ResizeTaps::of(p).columns), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST(ResizePlan, LinearTaps) {
  ResizeProblem p = base({1, 4}, {1.f, 2.f});
  p.mode = ResizeMode::linear;
  const auto t = ResizeTaps::of(p).columns;  // half_pixel: -0.25 (clamped), 0.25, 0.75, ..., 3.25
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[0], (ResizeTap{0, 1, 0.f}));
  EXPECT_EQ(t[1], (ResizeTap{0, 1, 0.25f}));
  EXPECT_EQ(t[2], (ResizeTap{0, 1, 0.75f}));
  EXPECT_EQ(t[6], (ResizeTap{2, 3, 0.75f}));
  EXPECT_EQ(t[7], (ResizeTap{3, 3, 0.f}));  // clamped to the last
  p.coordinates = ResizeCoordinates::align_corners;  // o * 3 / 7
  const auto a = ResizeTaps::of(p).columns;
  EXPECT_EQ(a[0], (ResizeTap{0, 1, 0.f}));
  EXPECT_EQ(a[7], (ResizeTap{3, 3, 0.f}));
  EXPECT_EQ(a[1].first, 0u);
  EXPECT_FLOAT_EQ(a[1].weight, 3.f / 7.f);
  p.coordinates = ResizeCoordinates::pytorch_half_pixel;
  p.sizes = {1, 1};
  EXPECT_EQ(ResizeTaps::of(p).columns[0], (ResizeTap{0, 1, 0.f}));  // one output: coordinate 0
  p.coordinates = ResizeCoordinates::half_pixel;  // one output: (0.5) * 4 - 0.5 = 1.5
  EXPECT_EQ(ResizeTaps::of(p).columns[0], (ResizeTap{1, 2, 0.5f}));
}

TEST(ResizePlan, HalfPixelSymmetric) {
  // 4 * 1.3 = 5.2 -> 5 outputs; adjustment 5 / 5.2, offset 2 * (1 - 5 / 5.2).
  ResizeProblem p = base({1, 4}, {1.f, 1.3f});
  p.mode = ResizeMode::linear;
  p.coordinates = ResizeCoordinates::half_pixel_symmetric;
  const float offset = 2.f * (1.f - 5.f / (1.3f * 4.f));
  const float c1 = offset + 1.5f / 1.3f - 0.5f;
  const auto t = ResizeTaps::of(p).columns;
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[1].first, uint32_t(c1));
  EXPECT_FLOAT_EQ(t[1].weight, c1 - std::floor(c1));
}

TEST(ResizePlan, VariantsAndWords) {
  ResizeProblem p = base({4, 4}, {2.f, 2.f});
  p.batch = 2;
  p.channels = 3;
  EXPECT_EQ(resize::plan(p).variant, "resize.nearest.b32");
  p.type = DataType::bfloat16;
  p.y_offset = 1;
  const resize::Plan b = resize::plan(p);
  EXPECT_EQ(b.variant, "resize.nearest.b16");
  EXPECT_EQ(b.push.units, (1u + 384 + 1) / 2);
  EXPECT_EQ(b.push.columns_at, 8u * OG_RESIZE_TAP_WORDS);
  p.type = DataType::float16;
  p.mode = ResizeMode::linear;
  EXPECT_EQ(resize::plan(p).variant, "resize.linear.f16");
}

TEST(ResizePlan, Checks) {
  using testing::shape_error_message;
  ResizeProblem p = base({4, 4}, {2.f, 2.f});
  ResizeProblem q = p;
  q.mode = ResizeMode::cubic;
  EXPECT_THROW(resize::plan(q), UnsupportedError);
  q = p;
  q.coordinates = ResizeCoordinates::tf_crop_and_resize;
  EXPECT_THROW(resize::plan(q), UnsupportedError);
  q = p;
  q.type = DataType::int8;
  EXPECT_THROW(resize::plan(q), UnsupportedError);
  q = p;
  q.mode = ResizeMode::linear;
  q.type = DataType::int32;
  EXPECT_THROW(resize::plan(q), UnsupportedError);
  q = p;
  q.scales = {-1.f, 2.f};
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: scales: "), std::string::npos);
  q.scales = {std::numeric_limits<float>::infinity(), 2.f};
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: scales: "), std::string::npos);
  q.scales = {0.2f, 2.f};  // floor(0.8) = 0
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: scales: "), std::string::npos);
  q = p;
  q.sizes = {3, 0};
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: sizes: "), std::string::npos);
  q = p;
  q.sizes = {int64_t(1) << 20, int64_t(1) << 20};
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: y: "), std::string::npos);
  q = p;
  q.channels = 0;
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: x: "), std::string::npos);
  q = p;
  q.x_offset = uint64_t(1) << 31;
  EXPECT_NE(shape_error_message([&] { resize::plan(q); }).find("Resize: x: "), std::string::npos);
}

}  // namespace
}  // namespace onegpu::kernels
