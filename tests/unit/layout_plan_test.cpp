// Layout decisions without a GPU: merging, the variant each copy picks, and the shape helpers.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/merge.h"
#include "kernels/layout/layout_plan.h"
#include "onegpu/errors.h"
#include "onegpu/kernels/layout.h"

namespace onegpu::kernels::layout {
namespace {

using Shape = std::vector<int64_t>;

TensorRef ref(const Shape& s, DataType t = DataType::float32, uint64_t offset = 0, const Shape& strides = {}) {
  return TensorRef{nullptr, offset, s, strides, t};
}

Pass transpose_plan(const Shape& x, const Shape& perm, DataType t = DataType::float32, uint64_t out_offset = 0) {
  const Shape y = onegpu::kernels::Layout::transpose_shape(x, perm);
  const Copy c = transpose_copy(operand_of(ref(x, t)), perm, operand_of(ref(y, t, out_offset)));
  return plan("Transpose", c, t, out_offset);
}

TEST(MergeDims, DropsOnesAndMergesContiguousRuns) {
  const uint64_t shape[] = {2, 1, 3, 4};
  const int64_t a[] = {12, 99, 4, 1}, b[] = {0, 0, 1, 3};
  std::span<const int64_t> s[] = {a};
  MergedDims m = merge_dims(shape, s);
  ASSERT_EQ(m.rank, 1u);
  EXPECT_EQ(m.shape[0], 24u);
  std::span<const int64_t> s2[] = {a, b};
  m = merge_dims(shape, s2);
  ASSERT_EQ(m.rank, 3u);  // b: 2 broadcast, (3, 4) transposed
  EXPECT_EQ(m.stride[1][1], 1);
  // A kept dimension neither merges nor drops.
  const uint64_t shape2[] = {2, 1, 4};
  const int64_t c[] = {4, 4, 1};
  std::span<const int64_t> s3[] = {c};
  m = merge_dims(shape2, s3, 1);
  ASSERT_EQ(m.rank, 3u);
  EXPECT_EQ(m.kept, 1);
}

TEST(LayoutPlan, PermutationsMergeWhereDimensionsStayNeighbours) {
  // [2, 3, 4, 5] -> perm (2, 3, 0, 1): two merged blocks, a 2-D transpose (6, 20) -> (20, 6).
  Pass p = transpose_plan({2, 3, 4, 5}, {2, 3, 0, 1});
  EXPECT_EQ(p.rank, 2u);
  EXPECT_EQ(p.shape[0], 20u);
  EXPECT_EQ(p.shape[1], 6u);
  EXPECT_EQ(p.stride[0][0], 1);
  EXPECT_EQ(p.stride[0][1], 20);
  // Identity merges to one dimension: a row copy.
  p = transpose_plan({3, 4, 8}, {0, 1, 2});
  EXPECT_EQ(p.rank, 1u);
  EXPECT_EQ(p.algorithm, Algorithm::rows);
  // Size-1 dimensions drop.
  p = transpose_plan({1, 5, 1, 7}, {2, 1, 0, 3});
  EXPECT_EQ(p.rank, 1u);
}

TEST(LayoutPlan, SevenUnmergeableDimensionsAreRefused) {
  const Shape x = {2, 2, 2, 2, 2, 2, 2};
  const Shape perm = {6, 5, 4, 3, 2, 1, 0};
  try {
    transpose_plan(x, perm);
    FAIL() << "no error";
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "Transpose");
    EXPECT_EQ(e.argument(), "shape");
  }
  EXPECT_EQ(transpose_plan({2, 2, 2, 2, 2, 2}, {5, 4, 3, 2, 1, 0}).rank, 6u);
  // Rank 8 that merges to few dimensions is fine.
  EXPECT_EQ(transpose_plan({2, 3, 2, 3, 2, 3, 2, 3}, {4, 5, 6, 7, 0, 1, 2, 3}).rank, 2u);
}

TEST(LayoutPlan, VariantChoice) {
  Pass p;
  // 2-D and batched 2-D transposes (NCHW -> NHWC) are tiled.
  EXPECT_EQ(transpose_plan({256, 512}, {1, 0}).algorithm, Algorithm::tiled);
  EXPECT_EQ(transpose_plan({4, 64, 7, 9}, {0, 2, 3, 1}).algorithm, Algorithm::tiled);
  EXPECT_EQ(transpose_plan({4, 64, 7, 9}, {0, 2, 3, 1}).rank, 3u);
  // Head split keeps d contiguous: row copy when rows are whole 16-byte vectors.
  EXPECT_EQ(transpose_plan({8, 512, 12, 64}, {0, 2, 1, 3}, DataType::float16).algorithm, Algorithm::rows);
  EXPECT_EQ(transpose_plan({8, 512, 12, 6}, {0, 2, 1, 3}, DataType::float16).algorithm, Algorithm::copy);
  // 16-bit tiles need word-aligned output rows.
  EXPECT_EQ(transpose_plan({64, 64}, {1, 0}, DataType::float16).algorithm, Algorithm::tiled);
  EXPECT_EQ(transpose_plan({63, 64}, {1, 0}, DataType::float16).algorithm, Algorithm::copy);
  EXPECT_EQ(transpose_plan({64, 64}, {1, 0}, DataType::float16, 1).algorithm, Algorithm::copy);
  // Any dimension along which the source is contiguous tiles against the output's last, the
  // others (up to 4) as batch dimensions.
  p = transpose_plan({20, 5, 30}, {2, 1, 0});
  EXPECT_EQ(p.algorithm, Algorithm::tiled);
  EXPECT_EQ(p.tile_p, 0u);
  const LayoutTilePush push = tile_push(p);
  EXPECT_EQ(push.batch_rank, 1u);
  EXPECT_EQ(push.batch_in[0], 30u);
  EXPECT_EQ(push.batch_out[0], 20u);
  EXPECT_EQ(push.out_stride_p, 100u);
  EXPECT_EQ(transpose_plan({20, 2, 3, 2, 3, 17}, {5, 3, 1, 4, 2, 0}).algorithm, Algorithm::tiled);
  // Small or irregular permutations take the general copy.
  EXPECT_EQ(transpose_plan({3, 4, 5}, {2, 0, 1}).algorithm, Algorithm::copy);
  EXPECT_EQ(transpose_plan({3, 4, 5, 6}, {3, 1, 2, 0}).algorithm, Algorithm::copy);
}

TEST(LayoutPlan, SliceShapeFollowsOnnx) {
  const Shape x = {10, 8};
  using onegpu::kernels::Layout;
  EXPECT_EQ(Layout::slice_shape(x, Shape{2}, Shape{7}), (Shape{5, 8}));
  EXPECT_EQ(Layout::slice_shape(x, Shape{-3}, Shape{INT64_MAX}), (Shape{3, 8}));
  EXPECT_EQ(Layout::slice_shape(x, Shape{-1}, Shape{INT64_MIN}, Shape{}, Shape{-1}), (Shape{10, 8}));
  EXPECT_EQ(Layout::slice_shape(x, Shape{100}, Shape{-100}, Shape{1}, Shape{-3}), (Shape{10, 3}));  // 7, 4, 1
  EXPECT_EQ(Layout::slice_shape(x, Shape{5}, Shape{2}, Shape{}, Shape{1}), (Shape{0, 8}));
  EXPECT_EQ(Layout::slice_shape(x, Shape{0, 1}, Shape{10, 8}, Shape{-1, 0}, Shape{2, 4}), (Shape{2, 4}));
  EXPECT_THROW(Layout::slice_shape(x, Shape{0}, Shape{1}, Shape{}, Shape{0}), KernelShapeError);
  EXPECT_THROW(Layout::slice_shape(x, Shape{0, 0}, Shape{1, 1}, Shape{1, -1}), KernelShapeError);  // axis twice
  EXPECT_THROW(Layout::slice_shape(x, Shape{0}, Shape{1}, Shape{2}), KernelShapeError);
  EXPECT_THROW(Layout::slice_shape(x, Shape{0}, Shape{1, 2}), KernelShapeError);
}

TEST(LayoutPlan, SliceWithNegativeStepsHasSignedStrides) {
  const Shape x = {10, 8}, y = {10, 3};
  const Shape starts = {-1, 0}, ends = {INT64_MIN, 8}, steps = {-1, 3};
  const Copy c = slice_copy(operand_of(ref(x)), starts, ends, {}, steps, operand_of(ref(y)));
  EXPECT_EQ(c.offset[0], 72);
  EXPECT_EQ(c.stride[0][0], -8);
  EXPECT_EQ(c.stride[0][1], 3);
  EXPECT_EQ(plan("Slice", c, DataType::float32, 0).algorithm, Algorithm::copy);
}

TEST(LayoutPlan, ExpandShapeBroadcasts) {
  using onegpu::kernels::Layout;
  EXPECT_EQ(Layout::expand_shape(Shape{3, 1}, Shape{2, 1, 6}), (Shape{2, 3, 6}));
  EXPECT_EQ(Layout::expand_shape(Shape{3, 4}, Shape{1}), (Shape{3, 4}));
  EXPECT_THROW(Layout::expand_shape(Shape{3, 4}, Shape{5, 4, 2}), KernelShapeError);
  const Shape xs = {3, 1}, ys = {2, 3, 6};
  const Copy c = expand_copy(operand_of(ref(xs)), operand_of(ref(ys)));
  const Pass p = plan("Expand", c, DataType::float32, 0);
  EXPECT_EQ(p.rank, 3u);
  EXPECT_EQ(p.stride[0][0], 0);
  EXPECT_EQ(p.stride[0][1], 1);
  EXPECT_EQ(p.stride[0][2], 0);
}

TEST(LayoutPlan, ConcatTakesFourDenseInputsPerPass) {
  const Shape a = {4, 3, 5}, out = {4, 18, 5};
  std::vector<TensorRef> in(6, ref(a));
  const TensorRef o = ref(out);
  EXPECT_EQ(onegpu::kernels::Layout::concat_shape(std::vector<std::span<const int64_t>>(6, a), 1), out);
  const uint32_t axis = concat_check(in, -2, operand_of(o));
  EXPECT_EQ(axis, 1u);
  size_t next = 0;
  Pass p = concat_pass(in, axis, operand_of(o), 0, next);
  EXPECT_EQ(p.sources, 4u);
  EXPECT_EQ(next, 4u);
  EXPECT_EQ(p.rank, 3u);
  EXPECT_EQ(p.sel, 1u);
  EXPECT_EQ(p.lo[3], 9u);
  p = concat_pass(in, axis, operand_of(o), next, next);
  EXPECT_EQ(p.sources, 2u);
  EXPECT_EQ(p.sel_end, 18u);
  EXPECT_EQ(next, 6u);
  // A mismatching dimension or a wrong total is refused.
  const Shape bad = {4, 3, 6};
  in[2] = ref(bad);
  EXPECT_THROW(concat_check(in, 1, operand_of(o)), KernelShapeError);
}

TEST(LayoutPlan, ConcatLengthsThatWouldWrapAreRefused) {
  // Empty tensors (a zero dimension) may have huge lengths along the axis: their sum must not wrap
  // to the output's length.
  const Shape huge = {0, INT64_MAX}, seven = {0, 7}, out = {0, 5};
  const std::vector<TensorRef> in = {ref(huge), ref(huge), ref(seven)};
  EXPECT_THROW(concat_check(in, 1, operand_of(ref(out))), KernelShapeError);
  const Shape quarter = {0, int64_t(1) << 62};
  EXPECT_THROW(onegpu::kernels::Layout::concat_shape(std::vector<std::span<const int64_t>>(4, quarter), 1),
               KernelShapeError);
}

TEST(LayoutPlan, ConcatOfAlignedRowsRunsAsRowCopies) {
  const Shape a = {4096, 1024}, out = {4096, 4096};
  const std::vector<TensorRef> in(4, ref(a));
  const TensorRef o = ref(out);
  EXPECT_TRUE(concat_by_blocks(in, 1, operand_of(o)));
  const Pass p = concat_block(in, 1, operand_of(o), 2);
  EXPECT_EQ(p.algorithm, Algorithm::rows);
  EXPECT_EQ(p.out_offset, 2048u);
  EXPECT_EQ(p.out_stride[0], 4096);
  // Rows of 7 float32 are not whole vectors: the four-input copy.
  const Shape b = {16, 7}, out2 = {16, 28};
  const std::vector<TensorRef> in2(4, ref(b));
  EXPECT_FALSE(concat_by_blocks(in2, 1, operand_of(ref(out2))));
}

TEST(LayoutPlan, TypesMustMatch) {
  const Shape x = {4, 4};
  try {
    transpose_copy(operand_of(ref(x)), {}, operand_of(ref(x, DataType::int32)));
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.argument(), "output");
  }
}

}  // namespace
}  // namespace onegpu::kernels::layout
