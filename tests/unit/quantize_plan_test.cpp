// Quantize decisions without a GPU: variants, checks (types, shapes, axis, counts), per-axis
// layout, grids and the dynamic passes.
#include <gtest/gtest.h>

#include "kernels/quantize/quantize_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::quantize {
namespace {

using Shape = std::vector<int64_t>;
const DataType f32 = DataType::float32, f16 = DataType::float16, u8 = DataType::uint8, i8 = DataType::int8,
               i32 = DataType::int32;

struct Args {
  QuantizeOperation op = QuantizeOperation::quantize_linear;
  Shape x{2, 3, 4}, y{2, 3, 4}, scale{}, zero{};
  DataType xt = f32, yt = u8, st = f32, zt = u8;
  bool has_zero = true;
  int64_t axis = 1;
  uint64_t x_offset = 0, y_offset = 0;
};

Plan plan_of(const Args& a) {
  Request r;
  r.operation = a.op;
  r.x = {a.x, {}, a.xt, a.x_offset};
  r.y = {a.y, {}, a.yt, a.y_offset};
  r.scale = {a.scale, {}, a.st, 0};
  r.zero = {a.zero, {}, a.zt, 0};
  r.has_zero = a.has_zero;
  r.axis = a.axis;
  r.y_scale = {a.scale, {}, a.st, 0};
  r.y_zero = {a.zero, {}, a.zt, 0};
  return plan(r);
}

template <class F>
std::pair<std::string, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return {e.operation(), e.argument()};
  }
  return {"none", "none"};
}

template <class F>
std::string unsupported(F&& f) {
  try {
    f();
  } catch (const UnsupportedError& e) {
    return e.capability();
  }
  return "none";
}

TEST(QuantizePlanTest, VariantsFollowTheTypes) {
  EXPECT_EQ(main_variant(QuantizeOperation::quantize_linear, f32, u8), "quantize.f32");
  EXPECT_EQ(main_variant(QuantizeOperation::quantize_linear, f16, i8), "quantize.f16");
  EXPECT_EQ(main_variant(QuantizeOperation::dequantize_linear, i8, f32), "dequantize.b8.f32");
  EXPECT_EQ(main_variant(QuantizeOperation::dequantize_linear, u8, f16), "dequantize.b8.f16");
  EXPECT_EQ(main_variant(QuantizeOperation::dequantize_linear, i32, f16), "dequantize.i32.f16");
  EXPECT_EQ(main_variant(QuantizeOperation::dynamic_quantize_linear, f32, u8), "dynamic.quantize");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::quantize_linear, i32, u8); }), "QuantizeLinear x type");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::quantize_linear, f32, i32); }), "QuantizeLinear y type");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::dequantize_linear, f32, f32); }), "DequantizeLinear x type");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::dequantize_linear, u8, i32); }), "DequantizeLinear y type");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::dynamic_quantize_linear, f16, u8); }),
            "DynamicQuantizeLinear x type");
  EXPECT_EQ(unsupported([] { main_variant(QuantizeOperation::dynamic_quantize_linear, f32, i8); }),
            "DynamicQuantizeLinear y type");
  Args a;
  a.st = f16;
  EXPECT_EQ(unsupported([&] { plan_of(a); }), "QuantizeLinear scale type");
}

TEST(QuantizePlanTest, PerTensorAndPerAxis) {
  Args a;
  Plan p = plan_of(a);
  EXPECT_EQ(p.push.codes & OG_QUANT_PER_AXIS, 0u);
  EXPECT_NE(p.push.codes & OG_QUANT_ZERO, 0u);
  EXPECT_EQ(p.scale_count, 1u);
  a.scale = a.zero = {1};
  EXPECT_EQ(plan_of(a).push.codes & OG_QUANT_PER_AXIS, 0u);
  // Axis 1 of [2, 3, 4]: 3 scales, 4 elements after the axis; negative axes count from the end.
  a.scale = a.zero = {3};
  p = plan_of(a);
  EXPECT_NE(p.push.codes & OG_QUANT_PER_AXIS, 0u);
  EXPECT_EQ(p.push.inner, 4u);
  EXPECT_EQ(p.push.axis_length, 3u);
  a.axis = -2;
  EXPECT_EQ(plan_of(a).push.inner, 4u);
  a.axis = 2;
  a.scale = a.zero = {4};
  EXPECT_EQ(plan_of(a).push.inner, 1u);
  a.axis = 0;
  a.scale = a.zero = {2};
  EXPECT_EQ(plan_of(a).push.inner, 12u);
  a.has_zero = false;
  EXPECT_EQ(plan_of(a).push.codes & OG_QUANT_ZERO, 0u);
}

TEST(QuantizePlanTest, SignedAndAligned) {
  Args a;
  a.yt = a.zt = i8;
  EXPECT_NE(plan_of(a).push.codes & OG_QUANT_SIGNED, 0u);
  a.op = QuantizeOperation::dequantize_linear;
  a.xt = u8;
  a.zt = u8;
  a.yt = f32;
  EXPECT_EQ(plan_of(a).push.codes & OG_QUANT_SIGNED, 0u);
  a.x_offset = 5;
  a.y_offset = 1;
  EXPECT_NE(plan_of(a).push.codes & OG_QUANT_ALIGNED, 0u);
  a.y_offset = 2;
  EXPECT_EQ(plan_of(a).push.codes & OG_QUANT_ALIGNED, 0u);
  a.x_offset = 1;
  a.y_offset = 5;
  EXPECT_NE(plan_of(a).push.codes & OG_QUANT_ALIGNED, 0u);
}

TEST(QuantizePlanTest, ChecksNameTheOperationAndArgument) {
  using E = std::pair<std::string, std::string>;
  Args a;
  a.y = {2, 3, 5};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "y"));
  a = Args{};
  a.scale = a.zero = {3};
  a.axis = 3;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "axis"));
  a.axis = -4;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "axis"));
  a.axis = 2;  // 4 elements on axis 2, 3 scales
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "scale"));
  a.axis = 1;
  a.zero = {4};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "zero_point"));
  a.zero = {3};
  a.zt = i8;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "zero_point"));
  a = Args{};
  a.scale = {3, 1};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "scale"));
  a = Args{};
  a.x_offset = (uint64_t(1) << 31) - 10;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "x"));
  a = Args{};
  a.x = a.y = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "x"));
  a.x = a.y = {-1, 3};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("QuantizeLinear", "x"));
  a = Args{};
  a.op = QuantizeOperation::dequantize_linear;
  a.xt = i32;
  a.yt = f16;
  a.zt = u8;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("DequantizeLinear", "zero_point"));
  a.zt = i32;
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("none", "none"));
}

TEST(QuantizePlanTest, GridsAreCappedAndCoverTheWords) {
  EXPECT_EQ(grid_for(0, kMaxWorkgroups), 1u);
  EXPECT_EQ(grid_for(256, kMaxWorkgroups), 1u);
  EXPECT_EQ(grid_for(257, kMaxWorkgroups), 2u);
  EXPECT_EQ(grid_for(uint64_t(1) << 26, kMaxWorkgroups), kMaxWorkgroups);
  Args a;
  a.x = a.y = {1000};
  a.y_offset = 3;  // words 0 .. 250: 251 groups
  const Plan p = plan_of(a);
  EXPECT_EQ(p.workgroups, 1u);
  EXPECT_EQ(p.push.count, 1000u);
  EXPECT_EQ(p.push.y_offset, 3u);
}

TEST(QuantizePlanTest, DynamicPasses) {
  Args a;
  a.op = QuantizeOperation::dynamic_quantize_linear;
  a.x = a.y = {128, 768};
  a.scale = {};
  a.zero = {1};
  Plan p = plan_of(a);
  EXPECT_EQ(p.first, "dynamic.minmax");
  EXPECT_EQ(p.main, "dynamic.quantize");
  EXPECT_EQ(p.first_workgroups, 24u);  // 98304 elements, 4096 per pair
  EXPECT_EQ(p.push.partials, 24u);
  EXPECT_EQ(p.first_push.workgroups, 24u);
  a.x = a.y = {int64_t(1) << 24};
  p = plan_of(a);
  EXPECT_EQ(p.first_workgroups, kMaxPartials);
  EXPECT_EQ(p.workgroups, kMaxDynamicWorkgroups);
  a.x = a.y = {5};
  EXPECT_EQ(plan_of(a).first_workgroups, 1u);
  a.x = a.y = {0};
  EXPECT_EQ(plan_of(a).first_workgroups, 1u);  // still writes scale 1 and zero point 0
  using E = std::pair<std::string, std::string>;
  a.x = a.y = {8};
  a.scale = {2};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("DynamicQuantizeLinear", "y_scale"));
  a.scale = {};
  a.zero = {1, 2};
  EXPECT_EQ(error_of([&] { plan_of(a); }), E("DynamicQuantizeLinear", "y_zero_point"));
  a.zero = {};
  a.zt = i8;
  EXPECT_EQ(unsupported([&] { plan_of(a); }), "DynamicQuantizeLinear y_zero_point type");
}

}  // namespace
}  // namespace onegpu::kernels::quantize
