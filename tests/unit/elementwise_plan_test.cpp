// Element-wise plans without a GPU: type checks, output shapes and strides, variant choice, grid and
// the codes word.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "kernels/elementwise/elementwise_plan.h"
#include "onegpu/errors.h"
#include "onegpu/kernels/elementwise.h"

namespace onegpu::kernels::elementwise {
namespace {

using Shape = std::vector<int64_t>;

Request binary(const Shape& a, const Shape& b, const Shape& out, DataType t = DataType::float32) {
  Request r;
  r.operation = "Elementwise";
  r.kind = ElementwiseOperation::binary;
  r.op = uint32_t(BinaryOp::add);
  r.inputs[0] = {a, {}, t, 0, "a"};
  r.inputs[1] = {b, {}, t, 0, "b"};
  r.input_count = 2;
  r.out = {out, {}, t, 0, "out"};
  return r;
}

std::string error_of(const Request& r) {
  try {
    plan(r);
  } catch (const KernelShapeError& e) {
    return e.what();
  }
  return "";
}

TEST(ElementwisePlan, VariantByShapeAndType) {
  Shape n = {4096}, rows = {64, 1024}, bias = {1024}, odd = {3, 5, 7}, odd_b = {5, 1};
  Plan p = plan(binary(n, n, n));
  EXPECT_EQ(p.group, Group::float_ops);
  EXPECT_EQ(p.walk, Walk::same_shape);
  EXPECT_EQ(p.fixed, Fixed::word32);
  EXPECT_EQ(p.words, 8u);
  EXPECT_EQ(p.linear_groups, 2u);  // 4096 words, 2048 a workgroup
  p = plan(binary(rows, bias, rows));
  EXPECT_EQ(p.walk, Walk::rows);
  EXPECT_EQ(p.groups, (std::array<uint32_t, 3>{1, 64, 1}));
  p = plan(binary(odd, odd_b, odd, DataType::float16));
  EXPECT_EQ(p.walk, Walk::broadcast);
  EXPECT_EQ(p.fixed, Fixed::any);
  EXPECT_TRUE(declared(p.group, p.walk, p.fixed));
}

TEST(ElementwisePlan, StridedInputsTakeTheIndexWalk) {
  Shape s = {8, 16}, transposed = {1, 8};  // a column-major view of 8 x 16
  Request r = binary(s, s, s);
  r.inputs[0].strides = transposed;
  Plan p = plan(r);
  EXPECT_NE(p.walk, Walk::same_shape);
  EXPECT_EQ(p.layout.stride[0][0], 1u);
  EXPECT_EQ(p.layout.stride[0][1], 8u);
  EXPECT_EQ(p.layout.operand_elements[0], 128u);
  Shape dense = {16, 1};
  r.inputs[0].strides = dense;  // row-major strides given explicitly: one dimension, in order
  EXPECT_EQ(plan(r).walk, Walk::same_shape);
  Shape every_other = {32, 2};
  r.inputs[0].strides = every_other;
  EXPECT_EQ(plan(r).layout.operand_elements[0], 7u * 32 + 15 * 2 + 1);
  Shape negative = {-16, 1};
  r.inputs[0].strides = negative;
  EXPECT_EQ(error_of(r), "Elementwise: strides: stride 0 is negative (-16)");
  Shape short_strides = {1};
  r.inputs[0].strides = short_strides;
  EXPECT_EQ(error_of(r), "Elementwise: strides: 1 strides for rank 2");
  r.inputs[0].strides = {};
  r.out.strides = transposed;  // outputs are dense
  EXPECT_EQ(error_of(r), "Elementwise: strides: out is not dense row-major (outputs must be)");
}

TEST(ElementwisePlan, TypesAndShapesAreChecked) {
  Shape n = {10}, m = {11};
  Request r = binary(n, n, n);
  r.inputs[1].type = DataType::float16;
  EXPECT_EQ(error_of(r), "Elementwise: b: float16 does not match a's float32");
  r = binary(n, n, n);
  r.out.type = DataType::int32;
  EXPECT_EQ(error_of(r), "Elementwise: out: int32 does not match a's float32");
  r = binary(n, n, n, DataType::int32);
  EXPECT_EQ(error_of(r), "Elementwise: a: int32 is not float32 or float16");
  r = binary(n, n, m);
  EXPECT_EQ(error_of(r), "Elementwise: out: its shape is not the result's shape (rank 1, 10 elements)");
  r = binary(n, n, n);
  r.kind = ElementwiseOperation::compare;
  EXPECT_EQ(error_of(r), "Elementwise: out: float32 is not bool");
  r.out.type = DataType::boolean;
  EXPECT_EQ(plan(r).group, Group::float_ops);
  r = binary(n, n, n, DataType::int64);
  r.kind = ElementwiseOperation::integer_binary;
  EXPECT_EQ(plan(r).fixed, Fixed::int64);
  r.op = uint32_t(IntegerOp::logical_and);
  EXPECT_EQ(error_of(r), "Elementwise: a: int64 is not bool");
}

TEST(ElementwisePlan, CountsThatWrapAreRefused) {
  // 274177 x 67280421310721 = 2^64 + 1: the product wraps to 1.
  Shape wraps = {274177, 67280421310721};
  Request r = binary(wraps, wraps, wraps);
  EXPECT_THROW(plan(r), KernelShapeError);
  Request fill;
  fill.operation = "Fill";
  fill.kind = ElementwiseOperation::fill;
  fill.out = {wraps, {}, DataType::float32, 0, "out"};
  EXPECT_THROW(plan(fill), KernelShapeError);
  Shape big = {1 << 16, 1 << 15};  // 2^31 elements
  fill.out.shape = big;
  EXPECT_EQ(error_of(fill), "Fill: shape: more than 2^31 - 1 elements");
}

TEST(ElementwisePlan, CodesWordFields) {
  Shape n = {6, 7}, b = {7};
  Request r = binary(n, b, n, DataType::float16);
  r.op = uint32_t(BinaryOp::max);
  r.activation = {UnaryOp::leaky_relu, {0.5f, 0}};
  const Plan p = plan(r);
  const EltPush push = push_constants(p, r);
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_OP_SHIFT, OG_ELT_OP_WIDTH), OG_BIN_MAX);
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_KIND_SHIFT, OG_ELT_KIND_WIDTH), OG_ELT_BINARY);
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_IN_TYPE_SHIFT, OG_ELT_IN_TYPE_WIDTH), OG_T_F16);
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_OUT_TYPE_SHIFT, OG_ELT_OUT_TYPE_WIDTH), OG_T_F16);
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_ACT_SHIFT, OG_ELT_ACT_WIDTH), uint32_t(UnaryOp::leaky_relu));
  EXPECT_EQ(OG_ELT_FIELD(push.codes, OG_ELT_RANK_SHIFT, OG_ELT_RANK_WIDTH), p.layout.rank);
  EXPECT_EQ(push.alpha, 0.5f);
}

TEST(ElementwiseRange, LengthsOfNonFiniteOrHugeRangesAreRefused) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(kernels::Elementwise::range_length(0.0, 10.0, 3.0), 4u);
  EXPECT_EQ(kernels::Elementwise::range_length(10.0, 0.0, 3.0), 0u);
  EXPECT_THROW(kernels::Elementwise::range_length(0.0, inf, 1.0), KernelShapeError);
  EXPECT_THROW(kernels::Elementwise::range_length(0.0, nan, 1.0), KernelShapeError);
  EXPECT_THROW(kernels::Elementwise::range_length(nan, 1.0, 1.0), KernelShapeError);
  EXPECT_THROW(kernels::Elementwise::range_length(0.0, 1.0, inf), KernelShapeError);
  EXPECT_THROW(kernels::Elementwise::range_length(0.0, 1e300, 1e-300), KernelShapeError);
}

}  // namespace
}  // namespace onegpu::kernels::elementwise
