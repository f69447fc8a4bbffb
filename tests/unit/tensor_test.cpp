// The tensor vocabulary: element types, padded lengths, element counts and dense strides.
#include "onegpu/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "onegpu/errors.h"

namespace onegpu {
namespace {

TEST(Tensor, TypeSizesAndNames) {
  EXPECT_EQ(data_type_size(DataType::float32), 4u);
  EXPECT_EQ(data_type_size(DataType::bfloat16), 2u);
  EXPECT_EQ(data_type_size(DataType::int8), 1u);
  EXPECT_EQ(data_type_size(DataType::int64), 8u);
  EXPECT_EQ(elements_per_word(DataType::uint8), 4u);
  EXPECT_EQ(elements_per_word(DataType::float16), 2u);
  EXPECT_EQ(elements_per_word(DataType::int64), 1u);
  EXPECT_EQ(data_type_name(DataType::boolean), "bool");
  EXPECT_TRUE(is_float(DataType::bfloat16));
  EXPECT_FALSE(is_float(DataType::int32));
}

TEST(Tensor, PaddedLengths) {
  EXPECT_EQ(padded_length(DataType::float16, 5), 6u);
  EXPECT_EQ(padded_length(DataType::int8, 5), 8u);
  EXPECT_EQ(padded_length(DataType::boolean, 8), 8u);
  EXPECT_EQ(padded_length(DataType::float32, 5), 5u);
  EXPECT_EQ(padded_length(DataType::int8, 0), 0u);
  EXPECT_THROW(padded_length(DataType::int8, UINT64_MAX - 1), KernelShapeError);
}

TEST(Tensor, ElementCountsAreChecked) {
  const std::vector<int64_t> s{2, 3, 4};
  EXPECT_EQ(element_count(s), 24u);
  EXPECT_EQ(element_count({}), 1u);
  const std::vector<int64_t> zero{5, 0, 7};
  EXPECT_EQ(element_count(zero), 0u);
  const std::vector<int64_t> negative{2, -1};
  EXPECT_THROW(element_count(negative), KernelShapeError);
  // 2^32 * 2^32 + ... wraps 64 bits: refused, not taken as a small count.
  const std::vector<int64_t> wraps{int64_t(1) << 32, int64_t(1) << 32, 2};
  EXPECT_THROW(element_count(wraps), KernelShapeError);
  const std::vector<int64_t> wraps_to_one{int64_t(1) << 62, 4, 0};
  EXPECT_EQ(element_count(wraps_to_one), 0u);  // a zero dimension anywhere is an empty tensor
}

TEST(Tensor, DenseStrides) {
  const std::vector<int64_t> shape{2, 3, 4};
  const std::vector<int64_t> dense{12, 4, 1}, transposed{1, 2, 6}, broadcast{12, 4, 0};
  EXPECT_TRUE((TensorRef{.shape = shape}).dense());
  EXPECT_TRUE((TensorRef{.shape = shape, .strides = dense}).dense());
  EXPECT_FALSE((TensorRef{.shape = shape, .strides = transposed}).dense());
  EXPECT_FALSE((TensorRef{.shape = shape, .strides = broadcast}).dense());
  const std::vector<int64_t> wrong_rank{4, 1};
  EXPECT_FALSE((TensorRef{.shape = shape, .strides = wrong_rank}).dense());
}

}  // namespace
}  // namespace onegpu
