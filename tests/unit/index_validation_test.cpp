// validate_indices and validate_index_tuples: the host-side check of indices, no GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "onegpu/errors.h"
#include "onegpu/kernels/index_status.h"

namespace onegpu::kernels {
namespace {

TEST(IndexValidation, AcceptsEveryIndexInMinusNToN) {
  const std::vector<int32_t> i32{-5, -1, 0, 4};
  const std::vector<int64_t> i64{-5, -1, 0, 4};
  EXPECT_NO_THROW(validate_indices(i32, 5));
  EXPECT_NO_THROW(validate_indices(i64, 5));
  EXPECT_NO_THROW(validate_indices(std::span<const int32_t>(), 0));
}

TEST(IndexValidation, NamesTheFirstOffendingPosition) {
  const std::vector<int64_t> indices{0, 3, 5, -6, std::numeric_limits<int64_t>::min()};
  try {
    validate_indices(indices, 5, "Gather", "indices");
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.operation(), "Gather");
    EXPECT_EQ(e.argument(), "indices");
    EXPECT_EQ(e.position(), 2u);
    EXPECT_NE(std::string(e.what()).find("5 is outside [-5, 5)"), std::string::npos) << e.what();
  }
  const std::vector<int32_t> negative{0, -6};
  try {
    validate_indices(negative, 5);
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.position(), 1u);
  }
  // Nothing is valid on an empty axis.
  EXPECT_THROW(validate_indices(std::vector<int32_t>{0}, 0), IndexError);
  EXPECT_THROW(validate_indices(std::vector<int32_t>{0}, -1), KernelShapeError);
}

TEST(IndexValidation, TuplesCheckEachComponentAgainstItsAxis) {
  const std::vector<int64_t> lengths{2, 7};
  EXPECT_NO_THROW(validate_index_tuples(std::vector<int32_t>{1, 6, -2, -7}, lengths));
  try {
    validate_index_tuples(std::vector<int32_t>{1, 6, 2, 0}, lengths, "GatherND");
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.operation(), "GatherND");
    EXPECT_EQ(e.position(), 2u);
  }
  EXPECT_THROW(validate_index_tuples(std::vector<int32_t>{1, 6, 2}, lengths), KernelShapeError);
  EXPECT_THROW(validate_index_tuples(std::vector<int32_t>{1}, std::span<const int64_t>()), KernelShapeError);
}

}  // namespace
}  // namespace onegpu::kernels
