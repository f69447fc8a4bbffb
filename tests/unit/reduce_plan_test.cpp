// Reduction and softmax decisions without a GPU.
#include <gtest/gtest.h>

#include "kernels/reduce/reduce_plan.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::reduce {
namespace {

TEST(ReduceMerge, NeighbouringDimensionsOfOneKindMerge) {
  const int64_t shape[] = {2, 3, 1, 4, 5};
  const int64_t axes[] = {1, 2, 3};
  Runs r = merge(shape, axes);
  EXPECT_EQ(r.kept_runs, 2u);
  EXPECT_EQ(r.red_runs, 1u);
  EXPECT_EQ(r.red_size[0], 12u);  // 3 x (1) x 4
  EXPECT_EQ(r.red_stride[0], 5u);
  EXPECT_EQ(r.kept_size[0], 2u);
  EXPECT_EQ(r.kept_stride[0], 60u);
  EXPECT_EQ(r.outputs, 10u);
  EXPECT_EQ(r.count, 12u);
  const int64_t all[] = {0};
  EXPECT_EQ(merge(std::span<const int64_t>(shape, 1), all).kept_runs, 0u);
}

TEST(ReduceMerge, AxesAreCheckedAndRunsLimited) {
  const int64_t shape[] = {2, 3, 4};
  const int64_t bad[] = {3};
  try {
    merge(shape, bad);
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_STREQ(e.what(), "Reduce: axes: axis 3 is outside [-3, 3)");
  }
  const int64_t twice[] = {1, -2};
  EXPECT_THROW(merge(shape, twice), KernelShapeError);
  const int64_t wide[] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  EXPECT_THROW(merge(wide, bad), KernelShapeError);  // rank 9
  const int64_t eight[] = {2, 2, 2, 2, 2, 2, 2, 2};
  const int64_t alternate[] = {0, 2, 4, 6};  // 4 reduced runs, 4 kept: allowed
  EXPECT_EQ(merge(eight, alternate).red_runs, 4u);
  const int64_t nine_runs_shape[] = {2, 2, 2, 2, 2, 2, 2, 2};
  const int64_t odd[] = {1, 3, 5, 7};
  EXPECT_EQ(merge(nine_runs_shape, odd).kept_runs, 4u);
}

TEST(ReducePlan, PathsFollowTheShape) {
  auto path = [](std::vector<int64_t> shape, std::vector<int64_t> axes) { return plan(merge(shape, axes)); };
  EXPECT_EQ(path({50, 7}, {1}).path, Path::thread);          // fewer than 32 per output
  EXPECT_EQ(path({100, 3000}, {0}).path, Path::thread);      // 100 along a strided axis, 3000 outputs
  EXPECT_EQ(path({64, 1000}, {1}).path, Path::group);
  EXPECT_EQ(path({100, 1000}, {0}).path, Path::group);       // strided but few outputs
  Plan whole = path({1 << 24}, {});
  EXPECT_EQ(whole.path, Path::two_pass);
  EXPECT_EQ(whole.chunks, 4096u);
  EXPECT_EQ(whole.chunk, 4096u);
  Plan cols = path({4096, 65536}, {0});
  EXPECT_EQ(cols.path, Path::columns);
  EXPECT_EQ(cols.chunks, 32u);
  EXPECT_EQ(cols.chunk, 128u);
  EXPECT_EQ(cols.scratch_floats, 65536u * 32);
}

TEST(SoftmaxPlan, RowsAndGroups) {
  const int64_t shape[] = {4, 37, 9};
  Rows r = softmax_rows(shape, 1);
  EXPECT_EQ(r.rows, 36u);
  EXPECT_EQ(r.len, 37u);
  EXPECT_EQ(r.inner, 9u);
  EXPECT_THROW(softmax_rows(shape, -4), KernelShapeError);
  EXPECT_EQ(softmax_plan(10, 10).path, 0u);
  EXPECT_EQ(softmax_plan(16, 16).group, 4u);
  EXPECT_EQ(softmax_plan(512, 512).group, 128u);
  EXPECT_EQ(softmax_plan(1024, 1024).group, 256u);
  EXPECT_EQ(softmax_plan(1025, 1025).path, 2u);
  // The group's lanes are spread over at most 32 invocations; the rest are held in registers.
  EXPECT_EQ(softmax_plan(16, 16).threads, 4u);
  EXPECT_EQ(softmax_plan(16, 16).rows_per_workgroup(), 64u);
  EXPECT_EQ(softmax_plan(512, 512).threads, 32u);
  EXPECT_EQ(softmax_plan(512, 512).lanes_per_thread(), 4u);
  EXPECT_EQ(softmax_plan(512, 512).rows_per_workgroup(), 8u);
  EXPECT_EQ(softmax_plan(1024, 1024).lanes_per_thread(), 8u);
  EXPECT_EQ(softmax_plan(1024, 512).lanes_per_thread(), 4u);  // half: pairs
  EXPECT_EQ(softmax_plan(10, 10).rows_per_workgroup(), 256u);
  EXPECT_EQ(softmax_plan(2000, 2000).rows_per_workgroup(), 1u);
  for (uint64_t len = 16; len <= 1024; ++len) {
    for (uint64_t units : {len, len / 2}) {
      const SoftmaxPlan p = softmax_plan(len, units);
      const uint32_t lanes = p.lanes_per_thread();
      EXPECT_TRUE(lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8) << len;  // the built variants
      EXPECT_EQ(p.threads * lanes, p.group) << len;
      EXPECT_LE(units, 32u * p.threads) << len;  // at most 32 units per invocation
    }
  }
}

using Dims = std::vector<int64_t>;

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const KernelShapeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReduceRequest, VariantsGridAndPushConstants) {
  const Dims shape = {37, 1000}, axes = {1}, out = {37};
  const Tensor in{shape, {}, DataType::float32, 4};
  const Tensor o{out, {}, DataType::float32, 1};
  ReducePlan p = plan_reduce(ReduceOp::sum, in, axes, false, &o, true);
  EXPECT_EQ(p.first, "reduce.workgroup.subgroups");
  EXPECT_TRUE(p.second.empty());
  EXPECT_EQ(p.first_groups, 37u);
  EXPECT_EQ(p.push.outputs, 37u);
  EXPECT_EQ(p.push.count, 1000u);
  EXPECT_EQ(p.push.in_offset, 4u);
  EXPECT_EQ(p.push.out_offset, 1u);
  EXPECT_EQ(p.push.flags, uint32_t(OG_RED_VEC4));  // 1000 per row, offset 4: whole vec4 units
  EXPECT_EQ(p.push.op, OG_RED_SUM);
  const Tensor idx{out, {}, DataType::int64, 0};
  p = plan_reduce(ReduceOp::arg_max, in, axes, false, &idx, true);
  EXPECT_EQ(p.first, "reduce.workgroup.arg");  // no subgroup variant for arg-reductions
  const Dims whole = {1 << 20}, none = {};
  const Tensor big{whole, {}, DataType::float16, 0};
  p = plan_reduce(ReduceOp::max, big, {}, false, nullptr, false);
  EXPECT_EQ(p.first, "reduce.two_pass.first");
  EXPECT_EQ(p.second, "reduce.two_pass.second");
  EXPECT_EQ(p.first_groups, uint64_t(p.plan.chunks));
  EXPECT_EQ(p.push.flags, uint32_t(OG_RED_HALF));
  EXPECT_EQ(p.scratch_floats, p.plan.scratch_floats);
  p = plan_reduce(ReduceOp::arg_min, {whole, {}, DataType::float32, 0}, {}, false, nullptr, false);
  EXPECT_EQ(p.index_slot % 64, 0u);
  EXPECT_EQ(p.scratch_floats, p.index_slot + p.plan.scratch_floats);
  const Dims tall = {4096, 65536}, axis0 = {0};
  p = plan_reduce(ReduceOp::sum, {tall, {}, DataType::float32, 0}, axis0, false, nullptr, false);
  EXPECT_EQ(p.first, "reduce.columns.first.vec4");
  EXPECT_EQ(p.second, "reduce.columns.second");
  p = plan_reduce(ReduceOp::sum, {tall, {}, DataType::float32, 1}, axis0, false, nullptr, false);
  EXPECT_EQ(p.first, "reduce.columns.first");  // an odd offset: no quads
}

TEST(ReduceMerge, StridedInputsMergeOnlyWhereContiguous) {
  const Dims shape = {4, 6, 8};
  const Dims transposed = {1, 4, 24};  // the dimensions stored in the opposite order
  const Dims axes = {1, 2};
  Runs r = merge(shape, axes, transposed);
  EXPECT_EQ(r.kept_runs, 1u);
  EXPECT_EQ(r.kept_stride[0], 1u);
  EXPECT_EQ(r.red_runs, 2u);  // 6 x 8 do not merge: stride 24 is not 4 x 6
  EXPECT_EQ(r.red_size[0], 6u);
  EXPECT_EQ(r.red_stride[0], 4u);
  EXPECT_EQ(r.red_size[1], 8u);
  EXPECT_EQ(r.red_stride[1], 24u);
  EXPECT_EQ(r.reach, 1u + 3 + 5 * 4 + 7 * 24);
  const Dims rows = {60, 10, 1};  // rows of 8 stored 10 apart: no merge
  r = merge(shape, axes, rows);
  EXPECT_EQ(r.red_runs, 2u);
  const Dims padded = {96, 8, 1};  // rows padded: the inner two still merge
  r = merge(shape, axes, padded);
  EXPECT_EQ(r.red_runs, 1u);
  EXPECT_EQ(r.red_size[0], 48u);
  EXPECT_EQ(r.kept_stride[0], 96u);
  EXPECT_EQ(r.reach, 1u + 3 * 96 + 47);
  const Dims dense = {48, 8, 1};
  Runs d = merge(shape, axes, dense), e = merge(shape, axes);
  EXPECT_EQ(d.red_runs, e.red_runs);
  EXPECT_EQ(d.reach, e.elements);
  const Dims broadcast = {0, 8, 1};  // one 6 x 8 matrix seen four times
  r = merge(shape, axes, broadcast);
  EXPECT_EQ(r.kept_stride[0], 0u);
  EXPECT_EQ(r.reach, 48u);
}

TEST(ReduceRequest, ChecksNameTheArgument) {
  const Dims shape = {2, 3, 4}, axes = {1}, out = {2, 4}, kept = {2, 1, 4}, transposed = {1, 2, 6};
  const Tensor in{shape, {}, DataType::float32, 0};
  Tensor o{out, {}, DataType::float32, 0};
  EXPECT_TRUE(is_output_shape(shape, axes, false, out));
  EXPECT_TRUE(is_output_shape(shape, axes, true, kept));
  EXPECT_FALSE(is_output_shape(shape, axes, true, out));
  EXPECT_FALSE(is_output_shape(shape, axes, false, kept));
  const Dims all = {}, scalar = {};
  EXPECT_TRUE(is_output_shape(shape, all, false, scalar));
  o.type = DataType::float16;
  EXPECT_EQ(error_of([&] { plan_reduce(ReduceOp::sum, in, axes, false, &o, false); }), "Reduce: output: float16 is not float32");
  o.type = DataType::float32;
  o.strides = transposed;
  EXPECT_EQ(error_of([&] { plan_reduce(ReduceOp::sum, in, axes, false, &o, false); }), "Reduce: strides: output is not dense row-major");
  const Dims two = {1, 2};
  o.strides = {};
  EXPECT_EQ(error_of([&] { plan_reduce(ReduceOp::sum, {shape, two, DataType::float32, 0}, axes, false, &o, false); }),
            "Reduce: strides: 2 strides for rank 3");
  const Dims wraps = {274177, 67280421310721};  // 2^64 + 1 elements
  EXPECT_EQ(error_of([&] { plan_reduce(ReduceOp::sum, {wraps, {}, DataType::float32, 0}, axes, false, nullptr, false); }),
            "Reduce: shape: the element count does not fit 63 bits");
  // An empty tensor whose outputs alone would wrap 64 bits: 2^40 x 2^40 outputs of nothing.
  const Dims empty_wide = {int64_t(1) << 40, int64_t(1) << 40, 0}, last = {2};
  EXPECT_EQ(error_of([&] { merge(empty_wide, last); }), "Reduce: shape: the element count does not fit 63 bits");
  const Dims empty_axis = {3, 0};
  const Tensor empty{empty_axis, {}, DataType::float32, 0};
  EXPECT_EQ(error_of([&] { plan_reduce(ReduceOp::arg_max, empty, axes, false, nullptr, false); }),
            "Reduce: shape: arg_max over an empty axis");
}

TEST(SoftmaxRequest, VariantsAndChecks) {
  const Dims shape = {40, 512};
  const Tensor in{shape, {}, DataType::float32, 0};
  RowsPlan p = plan_softmax(in, 1, &in, false, false, 32);
  EXPECT_EQ(p.variant, "softmax.tree.lanes4");
  EXPECT_EQ(p.groups, 5u);  // 8 rows a workgroup
  EXPECT_EQ(plan_softmax(in, 1, &in, true, true, 32).variant, "softmax.subgroup");
  EXPECT_EQ(plan_softmax(in, 1, &in, true, true, 32).groups, 5u);  // 256 / 32 rows a workgroup
  EXPECT_EQ(plan_softmax(in, 1, &in, true, true, 32).push.flags, uint32_t(OG_ROWS_LOG));
  const Tensor half{shape, {}, DataType::float16, 0};
  EXPECT_EQ(plan_softmax(half, 1, &half, false, false, 32).variant, "softmax.tree.lanes2");  // pairs
  EXPECT_EQ(error_of([&] { plan_softmax(half, 0, &half, false, false, 32); }),
            "Softmax: input: half tensors need the axis last, an even row length and even offsets");
  const Dims wraps = {int64_t(1) << 33, (int64_t(1) << 31) + 1};
  EXPECT_EQ(error_of([&] { plan_softmax({wraps, {}, DataType::float32, 0}, 1, nullptr, false, false, 32); }),
            "Softmax: shape: the element count does not fit 63 bits");
  const Dims other = {40, 511};
  const Tensor o{other, {}, DataType::float32, 0};
  EXPECT_EQ(error_of([&] { plan_softmax(in, 1, &o, false, false, 32); }), "Softmax: output: its shape is not the input's");
}

TEST(NormRequest, ParametersAreChecked) {
  const Dims shape = {33, 768}, row = {768}, short_row = {767};
  const Tensor in{shape, {}, DataType::float32, 0};
  const Tensor scale{row, {}, DataType::float32, 1};
  RowsPlan p = plan_norm(true, in, in, &scale, nullptr, 1e-5f, false);
  EXPECT_EQ(p.variant, "norm.workgroup");
  EXPECT_EQ(p.groups, 33u);
  EXPECT_EQ(p.push.flags, uint32_t(OG_ROWS_RMS | OG_ROWS_SCALE));
  EXPECT_EQ(p.push.scale_offset, 1u);
  const Tensor bad{short_row, {}, DataType::float32, 0};
  EXPECT_EQ(error_of([&] { plan_norm(false, in, in, nullptr, &bad, 1e-5f, false); }),
            "LayerNorm: bias: its shape is not {768} (the last axis)");
  const Tensor half_scale{row, {}, DataType::float16, 0};
  EXPECT_EQ(error_of([&] { plan_norm(false, in, in, &half_scale, nullptr, 1e-5f, false); }),
            "LayerNorm: scale: float16 is not float32");
  EXPECT_EQ(error_of([&] { plan_norm(false, in, in, nullptr, nullptr, -1.0f, false); }),
            "LayerNorm: epsilon: must be a non-negative number");
}

}  // namespace
}  // namespace onegpu::kernels::reduce
