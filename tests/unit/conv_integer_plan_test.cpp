// ConvInteger decisions without a GPU: geometry and its errors, the column matrix's size, chunks,
// the grouping of the products, the products' fields and the unfold pass's push constants.
#include <gtest/gtest.h>

#include "kernels/conv_integer/conv_integer_plan.h"
#include "onegpu/errors.h"
#include "support/shape_error.h"

namespace onegpu::kernels::conv_integer {
namespace {

using onegpu::testing::shape_error_argument;
using onegpu::testing::shape_error_message;

ConvIntegerProblem layer(int64_t batch, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k,
                         int64_t stride = 1, int64_t groups = 1) {
  ConvIntegerProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {h, w}, p.groups = groups;
  const int64_t pad = k / 2;
  p.window = Window{{k, k}, {stride, stride}, {1, 1}, {pad, pad, pad, pad}};
  return p;
}

// A 1-D layer as 2-D with height 1.
ConvIntegerProblem line(int64_t batch, int64_t cin, int64_t cout, int64_t width, int64_t k, int64_t stride, int64_t pad) {
  ConvIntegerProblem p;
  p.batch = batch, p.in_channels = cin, p.out_channels = cout, p.input = {1, width};
  p.window = Window{{1, k}, {1, stride}, {1, 1}, {0, pad, 0, pad}};
  return p;
}

TEST(ConvIntegerPlan, GeometryOfWhisperStem) {
  const Geometry g = resolve(line(1, 80, 768, 3000, 3, 1, 1));
  EXPECT_EQ(g.oh, 1u);
  EXPECT_EQ(g.ow, 3000u);
  EXPECT_EQ(g.depth(), 240u);
  EXPECT_EQ(g.row_bytes(), 3000u);
  EXPECT_EQ(g.image_bytes(), 240u * 3000);
  const Geometry s = resolve(line(1, 768, 768, 3000, 3, 2, 1));
  EXPECT_EQ(s.ow, 1500u);
  EXPECT_EQ(s.depth(), 2304u);
  const Counts c = counts(s);
  EXPECT_EQ(c.x, 768u * 3000);
  EXPECT_EQ(c.w, 768u * 768 * 3);
  EXPECT_EQ(c.y, 768u * 1500);
}

TEST(ConvIntegerPlan, RowsRoundUpToWords) {
  const Geometry g = resolve(layer(2, 4, 6, 5, 7, 3));  // 5 x 7 -> 5 x 7 (pad 1), 35 pixels
  EXPECT_EQ(g.pixels(), 35u);
  EXPECT_EQ(g.row_bytes(), 36u);
  EXPECT_EQ(g.image_bytes(), 4u * 9 * 36);
  EXPECT_EQ(g.image_bytes() % 4, 0u);
}

TEST(ConvIntegerPlan, AutoPadAndStrides) {
  ConvIntegerProblem p = layer(1, 3, 8, 10, 11, 3, 2);
  p.window.pads = {0, 0, 0, 0};
  p.auto_pad = AutoPad::same_upper;
  const Geometry g = resolve(p);
  EXPECT_EQ(g.oh, 5u);
  EXPECT_EQ(g.ow, 6u);
  EXPECT_EQ(g.window.pads, (std::array<int64_t, 4>{0, 1, 1, 1}));
  p.auto_pad = AutoPad::valid;
  EXPECT_EQ(p.output(), (Extent2{4, 5}));
}

TEST(ConvIntegerPlan, ShapeErrorsNameTheArgument) {
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 6, 8, 5, 5, 3, 1, 4)); }), "groups");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 8, 6, 5, 5, 3, 1, 4)); }), "groups");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 0, 8, 5, 5, 3)); }), "in_channels");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 4, 0, 5, 5, 3)); }), "out_channels");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(-1, 4, 8, 5, 5, 3)); }), "batch");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1, 4, 8, 5, 5, 3, 1, 0)); }), "groups");
  EXPECT_EQ(shape_error_argument([] {
              ConvIntegerProblem p = layer(1, 4, 8, 5, 5, 3);
              p.window.pads = {0, 0, 0, 0};
              p.window.kernel = {7, 7};
              resolve(p);
            }),
            "kernel");
  EXPECT_EQ(shape_error_argument([] {
              ConvIntegerProblem p = layer(1, 4, 8, 5, 5, 3);
              p.window.strides = {0, 1};
              resolve(p);
            }),
            "strides");
  EXPECT_EQ(shape_error_argument([] {
              ConvIntegerProblem p = layer(1, 4, 8, 5, 5, 3);
              p.x_offset = (uint64_t(1) << 32) - 10;
              resolve(p);
            }),
            "x");
  EXPECT_EQ(shape_error_argument([] { resolve(layer(1 << 20, 1 << 10, 8, 64, 64, 3)); }), "x");
  EXPECT_NE(shape_error_message([] { resolve(layer(1, 6, 8, 5, 5, 3, 1, 4)); }).find("ConvInteger"),
            std::string::npos);
}

TEST(ConvIntegerPlan, TypesOtherThanBytesAreUnsupported) {
  ConvIntegerProblem p = layer(1, 4, 8, 5, 5, 3);
  p.x_type = DataType::float32;
  EXPECT_THROW(resolve(p), UnsupportedError);
  p.x_type = DataType::int8;
  p.w_type = DataType::int32;
  EXPECT_THROW(resolve(p), UnsupportedError);
  p.w_type = DataType::uint8;
  EXPECT_NO_THROW(resolve(p));
}

TEST(ConvIntegerPlan, ChunksOfWholeImages) {
  const Geometry g = resolve(layer(8, 16, 16, 6, 6, 3));  // 36 pixels, 144 rows
  const uint64_t per = g.image_bytes();
  EXPECT_EQ(per, 144u * 36);
  EXPECT_EQ(chunk_images(g, per * 8), 8u);
  EXPECT_EQ(chunk_images(g, per * 100), 8u);
  EXPECT_EQ(chunk_images(g, per * 3 + per - 1), 3u);
  EXPECT_EQ(chunk_images(g, per - 1), 0u);
}

TEST(ConvIntegerPlan, GroupingOfProducts) {
  EXPECT_EQ(grouping(resolve(layer(4, 8, 8, 5, 5, 3)), false), Grouping::whole);
  EXPECT_EQ(grouping(resolve(layer(4, 8, 8, 5, 5, 3)), true), Grouping::whole);
  EXPECT_EQ(grouping(resolve(layer(1, 8, 8, 5, 5, 3, 1, 8)), false), Grouping::per_image);
  EXPECT_EQ(grouping(resolve(layer(1, 8, 8, 5, 5, 3, 1, 8)), true), Grouping::per_group);
  EXPECT_EQ(grouping(resolve(layer(8, 8, 8, 5, 5, 3, 1, 2)), false), Grouping::per_group);
  const Geometry g = resolve(layer(3, 8, 8, 5, 5, 3, 1, 4));
  EXPECT_EQ(product_count(g, Grouping::per_image, 3), 3u);
  EXPECT_EQ(product_count(g, Grouping::per_group, 3), 4u);
  EXPECT_EQ(product_count(g, Grouping::whole, 3), 1u);
}

TEST(ConvIntegerPlan, OneGroupIsOneProductOverImages) {
  ConvIntegerProblem p = layer(5, 3, 7, 6, 5, 3);
  p.x_type = DataType::int8, p.w_type = DataType::uint8;
  p.w_offset = 3, p.y_offset = 11;
  const Geometry g = resolve(p);  // 6 x 5 pixels: 30, rows of 32 bytes; depth 27
  const Product x = product(g, Grouping::whole, 2, 3, 0, 400);
  const IntegerGemmProblem& q = x.problem;
  EXPECT_EQ(q.m, 7u);
  EXPECT_EQ(q.n, 30u);
  EXPECT_EQ(q.k, 27u);
  EXPECT_EQ(q.batch, 3u);
  EXPECT_EQ(q.a_type, DataType::uint8);
  EXPECT_EQ(q.b_type, DataType::int8);
  EXPECT_EQ(*q.lda, 27u);
  EXPECT_EQ(*q.ldb, 32u);
  EXPECT_EQ(*q.ldc, 30u);
  EXPECT_EQ(q.offset_a, 3u);
  EXPECT_EQ(q.offset_b, 400u);
  EXPECT_EQ(q.offset_c, 11u + 2 * 7 * 30);
  EXPECT_EQ(*q.stride_a, 0u);
  EXPECT_EQ(*q.stride_b, 27u * 32);
  EXPECT_EQ(*q.stride_c, 7u * 30);
  EXPECT_EQ(x.w_zero_shift, 0u);
}

TEST(ConvIntegerPlan, GroupsAsBatchesOrProducts) {
  const Geometry g = resolve(layer(2, 6, 9, 4, 4, 3, 1, 3));  // 16 pixels, cin_g 2, cout_g 3, depth 18
  const uint64_t image = 3u * 18 * 16, group = 18u * 16, y_image = 9u * 16;
  const Product a = product(g, Grouping::per_image, 0, 2, 1, 8);
  EXPECT_EQ(a.problem.m, 3u);
  EXPECT_EQ(a.problem.batch, 3u);
  EXPECT_EQ(a.problem.offset_a, 0u);
  EXPECT_EQ(*a.problem.stride_a, 3u * 18);
  EXPECT_EQ(a.problem.offset_b, 8u + image);
  EXPECT_EQ(*a.problem.stride_b, group);
  EXPECT_EQ(a.problem.offset_c, y_image);
  EXPECT_EQ(*a.problem.stride_c, 3u * 16);
  const Product b = product(g, Grouping::per_group, 1, 1, 2, 8);
  EXPECT_EQ(b.problem.m, 3u);
  EXPECT_EQ(b.problem.batch, 1u);
  EXPECT_EQ(b.problem.offset_a, 2u * 3 * 18);
  EXPECT_EQ(*b.problem.stride_a, 0u);
  EXPECT_EQ(b.problem.offset_b, 8u + 2 * group);
  EXPECT_EQ(*b.problem.stride_b, image);
  EXPECT_EQ(b.problem.offset_c, y_image + 2 * 3 * 16);
  EXPECT_EQ(*b.problem.stride_c, y_image);
  EXPECT_EQ(b.w_zero_shift, 6u);
}

TEST(ConvIntegerPlan, UnfoldPushConstants) {
  ConvIntegerProblem p = layer(4, 6, 4, 7, 9, 3, 2, 2);
  p.window.dilations = {2, 1};
  p.window.pads = {2, 1, 2, 1};
  p.x_offset = 5;
  const Geometry g = resolve(p);
  const ConvIntegerPush c = unfold_push(g, 1, 2, 64);
  EXPECT_EQ(c.ih, 7u);
  EXPECT_EQ(c.iw, 9u);
  EXPECT_EQ(c.oh, g.oh);
  EXPECT_EQ(c.sh, 2u);
  EXPECT_EQ(c.dh, 2u);
  EXPECT_EQ(c.ph, 2u);
  EXPECT_EQ(c.pw, 1u);
  EXPECT_EQ(c.cin_g, 3u);
  EXPECT_EQ(c.depth, 27u);
  EXPECT_EQ(c.row_words, g.row_bytes() / 4);
  EXPECT_EQ(c.x_off, 5u + 6 * 7 * 9);
  EXPECT_EQ(c.t_off, 16u);
  EXPECT_EQ(c.words, 2 * g.image_bytes() / 4);
}

}  // namespace
}  // namespace onegpu::kernels::conv_integer
