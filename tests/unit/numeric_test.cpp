// float16 and bfloat16 conversions.
#include <gtest/gtest.h>

#include <cmath>

#include "onegpu/numeric.h"

namespace onegpu {
namespace {

TEST(Float16, EveryValueRoundTrips) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    float16 h{uint16_t(bits)};
    float f = to_float(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(to_float(to_float16(f))));
      continue;
    }
    ASSERT_EQ(to_float16(f).bits, h.bits) << bits;
  }
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(to_float16(1.0f + 1.0f / 2048).bits, 0x3c00);        // tie: to even (down)
  EXPECT_EQ(to_float16(1.0f + 3.0f / 2048).bits, 0x3c02);        // tie: to even (up)
  EXPECT_EQ(to_float16(1.0f + 1.0f / 2048 + 1e-6f).bits, 0x3c01);
  EXPECT_EQ(to_float16(65519.0f).bits, 0x7bff);
  EXPECT_EQ(to_float16(65520.0f).bits, 0x7c00);                   // to infinity
  EXPECT_EQ(to_float16(std::ldexp(1.0f, -25)).bits, 0x0000);      // tie below the smallest subnormal
  EXPECT_EQ(to_float16(std::ldexp(1.5f, -25)).bits, 0x0001);
  EXPECT_EQ(to_float16(std::ldexp(3.0f, -25)).bits, 0x0002);      // 1.5 subnormal steps: to even
  EXPECT_EQ(to_float16(-0.0f).bits, 0x8000);
}

TEST(Bfloat16, RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(to_bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_bfloat16(std::bit_cast<float>(0x3f808000u)).bits, 0x3f80);  // tie to even
  EXPECT_EQ(to_bfloat16(std::bit_cast<float>(0x3f818000u)).bits, 0x3f82);
  EXPECT_EQ(to_bfloat16(std::bit_cast<float>(0x3f808001u)).bits, 0x3f81);
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(std::nanf("")))));
  EXPECT_EQ(to_float(bfloat16{0x4049}), std::bit_cast<float>(0x40490000u));
}

}  // namespace
}  // namespace onegpu
