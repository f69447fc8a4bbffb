// PNG files and the golden-image comparison, without a GPU.
#include "support/golden.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include <unistd.h>

namespace onegpu::testing {
namespace {
namespace fs = std::filesystem;

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(d(rng));
  return v;
}

// A fresh folder per test, removed afterwards, and the three variables restored.
class Golden : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("onegpu_golden_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_.emplace_back(old ? std::optional<std::string>(old) : std::nullopt);
      ::unsetenv(v);
    }
    options_.directory = dir_ / "goldens";
  }
  void TearDown() override {
    for (size_t i = 0; i < std::size(kVars); ++i) {
      if (saved_[i]) ::setenv(kVars[i], saved_[i]->c_str(), 1);
      else ::unsetenv(kVars[i]);
    }
    fs::remove_all(dir_);
  }
  static constexpr const char* kVars[] = {"ONEGPU_CAPTURE_DIR", "ONEGPU_UPDATE_GOLDENS", "ONEGPU_GOLDEN_REPORT"};
  fs::path dir_;
  GoldenOptions options_;
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(Golden, PngRoundTripIsExact) {
  for (auto [w, h] : {std::pair{1u, 1u}, {17u, 5u}, {64u, 33u}}) {
    const auto pixels = random_bytes(size_t(w) * h * 4, w * 131 + h);
    write_png(dir_ / "sub" / "round.png", w, h, pixels);
    const Image back = read_png(dir_ / "sub" / "round.png");
    EXPECT_EQ(back.width, w);
    EXPECT_EQ(back.height, h);
    EXPECT_EQ(back.rgba, pixels) << w << " x " << h;
  }
}

TEST_F(Golden, ReadsRgbAndGreyAsRgba) {
  const uint32_t w = 9, h = 7;
  const auto rgb = random_bytes(w * h * 3, 5);
  write_png(dir_ / "rgb.png", w, h, rgb, PngChannels::rgb);
  const Image a = read_png(dir_ / "rgb.png");
  ASSERT_EQ(a.rgba.size(), size_t(w) * h * 4);
  for (size_t i = 0; i < size_t(w) * h; ++i) {
    EXPECT_EQ(a.rgba[i * 4 + 0], rgb[i * 3 + 0]);
    EXPECT_EQ(a.rgba[i * 4 + 1], rgb[i * 3 + 1]);
    EXPECT_EQ(a.rgba[i * 4 + 2], rgb[i * 3 + 2]);
    EXPECT_EQ(a.rgba[i * 4 + 3], 255);
  }
  const auto grey = random_bytes(w * h, 6);
  write_png(dir_ / "grey.png", w, h, grey, PngChannels::grey);
  const Image g = read_png(dir_ / "grey.png");
  ASSERT_EQ(g.rgba.size(), size_t(w) * h * 4);
  for (size_t i = 0; i < size_t(w) * h; ++i) {
    EXPECT_EQ(g.pixel(uint32_t(i % w), uint32_t(i / w)), (std::array<uint8_t, 4>{grey[i], grey[i], grey[i], 255}));
  }
}

TEST_F(Golden, ReadErrorsNameTheFile) {
  EXPECT_THROW(read_png(dir_ / "absent.png"), GoldenError);
  std::ofstream(dir_ / "junk.png") << "not a png at all";
  try {
    read_png(dir_ / "junk.png");
    FAIL() << "junk read";
  } catch (const GoldenError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.png"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_png(dir_ / "short.png", 4, 4, std::vector<uint8_t>(63)), GoldenError);
  EXPECT_THROW(write_png(dir_ / "empty.png", 0, 4, std::vector<uint8_t>()), GoldenError);
}

TEST_F(Golden, KnownDifferenceIsFoundAndNamed) {
  const uint32_t w = 20, h = 10;
  const auto golden = random_bytes(w * h * 4, 11);
  write_png(options_.directory / "known.png", w, h, golden);
  auto image = golden;
  // Three pixels changed: by 3, 7 and 40 in one channel each (wrapping away from the byte's ends).
  auto bump = [&](uint32_t x, uint32_t y, int c, int by) {
    uint8_t& v = image[(size_t(y) * w + x) * 4 + c];
    v = static_cast<uint8_t>(v >= 128 ? v - by : v + by);
  };
  bump(1, 1, 0, 3);
  bump(5, 2, 2, 7);
  bump(13, 8, 3, 40);

  auto r = compare_with_golden("known", w, h, image, {.max_channel_difference = 0}, options_);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.diff.max_difference, 40u);
  EXPECT_EQ(r.diff.differing_pixels, 3u);
  EXPECT_EQ(r.diff.worst_x, 13u);
  EXPECT_EQ(r.diff.worst_y, 8u);
  EXPECT_EQ(r.diff.worst_actual[3], image[(8 * w + 13) * 4 + 3]);
  EXPECT_EQ(r.diff.worst_expected[3], golden[(8 * w + 13) * 4 + 3]);
  EXPECT_NE(r.message.find("(13, 8)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("3 of 200"), std::string::npos) << r.message;

  // Tolerance edges: a channel difference equal to the tolerance is within it, one more is not.
  r = compare_with_golden("known", w, h, image, {.max_channel_difference = 7}, options_);
  EXPECT_EQ(r.diff.differing_pixels, 1u);
  EXPECT_FALSE(r.pass);
  r = compare_with_golden("known", w, h, image, {.max_channel_difference = 6}, options_);
  EXPECT_EQ(r.diff.differing_pixels, 2u);
  r = compare_with_golden("known", w, h, image, {.max_channel_difference = 40}, options_);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.diff.differing_pixels, 0u);
  EXPECT_EQ(r.diff.max_difference, 40u);
  // Pixel budget: exactly the count passes, one fewer fails; a fraction rounds down.
  EXPECT_TRUE(compare_with_golden("known", w, h, image, {.max_channel_difference = 2, .max_differing_pixels = 3}, options_));
  EXPECT_FALSE(compare_with_golden("known", w, h, image, {.max_channel_difference = 2, .max_differing_pixels = 2}, options_));
  EXPECT_TRUE(compare_with_golden("known", w, h, image, {.max_differing_fraction = 3.5 / 200}, options_));
  EXPECT_FALSE(compare_with_golden("known", w, h, image, {.max_differing_fraction = 2.99 / 200}, options_));
  // The same image passes with no tolerance at all.
  r = compare_with_golden("known", w, h, golden, {}, options_);
  EXPECT_TRUE(r.pass) << r.message;
  EXPECT_EQ(r.diff.max_difference, 0u);
}

TEST_F(Golden, SizeMismatchMissingGoldenAndBadInputFail) {
  const auto pixels = random_bytes(8 * 8 * 4, 2);
  write_png(options_.directory / "eight.png", 8, 8, pixels);
  auto r = compare_with_golden("eight", 8, 4, std::span(pixels).first(8 * 4 * 4), {}, options_);
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.message.find("8 x 8"), std::string::npos) << r.message;

  r = compare_with_golden("nowhere/absent", 8, 8, pixels, {}, options_);
  EXPECT_FALSE(r.pass);
  EXPECT_TRUE(r.golden_missing);
  EXPECT_NE(r.message.find("ONEGPU_UPDATE_GOLDENS=1"), std::string::npos) << r.message;

  EXPECT_THROW(compare_with_golden("eight", 8, 8, std::span(pixels).first(10), {}, options_), GoldenError);
  EXPECT_THROW(compare_with_golden("../eight", 8, 8, pixels, {}, options_), GoldenError);
  EXPECT_THROW(compare_with_golden("", 8, 8, pixels, {}, options_), GoldenError);
  EXPECT_THROW(compare_with_golden("a b", 8, 8, pixels, {}, options_), GoldenError);
}

TEST_F(Golden, UpdateVariableRewritesAndPasses) {
  const auto old_pixels = random_bytes(6 * 3 * 4, 3);
  const auto new_pixels = random_bytes(6 * 3 * 4, 4);
  write_png(options_.directory / "upd.png", 6, 3, old_pixels);
  ::setenv("ONEGPU_UPDATE_GOLDENS", "1", 1);
  auto r = compare_with_golden("upd", 6, 3, new_pixels, {}, options_);
  EXPECT_TRUE(r.pass);
  EXPECT_TRUE(r.updated);
  EXPECT_NE(r.message.find("rewrote"), std::string::npos);
  // Creates a missing one (in a sub-folder) too.
  EXPECT_TRUE(compare_with_golden("fresh/one", 6, 3, old_pixels, {}, options_).updated);
  ::unsetenv("ONEGPU_UPDATE_GOLDENS");
  EXPECT_EQ(read_png(options_.directory / "upd.png").rgba, new_pixels);
  EXPECT_TRUE(compare_with_golden("upd", 6, 3, new_pixels, {}, options_).pass);
  EXPECT_FALSE(compare_with_golden("upd", 6, 3, old_pixels, {}, options_).pass);
  EXPECT_EQ(read_png(options_.directory / "fresh" / "one.png").rgba, old_pixels);
  ::setenv("ONEGPU_UPDATE_GOLDENS", "0", 1);  // anything but 1 or true compares
  EXPECT_FALSE(compare_with_golden("upd", 6, 3, old_pixels, {}, options_).updated);
}

TEST_F(Golden, CaptureVariableSavesImageAndDiffOnFailure) {
  const uint32_t w = 5, h = 4;
  const auto golden = random_bytes(w * h * 4, 8);
  write_png(options_.directory / "cap" / "ture.png", w, h, golden);
  const fs::path captures = dir_ / "captures";
  ::setenv("ONEGPU_CAPTURE_DIR", captures.c_str(), 1);
  EXPECT_TRUE(compare_with_golden("cap/ture", w, h, golden, {}, options_).pass);
  EXPECT_EQ(read_png(captures / "cap" / "ture.png").rgba, golden);
  EXPECT_FALSE(fs::exists(captures / "cap" / "ture.diff.png"));

  auto image = golden;
  image[(2 * w + 3) * 4 + 1] ^= 0x80;  // a difference of 128 at (3, 2)
  image[(0 * w + 0) * 4 + 0] ^= 0x01;  // a difference of 1 at (0, 0)
  auto r = compare_with_golden("cap/ture", w, h, image, {.max_channel_difference = 1}, options_);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(read_png(captures / "cap" / "ture.png").rgba, image);
  EXPECT_EQ(read_png(captures / "cap" / "ture.expected.png").rgba, golden);
  const Image diff = read_png(captures / "cap" / "ture.diff.png");
  EXPECT_EQ(diff.pixel(3, 2), (std::array<uint8_t, 4>{255, 0, 0, 255}));    // beyond: red
  EXPECT_EQ(diff.pixel(0, 0), (std::array<uint8_t, 4>{255, 255, 0, 255}));  // within, not equal: yellow
  EXPECT_EQ(diff.pixel(1, 0)[2], diff.pixel(1, 0)[0]);                       // equal: grey
  EXPECT_LT(diff.pixel(1, 0)[0], 64);
  EXPECT_NE(r.message.find("diff.png"), std::string::npos) << r.message;
}

TEST_F(Golden, ReportVariableAppendsOneJsonRowPerComparison) {
  const auto pixels = random_bytes(4 * 4 * 4, 9);
  write_png(options_.directory / "rep.png", 4, 4, pixels);
  const fs::path report = dir_ / "report.jsonl";
  ::setenv("ONEGPU_GOLDEN_REPORT", report.c_str(), 1);
  compare_with_golden("rep", 4, 4, pixels, {}, options_);
  auto other = pixels;
  other[5] = static_cast<uint8_t>(other[5] + 9);
  compare_with_golden("rep", 4, 4, other, {.max_channel_difference = 2}, options_);
  std::ifstream in(report);
  std::string line1, line2, extra;
  ASSERT_TRUE(std::getline(in, line1));
  ASSERT_TRUE(std::getline(in, line2));
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_NE(line1.find("\"test\":\"Golden.ReportVariableAppendsOneJsonRowPerComparison\""), std::string::npos) << line1;
  EXPECT_NE(line1.find("\"name\":\"rep\",\"width\":4,\"height\":4,\"max_difference\":0,\"differing_pixels\":0"),
            std::string::npos) << line1;
  EXPECT_NE(line1.find("\"pass\":true}"), std::string::npos) << line1;
  EXPECT_NE(line2.find("\"max_difference\":9,\"differing_pixels\":1"), std::string::npos) << line2;
  EXPECT_NE(line2.find("\"pass\":false}"), std::string::npos) << line2;
}

TEST(GoldenConvert, ReadbackFormatsBecomeRgba8) {
  // bgra8 with padded rows: the padding (0xEE) must not leak into the image.
  const std::vector<uint8_t> bgra = {10, 20, 30, 40, 50, 60, 70, 80, 0xEE, 0xEE, 0xEE, 0xEE,
                                     1,  2,  3,  4,  5,  6,  7,  8,  0xEE, 0xEE, 0xEE, 0xEE};
  Image img = to_rgba8(TextureFormat::bgra8_unorm, 2, 2, std::as_bytes(std::span(bgra)), 12);
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{30, 20, 10, 40, 70, 60, 50, 80, 3, 2, 1, 4, 7, 6, 5, 8}));
  img = to_rgba8(TextureFormat::rgba8_srgb, 2, 1, std::as_bytes(std::span(bgra).first(8)));
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{10, 20, 30, 40, 50, 60, 70, 80}));
  const std::vector<uint8_t> r8 = {0, 77, 255};
  img = to_rgba8(TextureFormat::r8_unorm, 3, 1, std::as_bytes(std::span(r8)));
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{0, 0, 0, 255, 77, 0, 0, 255, 255, 0, 0, 255}));
  // Floats clamp and round to nearest: 0.5 * 255 = 127.5 rounds to 128, NaN to 0.
  const std::vector<float> f = {0.5f, -1.0f, 2.0f, std::nanf(""), 0.2f, 1.0f, 0.0f, 0.998f};
  img = to_rgba8(TextureFormat::rgba32_float, 2, 1, std::as_bytes(std::span(f)));
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{128, 0, 255, 0, 51, 255, 0, 254}));
  const std::vector<uint16_t> h = {0x3800, 0x3C00, 0xBC00, 0x0000};  // 0.5, 1, -1, 0 in binary16
  img = to_rgba8(TextureFormat::rgba16_float, 1, 1, std::as_bytes(std::span(h)));
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{128, 255, 0, 0}));
  const std::vector<float> d = {0.25f};
  img = to_rgba8(TextureFormat::depth32_float, 1, 1, std::as_bytes(std::span(d)));
  EXPECT_EQ(img.rgba, (std::vector<uint8_t>{64, 64, 64, 255}));

  EXPECT_THROW(to_rgba8(TextureFormat::r32_uint, 1, 1, std::as_bytes(std::span(d))), GoldenError);
  EXPECT_THROW(to_rgba8(TextureFormat::depth24_stencil8, 1, 1, std::as_bytes(std::span(d))), GoldenError);
  EXPECT_THROW(to_rgba8(TextureFormat::bgra8_unorm, 2, 2, std::as_bytes(std::span(bgra)).first(19), 12), GoldenError);
  EXPECT_THROW(to_rgba8(TextureFormat::bgra8_unorm, 2, 2, std::as_bytes(std::span(bgra)), 7), GoldenError);
}

}  // namespace
}  // namespace onegpu::testing
