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

}  // namespace
}  // namespace onegpu::kernels::reduce
