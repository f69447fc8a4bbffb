// Pool plans without a device: output extents (ceil mode, auto pad), variants, threads per plane
// of the global pools, the words a float16 workgroup owns, and the checks.
#include <gtest/gtest.h>

#include "kernels/pool/pool_plan.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::kernels {
namespace {

PoolProblem stem() {
  PoolProblem p;
  p.batch = 8;
  p.channels = 64;
  p.input = {112, 112};
  p.window = {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}};
  return p;
}

TEST(PoolPlan, WindowedPlan) {
  PoolProblem p = stem();
  const pool::Plan plan = pool::plan(p);
  EXPECT_EQ(plan.output, (Extent2{56, 56}));
  EXPECT_EQ(plan.variant, "pool.max.f32");
  EXPECT_EQ(plan.output_count, 8u * 64 * 56 * 56);
  EXPECT_EQ(plan.window_push.units, plan.output_count);
  EXPECT_EQ(plan.workgroups, (plan.output_count + 255) / 256);
  EXPECT_EQ(plan.window_push.padded_h, 114u);
  p.type = DataType::float16;
  p.operation = PoolOperation::average_pool;
  p.count_include_pad = true;
  p.y_offset = 1;
  const pool::Plan half = pool::plan(p);
  EXPECT_EQ(half.variant, "pool.avg.f16");
  EXPECT_EQ(half.window_push.flags, OG_POOL_COUNT_PAD);
  // Outputs 1 .. n: words 0 .. (n + 1) / 2, the first shared with the element before y.
  EXPECT_EQ(half.window_push.units, (half.output_count + 2) / 2);
  EXPECT_EQ(Pool::describe(p), "pool.avg.f16");
}

TEST(PoolPlan, CeilModeAndAutoPad) {
  PoolProblem p;
  p.input = {5, 6};
  p.window = {{2, 3}, {2, 2}, {1, 1}, {1, 0, 1, 0}};
  p.ceil_mode = true;
  // Height: (5 + 2 - 2) / 2 rounded up + 1 = 4, but the fourth window starts in the end pad.
  // Width: (6 - 3) / 2 rounded up + 1 = 3.
  EXPECT_EQ(Pool::output_extent(p), (Extent2{3, 3}));
  p.ceil_mode = false;
  EXPECT_EQ(Pool::output_extent(p), (Extent2{3, 2}));
  p.auto_pad = AutoPad::same_upper;
  EXPECT_EQ(Pool::output_extent(p), (Extent2{3, 3}));
  const pool::Plan plan = pool::plan(p);
  EXPECT_EQ(plan.window.pads, (std::array<int64_t, 4>{0, 0, 1, 1}));
  p.auto_pad = AutoPad::same_lower;
  EXPECT_EQ(pool::plan(p).window.pads, (std::array<int64_t, 4>{1, 1, 0, 0}));
}

TEST(PoolPlan, GlobalThreadsAndWords) {
  EXPECT_EQ(pool::global_threads(1, DataType::float32), 32u);
  EXPECT_EQ(pool::global_threads(49, DataType::float32), 32u);
  EXPECT_EQ(pool::global_threads(200, DataType::float32), 64u);
  EXPECT_EQ(pool::global_threads(12544, DataType::float32), 256u);
  EXPECT_EQ(pool::global_threads(12544, DataType::float16), 128u);
  PoolProblem p;
  p.operation = PoolOperation::global_average_pool;
  p.batch = 8;
  p.channels = 2048;
  p.input = {7, 7};
  const pool::Plan f = pool::plan(p);
  EXPECT_EQ(f.variant, "pool.global.avg.f32");
  EXPECT_EQ(f.global_push.group_planes, 8u);
  EXPECT_EQ(f.workgroups, 2048u);
  EXPECT_EQ(Pool::describe(p), "pool.global.avg.f32 (32 threads a plane)");
  p.type = DataType::float16;
  p.operation = PoolOperation::global_max_pool;
  p.y_offset = 7;
  p.input = {100, 100};
  const pool::Plan h = pool::plan(p);
  EXPECT_EQ(h.variant, "pool.global.max.f16");
  EXPECT_EQ(h.global_push.threads, 128u);
  EXPECT_EQ(h.global_push.group_planes, 2u);
  EXPECT_EQ(h.global_push.y_base, 6u);  // whole words
  EXPECT_EQ(h.workgroups, (1u + 16384 + 1) / 2);
}

TEST(PoolPlan, Strides) {
  PoolProblem p = stem();
  const pool::Plan dense = pool::plan(p);
  EXPECT_EQ(dense.x_strides, (std::array<uint64_t, 4>{64 * 112 * 112, 112 * 112, 112, 1}));
  EXPECT_EQ(dense.input_span, dense.input_count);
  EXPECT_EQ(dense.window_push.x_stride_h, 112u);
  p.x_strides = {112 * 112 * 64, 1, 112 * 64, 64};  // NHWC
  const pool::Plan nhwc = pool::plan(p);
  EXPECT_EQ(nhwc.input_span, nhwc.input_count);
  EXPECT_EQ(nhwc.window_push.x_stride_c, 1u);
  p.x_strides = {0, 0, 0, 0};
  p.operation = PoolOperation::global_max_pool;
  p.x_strides = {112 * 112 * 128, 112 * 112, 112, 1};  // half the channels of 128
  const pool::Plan half = pool::plan(p);
  EXPECT_EQ(half.input_span, uint64_t(7 * 112 * 112 * 128 + 64 * 112 * 112));
  EXPECT_EQ(half.global_push.x_stride_n, 112u * 112 * 128);
}

TEST(PoolPlan, Checks) {
  using testing::shape_error_message;
  PoolProblem p = stem();
  p.type = DataType::int32;
  EXPECT_THROW(pool::plan(p), UnsupportedError);
  p = stem();
  p.window.kernel = {115, 3};
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: kernel: "), std::string::npos);
  p = stem();
  p.window.dilations = {1, 0};
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: dilations: "), std::string::npos);
  p = stem();
  p.window.pads = {int64_t(1) << 30, 0, int64_t(1) << 30, 0};
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: pads: "), std::string::npos);
  p = stem();
  p.operation = PoolOperation::average_pool;
  p.batch = 0;
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("AveragePool: x: "), std::string::npos);
  p = stem();
  p.batch = int64_t(1) << 40;
  p.channels = int64_t(1) << 40;
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: x: "), std::string::npos);
  p = stem();
  p.x_offset = (uint64_t(1) << 31) - 100;
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: x: "), std::string::npos);
  p = stem();
  p.y_offset = (uint64_t(1) << 31) - 100;
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: y: "), std::string::npos);
  p = stem();
  p.x_strides = {1, 1, 1, -1};
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: x_strides: "), std::string::npos);
  p.x_strides = {int64_t(1) << 40, 1, 1, 1};
  EXPECT_NE(shape_error_message([&] { pool::plan(p); }).find("MaxPool: x: "), std::string::npos);
  p = stem();
  p.operation = PoolOperation::global_max_pool;
  p.window.kernel = {0, 0};  // ignored by the global pools
  EXPECT_EQ(shape_error_message([&] { pool::plan(p); }), "no error");
}

}  // namespace
}  // namespace onegpu::kernels
