// Byte ranges of tensors in buffers and the overlap check every family runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>

#include "kernels/common/aliasing.h"
#include "onegpu/errors.h"

namespace onegpu::kernels {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(Aliasing, RangesCoverWholeWords) {
  const ByteRange f32 = tensor_bytes("op", "x", 7, 3, 5, 4);
  EXPECT_EQ(f32.buffer, 7u);
  EXPECT_EQ(f32.begin, 12u);
  EXPECT_EQ(f32.end, 32u);
  const ByteRange f16 = tensor_bytes("op", "x", 7, 3, 4, 2);  // bytes 6..14 -> words 4..16
  EXPECT_EQ(f16.begin, 4u);
  EXPECT_EQ(f16.end, 16u);
  const ByteRange u8 = tensor_bytes("op", "x", 7, 5, 2, 1);  // bytes 5..7 -> word 4..8
  EXPECT_EQ(u8.begin, 4u);
  EXPECT_EQ(u8.end, 8u);
  const ByteRange i64 = tensor_bytes("op", "x", 7, 1, 2, 8);
  EXPECT_EQ(i64.begin, 8u);
  EXPECT_EQ(i64.end, 24u);
  EXPECT_TRUE(tensor_bytes("op", "x", 7, kMax, 0, 4).empty());  // no elements: no range at all
}

TEST(Aliasing, HalvesSharingAWordOverlap) {
  // Elements 0..2 and 3..5 of float16: bytes 0..6 and 6..12 share the word 4..8.
  const ByteRange a = tensor_bytes("op", "a", 1, 0, 3, 2), b = tensor_bytes("op", "b", 1, 3, 3, 2);
  EXPECT_TRUE(overlaps(a, b));
  // Elements 0..3 and 4..7: whole words apart.
  EXPECT_FALSE(overlaps(tensor_bytes("op", "a", 1, 0, 4, 2), tensor_bytes("op", "b", 1, 4, 4, 2)));
  // Bytes of int8: 0..3 and 4..7 are apart, 0..4 and 4..8 share a word.
  EXPECT_FALSE(overlaps(tensor_bytes("op", "a", 1, 0, 4, 1), tensor_bytes("op", "b", 1, 4, 4, 1)));
  EXPECT_TRUE(overlaps(tensor_bytes("op", "a", 1, 0, 5, 1), tensor_bytes("op", "b", 1, 4, 4, 1)));
}

TEST(Aliasing, OnlyTheSameBufferAndNonEmptyRangesOverlap) {
  const ByteRange a = tensor_bytes("op", "a", 1, 0, 16, 4);
  EXPECT_TRUE(overlaps(a, a));
  EXPECT_FALSE(overlaps(a, tensor_bytes("op", "b", 2, 0, 16, 4)));  // another buffer
  EXPECT_FALSE(overlaps(a, tensor_bytes("op", "b", 1, 4, 0, 4)));   // empty
  EXPECT_FALSE(overlaps(a, tensor_bytes("op", "b", 1, 16, 4, 4)));  // adjacent
  EXPECT_TRUE(overlaps(a, tensor_bytes("op", "b", 1, 15, 4, 4)));
  EXPECT_FALSE(overlaps(tensor_bytes("op", "a", 0, 0, 16, 4), tensor_bytes("op", "b", 0, 0, 16, 4)));  // no buffer
}

TEST(Aliasing, RangesPastSixtyFourBitsAreRefused) {
  for (auto [first, count, size] : {std::tuple<uint64_t, uint64_t, uint64_t>{kMax / 4 + 1, 1, 4},
                                    {0, kMax / 2 + 1, 2},
                                    {kMax / 8, kMax / 8, 8},
                                    {(kMax - 2) / 4, 1, 4},
                                    {1ull << 62, 1ull << 62, 4}}) {
    try {
      (void)tensor_bytes("Reduce", "input", 1, first, count, size);
      ADD_FAILURE() << first << " " << count << " " << size;
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "Reduce");
      EXPECT_EQ(e.argument(), "input");
    }
  }
  EXPECT_EQ(tensor_bytes("op", "x", 1, (1ull << 61) - 1, 1, 4).end, 1ull << 63);
}

TEST(Aliasing, CheckDisjointNamesTheOutput) {
  const ByteRange out = tensor_bytes("Softmax", "output", 3, 4, 8, 4);
  EXPECT_NO_THROW(check_disjoint("Softmax", "output", out, "input", tensor_bytes("Softmax", "input", 3, 12, 8, 4)));
  try {
    check_disjoint("Softmax", "output", out, "input", tensor_bytes("Softmax", "input", 3, 11, 8, 4));
    FAIL() << "no exception";
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "Softmax");
    EXPECT_EQ(e.argument(), "output");
    EXPECT_STREQ(e.what(), "Softmax: output: overlaps input in the same buffer (bytes 16..48 and 44..76)");
  }
}

// Where a buffer bound writable may not be bound again in a dispatch, any two non-empty ranges of
// one buffer are refused, disjoint or not; elsewhere, and across buffers, nothing is.
TEST(Aliasing, SeparateBuffersWhereBindingsMayNotAlias) {
  ComputeCapabilities vulkan, webgpu;
  webgpu.aliased_writable_bindings = false;
  const ByteRange out = tensor_bytes("Gather", "output", 3, 32, 8, 4);
  const ByteRange same = tensor_bytes("Gather", "data", 3, 0, 8, 4), other = tensor_bytes("Gather", "data", 4, 0, 8, 4);
  const ByteRange empty = tensor_bytes("Gather", "data", 3, 0, 0, 4);
  EXPECT_NO_THROW(check_separate_buffers(vulkan, "Gather", "output", out, "data", same));
  EXPECT_NO_THROW(check_separate_buffers(webgpu, "Gather", "output", out, "data", other));
  EXPECT_NO_THROW(check_separate_buffers(webgpu, "Gather", "output", out, "data", empty));
  try {
    check_separate_buffers(webgpu, "Gather", "output", out, "data", same);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "aliased_writable_bindings");
    EXPECT_NE(std::string(e.what()).find("Gather: data in another buffer than output"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace onegpu::kernels
