#include "onegpu/format.h"

#include <gtest/gtest.h>

namespace onegpu {
namespace {

TEST(TextureFormatTest, NamesRoundTripAndSizesMatchTheLayout) {
  for (uint32_t i = 0; i < kTextureFormatCount; ++i) {
    const auto f = static_cast<TextureFormat>(i);
    const FormatInfo info = format_info(f);
    EXPECT_EQ(format_from_name(info.name), f) << info.name;
    if (info.bytes_per_texel != 0 && info.kind != TexelKind::depth) {
      EXPECT_EQ(info.bytes_per_texel % info.components, 0u) << info.name;
    }
  }
  EXPECT_EQ(format_info(TextureFormat::rgba32_float).bytes_per_texel, 16u);
  EXPECT_EQ(format_info(TextureFormat::r16_float).bytes_per_texel, 2u);
  EXPECT_TRUE(format_info(TextureFormat::bgra8_srgb).srgb);
  EXPECT_EQ(format_info(TextureFormat::r32_uint).kind, TexelKind::uint_);
  EXPECT_TRUE(is_depth_format(TextureFormat::depth24_stencil8));
  EXPECT_TRUE(format_info(TextureFormat::depth24_stencil8).has_stencil);
  EXPECT_FALSE(is_depth_format(TextureFormat::r32_float));
  EXPECT_FALSE(format_from_name("rgb8_unorm").has_value());
}

}  // namespace
}  // namespace onegpu
