// Matrix-hardware selection without a GPU: shapes listed by plain capability structs, and trying
// candidates in order.
#include "kernels/common/matrix_hardware.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace onegpu::kernels {
namespace {

CooperativeMatrixShape shape(uint32_t m, uint32_t n, uint32_t k, DataType in, DataType acc) {
  return {m, n, k, in, in, acc, acc, false};
}

TEST(MatrixHardware, SubgroupShapesByTypes) {
  ComputeCapabilities caps;
  const MatrixTypes f16{.input = DataType::float16, .accumulator = DataType::float32};
  const MatrixTypes bf16{.input = DataType::bfloat16, .accumulator = DataType::float32};
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, f16));
  caps.cooperative_matrix_shapes.push_back(shape(16, 16, 16, DataType::float16, DataType::float16));
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, f16));  // float16 accumulation only
  EXPECT_TRUE(has_subgroup_matrix_shape(caps, 16, 16, 16, {.input = DataType::float16, .accumulator = DataType::float16}));
  caps.cooperative_matrix_shapes.push_back(shape(16, 8, 16, DataType::float16, DataType::float32));
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, f16));  // another shape
  EXPECT_TRUE(has_subgroup_matrix_shape(caps, 16, 8, 16, f16));
  caps.cooperative_matrix_shapes.push_back(shape(16, 16, 16, DataType::bfloat16, DataType::float32));
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, f16));
  EXPECT_TRUE(has_subgroup_matrix_shape(caps, 16, 16, 16, bf16));
  // Mixed input types (A float16, B bfloat16) are no shape of either.
  caps.cooperative_matrix_shapes = {{16, 16, 16, DataType::float16, DataType::bfloat16, DataType::float32,
                                     DataType::float32, false}};
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, f16));
  EXPECT_FALSE(has_subgroup_matrix_shape(caps, 16, 16, 16, bf16));
}

TEST(MatrixHardware, WorkgroupShapesNeedTheFeatureTheWorkgroupAndDividingGranularities) {
  ComputeCapabilities caps;
  const MatrixTypes f16{};
  FlexibleCooperativeMatrixShape s{16, 16, 16, DataType::float16, DataType::float16, DataType::float32,
                                   DataType::float32, false, 256};
  caps.cooperative_matrix_workgroup_shapes.push_back(s);
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 256, 128, 256, 32, f16));  // no feature
  caps.features |= ShaderFeature::cooperative_matrix2;
  EXPECT_TRUE(has_workgroup_matrix_shape(caps, 256, 128, 256, 32, f16));
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 128, 128, 256, 32, f16));  // no shape for 128 invocations
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 256, 128, 256, 32, {.input = DataType::bfloat16}));
  caps.cooperative_matrix_workgroup_max_invocations = 128;
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 256, 128, 256, 32, f16));  // workgroup too large
  caps.cooperative_matrix_workgroup_max_invocations = 256;
  caps.cooperative_matrix_workgroup_shapes[0].k_granularity = 48;
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 256, 128, 256, 32, f16));
  EXPECT_TRUE(has_workgroup_matrix_shape(caps, 256, 128, 256, 96, f16));
  caps.cooperative_matrix_workgroup_shapes[0].m_granularity = 0;  // not a usable listing
  EXPECT_FALSE(has_workgroup_matrix_shape(caps, 256, 128, 256, 96, f16));
}

TEST(MatrixHardware, FirstAcceptedCandidateWins) {
  const std::vector<int> candidates = {3, 5, 7, 9};
  std::vector<int> tried;
  auto accepts = [&](int from) {
    return [&tried, from](int c) {
      tried.push_back(c);
      if (c < from) throw UnsupportedError("cooperative_matrix", "a shape", "none");
    };
  };
  EXPECT_EQ(first_accepted(std::span(candidates), accepts(6)), 2u);
  EXPECT_EQ(tried, (std::vector<int>{3, 5, 7}));
  tried.clear();
  EXPECT_EQ(first_accepted(std::span(candidates), accepts(0)), 0u);
  EXPECT_EQ(tried, std::vector<int>{3});
  EXPECT_EQ(first_accepted(std::span(candidates), accepts(10)), std::nullopt);
  EXPECT_EQ(first_accepted(std::span<const int>(), accepts(0)), std::nullopt);
  // Anything but UnsupportedError is a failure, not a rejection.
  EXPECT_THROW(first_accepted(std::span(candidates), [](int) { throw std::runtime_error("driver"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace onegpu::kernels
