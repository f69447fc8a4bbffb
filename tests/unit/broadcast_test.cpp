// Broadcasting without a GPU: output shapes, merging and paths.
#include <gtest/gtest.h>

#include "kernels/elementwise/broadcast.h"
#include "elementwise/elementwise_push.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::elementwise {
namespace {

std::vector<int64_t> out_shape(const Layout& l) { return {l.out_shape.begin(), l.out_shape.begin() + l.out_rank}; }

Layout of(std::vector<std::vector<int64_t>> shapes) {
  std::vector<std::span<const int64_t>> s;
  for (auto& x : shapes) s.emplace_back(x);
  return broadcast("Elementwise", s);
}

TEST(Broadcast, ShapesAlignOnTheRight) {
  Layout l = of({{2, 3, 4}, {4}});
  EXPECT_EQ(out_shape(l), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(l.rank, 2u);  // (6, 4): a contiguous, b a row
  EXPECT_EQ(l.shape[0], 6u);
  EXPECT_EQ(l.stride[1][0], 0u);
  EXPECT_EQ(l.stride[1][1], 1u);
  EXPECT_EQ(out_shape(of({{5, 1}, {1, 7}})), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(of({{}, {3}}).count, 3u);  // a scalar
}

TEST(Broadcast, SameShapesMergeToOneDimension) {
  Layout l = of({{2, 3, 4, 5}, {2, 3, 4, 5}});
  EXPECT_EQ(l.rank, 1u);
  EXPECT_EQ(l.shape[0], 120u);
  EXPECT_EQ(path(l, 1, 0, 65535), 0u);
}

TEST(Broadcast, PathsByShape) {
  Layout bias = of({{37, 512}, {512}});
  EXPECT_EQ(path(bias, 1, 0, 65535), 1u);
  Layout narrow = of({{37, 64}, {64}});
  EXPECT_EQ(path(narrow, 1, 0, 65535), 2u);  // rows under 256 words
  Layout tall = of({{70000, 512}, {512}});
  EXPECT_EQ(path(tall, 1, 0, 65535), 2u);                 // more rows than the grid holds
  EXPECT_EQ(path(tall, 1, 0, 65535ull * 65535ull), 1u);  // rows over two grid dimensions
  Layout scalar = of({{1000}, {1}});
  EXPECT_EQ(path(scalar, 1, 0, 65535), 1u);  // one row
  EXPECT_EQ(scalar.shape[0], 1u);
  Layout odd = of({{37, 63}, {63}});
  EXPECT_EQ(path(odd, 2, 0, 65535), 2u);  // half rows that end inside a word
  Layout general = of({{2, 1, 3, 4}, {1, 5, 1, 4}});
  EXPECT_EQ(path(general, 1, 0, 65535), 2u);
}

TEST(Broadcast, FixedTypeVariants) {
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_FLOAT, OG_T_F32, OG_T_F32), 1u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_FLOAT, OG_T_F16, OG_T_F16), 0u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_FLOAT, OG_T_F32, OG_T_BOOL), 0u);  // compare
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_WHERE, OG_T_I32, OG_T_I32), 1u);   // Where moves 32-bit words as they are
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_WHERE, OG_T_I64, OG_T_I64), 2u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_WHERE, OG_T_F16, OG_T_F16), 0u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_INTEGER, OG_T_I32, OG_T_I32), 1u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_INTEGER, OG_T_I64, OG_T_I64), 2u);
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_INTEGER, OG_T_I64, OG_T_BOOL), 0u);  // integer compare
  EXPECT_EQ(fixed_types(OG_ELT_GROUP_CAST, OG_T_F32, OG_T_F32), 0u);   // cast
}

TEST(Broadcast, Errors) {
  try {
    of({{2, 3}, {4}});
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Elementwise: shape: dimension 1: 3 and 4 do not broadcast");
  }
  EXPECT_THROW(of({{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}}), KernelShapeError);  // rank 9
  // Seven unmergeable dimensions.
  EXPECT_THROW(of({{2, 1, 2, 1, 2, 1, 2}, {1, 2, 1, 2, 1, 2, 1}}), KernelShapeError);
  EXPECT_EQ(of({{2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2}}).rank, 6u);
}

}  // namespace
}  // namespace onegpu::kernels::elementwise
