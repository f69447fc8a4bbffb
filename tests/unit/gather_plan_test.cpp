// Gather decisions without a GPU: output shapes, checks, merging, the variant and the grid.
#include <gtest/gtest.h>

#include "kernels/gather/gather_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::gather {
namespace {

using Shape = std::vector<int64_t>;

struct Args {
  Shape data, indices, out;
  DataType type = DataType::float32, index_type = DataType::int32;
  uint64_t data_offset = 0, index_offset = 0, out_offset = 0;
};

Plan plan_of(GatherOperation op, const Args& a, int64_t axis) {
  Request r;
  r.operation = op;
  r.data = {a.data, {}, a.type, a.data_offset};
  r.indices = {a.indices, {}, a.index_type, a.index_offset};
  r.out = {a.out, {}, a.type, a.out_offset};
  r.axis = axis;
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

TEST(GatherPlanTest, GatherShapeFollowsOnnx) {
  EXPECT_EQ(gather_shape(Shape{5, 6, 7}, Shape{2, 3}, 1), (Shape{5, 2, 3, 7}));
  EXPECT_EQ(gather_shape(Shape{5, 6, 7}, Shape{}, -1), (Shape{5, 6}));
  EXPECT_EQ(gather_shape(Shape{5}, Shape{4}, 0), (Shape{4}));
  EXPECT_EQ(error_of([] { gather_shape(Shape{5, 6}, Shape{2}, 2); }), std::make_pair(std::string("Gather"), std::string("axis")));
  EXPECT_EQ(error_of([] { gather_shape(Shape{5, 6}, Shape{2}, -3); }).second, "axis");
  EXPECT_EQ(error_of([] { gather_shape(Shape{}, Shape{2}, 0); }).second, "data");
}

TEST(GatherPlanTest, GatherNdShapeFollowsOnnx) {
  EXPECT_EQ(gather_nd_shape(Shape{2, 2}, Shape{2, 2}, 0), (Shape{2}));
  EXPECT_EQ(gather_nd_shape(Shape{2, 2}, Shape{2, 1}, 0), (Shape{2, 2}));
  EXPECT_EQ(gather_nd_shape(Shape{2, 2, 2}, Shape{2, 1}, 1), (Shape{2, 2}));
  EXPECT_EQ(gather_nd_shape(Shape{2, 3, 4, 5}, Shape{2, 3, 6, 1}, 2), (Shape{2, 3, 6, 5}));
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{2, 3}, 0); }),
            std::make_pair(std::string("GatherND"), std::string("indices")));
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{2, 0}, 0); }).second, "indices");
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{2, 1}, 2); }).second, "batch_dims");
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{2, 1}, -1); }).second, "batch_dims");
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{3, 1}, 1); }).second, "indices");
  EXPECT_EQ(error_of([] { gather_nd_shape(Shape{2, 2}, Shape{}, 0); }).second, "indices");
}

TEST(GatherPlanTest, EmbeddingRowsUseUvec4WhenAligned) {
  const Plan p = plan_of(GatherOperation::gather, {{32000, 4096}, {8192}, {8192, 4096}}, 0);
  EXPECT_EQ(variant_name(p), "gather.rows.uvec4");
  EXPECT_EQ(p.push.row_units, 1024u);
  EXPECT_EQ(p.push.row_shift, 8u);  // a workgroup per row, four uvec4 per invocation
  EXPECT_EQ(p.push.row_chunks, 1u);
  EXPECT_EQ(p.workgroups, 8192u);
  EXPECT_EQ(p.push.dims[0], 32000u);
  // Short rows: several rows per workgroup.
  const Plan s = plan_of(GatherOperation::gather, {{100, 64}, {1000}, {1000, 64}}, 0);
  EXPECT_EQ(variant_name(s), "gather.rows.uvec4");
  EXPECT_EQ(s.push.row_shift, 2u);  // 16 units: 4 invocations, 64 rows per workgroup
  EXPECT_EQ(s.workgroups, (1000u + 63) / 64);
  // Long rows: several workgroups per row.
  const Plan l = plan_of(GatherOperation::gather, {{4, 65536}, {3}, {3, 65536}}, 0);
  EXPECT_EQ(l.push.row_chunks, 16u);
  EXPECT_EQ(l.workgroups, 3u * 16);
}

TEST(GatherPlanTest, UnalignedRowsFallBack) {
  // Rows of 4095 float32: words, not uvec4.
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, {{10, 4095}, {3}, {3, 4095}}, 0)), "gather.rows.word");
  // An output offset of one float32: words.
  Args a{{10, 64}, {3}, {3, 64}};
  a.out_offset = 1;
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, a, 0)), "gather.rows.word");
  // 8-bit rows of 6 bytes: not whole words, an invocation per output word.
  Args b{{10, 6}, {3}, {3, 6}, DataType::uint8};
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, b, 0)), "gather.index.w8");
  b.data = {10, 8};
  b.out = {3, 8};
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, b, 0)), "gather.rows.word");
  b.out_offset = 2;
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, b, 0)), "gather.index.w8");
  Args h{{10, 3}, {3}, {3, 3}, DataType::float16};
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, h, 0)), "gather.index.w16");
  Args l{{10, 3}, {3}, {3, 3}, DataType::int64};
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather, l, 0)), "gather.rows.word");  // 24-byte rows
}

TEST(GatherPlanTest, MiddleAxisIsOuterTuplesInner) {
  const Plan p = plan_of(GatherOperation::gather, {{3, 10, 5}, {2, 2}, {3, 2, 2, 5}}, 1);
  EXPECT_EQ(p.push.count, 12u);  // rows
  EXPECT_EQ(p.push.tuples, 4u);
  EXPECT_EQ(p.push.tuple_outer_stride, 0u);
  EXPECT_EQ(p.push.data_outer_stride, 50u);
  EXPECT_EQ(p.push.strides[0], 5u);
  EXPECT_EQ(p.index_elements, 4u);
  EXPECT_EQ(p.out_elements, 60u);
}

TEST(GatherPlanTest, GatherNdTuples) {
  const Plan p = plan_of(GatherOperation::gather_nd, {{2, 3, 4, 5}, {2, 6, 2}, {2, 6, 5}}, 1);
  EXPECT_EQ(variant_name(p), "gather.rows.word");
  EXPECT_EQ((p.push.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK, 2u);
  EXPECT_EQ(p.push.tuples, 6u);
  EXPECT_EQ(p.push.tuple_outer_stride, 6u);
  EXPECT_EQ(p.push.data_outer_stride, 60u);
  EXPECT_EQ(p.push.dims[0], 3u);
  EXPECT_EQ(p.push.dims[1], 4u);
  EXPECT_EQ(p.push.strides[0], 20u);
  EXPECT_EQ(p.push.strides[1], 5u);
  EXPECT_EQ(p.push.inner, 5u);
  // 16-bit rows of 5 elements: an invocation per output word, element strides.
  Args h{{2, 3, 4, 5}, {2, 6, 2}, {2, 6, 5}, DataType::float16};
  const Plan q = plan_of(GatherOperation::gather_nd, h, 1);
  EXPECT_EQ(variant_name(q), "gather.index.w16");
  EXPECT_EQ(q.push.strides[0], 20u);
  EXPECT_EQ(variant_name(plan_of(GatherOperation::gather_nd, {{2, 3, 4}, {2, 5, 1}, {2, 5, 4}}, 1)), "gather.rows.uvec4");
}

TEST(GatherPlanTest, GatherElementsMergesContiguousDimensions) {
  // indices [2, 3, 4, 5] of data [2, 3, 9, 5] on axis 2: (2, 3) merge into 6, 5 stays.
  const Plan p = plan_of(GatherOperation::gather_elements, {{2, 3, 9, 5}, {2, 3, 4, 5}, {2, 3, 4, 5}}, 2);
  EXPECT_EQ(variant_name(p), "gather.elements.w32");
  EXPECT_EQ((p.push.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK, 3u);
  EXPECT_EQ(p.push.axis, 1u);
  EXPECT_EQ(p.push.dims[0], 6u);
  EXPECT_EQ(p.push.strides[0], 45u);
  EXPECT_EQ(p.push.dims[1], 4u);
  EXPECT_EQ(p.push.strides[1], 5u);
  EXPECT_EQ(p.push.axis_length, 9u);
  // A full inner dimension merges into a smaller one outside it; not the other way round.
  const Plan q = plan_of(GatherOperation::gather_elements, {{4, 6, 3}, {4, 5, 3}, {4, 5, 3}}, 0);
  EXPECT_EQ((q.push.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK, 2u);
  EXPECT_EQ(q.push.dims[1], 15u);
  EXPECT_EQ(q.push.strides[1], 1u);
  const Plan q2 = plan_of(GatherOperation::gather_elements, {{4, 6, 3}, {4, 6, 2}, {4, 6, 2}}, 0);
  EXPECT_EQ((q2.push.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK, 3u);
  // Size-1 dimensions (not the axis) drop out, and a skipped dimension blocks merging.
  const Plan r = plan_of(GatherOperation::gather_elements, {{4, 6, 3}, {4, 1, 3}, {4, 1, 3}}, 0);
  EXPECT_EQ((r.push.codes >> OG_GATHER_RANK_SHIFT) & OG_GATHER_RANK_MASK, 2u);
  EXPECT_EQ(r.push.strides[1], 1u);
}

TEST(GatherPlanTest, ChecksNameOperationAndArgument) {
  auto err = [](GatherOperation op, Args a, int64_t axis) { return error_of([&] { plan_of(op, a, axis); }); };
  const auto G = GatherOperation::gather, E = GatherOperation::gather_elements, N = GatherOperation::gather_nd;
  EXPECT_EQ(err(G, {{4, 5}, {3}, {3, 4}}, 0), std::make_pair(std::string("Gather"), std::string("output")));
  Args t{{4, 5}, {3}, {3, 5}};
  t.index_type = DataType::float32;
  EXPECT_EQ(err(G, t, 0).second, "indices");
  t.index_type = DataType::uint32;
  EXPECT_EQ(err(G, t, 0).second, "indices");
  EXPECT_EQ(err(G, {{4, 5}, {3}, {3, 5, 1}}, 0).second, "output");
  EXPECT_EQ(err(G, {{4, 5}, {3}, {3, 5}}, 2).second, "axis");
  EXPECT_EQ(err(G, {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}}, 0).second, "data");
  EXPECT_EQ(err(G, {{1, 1, 1, 1, 1, 1, 1, 2}, {1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 2}}, 0).second, "output");
  EXPECT_EQ(err(G, {{1 << 16, 1 << 15}, {1}, {1, 1 << 15}}, 0).second, "data");   // 2^31 elements
  Args off{{4, 5}, {3}, {3, 5}};
  off.out_offset = (uint64_t(1) << 31) - 10;
  EXPECT_EQ(err(G, off, 0).second, "output");
  EXPECT_EQ(err(G, {{4, -5}, {3}, {3, -5}}, 0).second, "data");
  EXPECT_EQ(err(E, {{4, 5}, {3}, {3}}, 0), std::make_pair(std::string("GatherElements"), std::string("indices")));
  EXPECT_EQ(err(E, {{4, 5}, {3, 6}, {3, 6}}, 0).second, "indices");
  EXPECT_EQ(err(E, {{4, 5}, {3, 5}, {3, 4}}, 0).second, "output");
  EXPECT_EQ(err(E, {{4, 5}, {3, 5}, {3, 5}}, -3).second, "axis");
  EXPECT_EQ(err(N, {{4, 5}, {3, 3}, {3}}, 0), std::make_pair(std::string("GatherND"), std::string("indices")));
  EXPECT_EQ(err(N, {{4, 5}, {4, 1}, {4}}, 2).second, "batch_dims");
  EXPECT_EQ(err(N, {{4, 5}, {4, 1}, {4, 5}}, 1).second, "output");
  Args types{{4, 5}, {3}, {3, 5}};
  Request r;
  r.operation = G;
  r.data = {types.data, {}, DataType::float32, 0};
  r.indices = {types.indices, {}, DataType::int64, 0};
  r.out = {types.out, {}, DataType::int32, 0};
  EXPECT_EQ(error_of([&] { plan(r); }).second, "output");
  const int64_t strides[] = {1, 4};
  r.out.type = DataType::float32;
  r.data.strides = strides;
  EXPECT_EQ(error_of([&] { plan(r); }).second, "strides");
}

TEST(GatherPlanTest, EmptyOutputsPlanNothing) {
  EXPECT_TRUE(plan_of(GatherOperation::gather, {{4, 5}, {0}, {0, 5}}, 0).empty());
  EXPECT_TRUE(plan_of(GatherOperation::gather_elements, {{4, 5}, {0, 5}, {0, 5}}, 0).empty());
  // An axis of length 0 with indices: every index is bad, the output is not empty; the strides
  // past it (not bounded by data's count) are not formed.
  EXPECT_FALSE(plan_of(GatherOperation::gather, {{0, 5}, {2}, {2, 5}}, 0).empty());
  const Plan e = plan_of(GatherOperation::gather_elements, {{0, 1 << 30, 1 << 30}, {2, 1, 1}, {2, 1, 1}}, 0);
  EXPECT_EQ(e.push.axis_length, 0u);
  const Plan n = plan_of(GatherOperation::gather_nd, {{0, 1 << 30, 1 << 30, 4}, {2, 3}, {2, 4}}, 0);
  EXPECT_EQ(n.push.dims[0], 0u);
  EXPECT_EQ(n.push.strides[0], 0u);
}

TEST(GatherPlanTest, SubWordOutputsCountTheirWords) {
  Args a{{100}, {10}, {10}, DataType::int8};
  a.out_offset = 3;  // words 0..3: elements 3..12
  const Plan p = plan_of(GatherOperation::gather, a, 0);
  EXPECT_EQ(variant_name(p), "gather.index.w8");
  EXPECT_EQ(p.workgroups, 1u);
  EXPECT_EQ(p.push.out_offset, 3u);
}

}  // namespace
}  // namespace onegpu::kernels::gather
