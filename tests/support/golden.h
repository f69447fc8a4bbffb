// Golden-image tests: PNG files through libpng and the comparison of a rendered image with a
// reviewed reference image kept in the repository (tests/goldens/<name>.png). docs/goldens.md says
// how to add, update and review goldens and how to choose a tolerance.
//
// Environment (read on every comparison, so a test may set them in-process):
//   ONEGPU_CAPTURE_DIR=<folder>   every compared image is saved there as <name>.png, and on a
//                                 failure <name>.expected.png and <name>.diff.png beside it.
//   ONEGPU_UPDATE_GOLDENS=1       the golden is rewritten from the image instead of compared; the
//                                 comparison passes and prints which file it wrote.
//   ONEGPU_GOLDEN_REPORT=<file>   one JSON object per comparison is appended to the file, one line
//                                 each (test, name, size, max difference, differing pixels, pass).
//
// Images are 8-bit RGBA, rows top to bottom, four bytes r, g, b, a per pixel, no row padding.
// Nothing here needs a GPU; to_rgba8() turns a texture readback into such an image.
#pragma once

#include <onegpu/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace onegpu::testing {

struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes

  std::array<uint8_t, 4> pixel(uint32_t x, uint32_t y) const {
    const size_t i = (size_t(y) * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
  }
};

// What a PNG or golden operation could not do (unreadable file, bad name, wrong byte count); the
// message names the operation and the file.
class GoldenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The layout of the pixels write_png() is given. Goldens are always written as rgba.
enum class PngChannels : uint8_t { grey = 1, rgb = 3, rgba = 4 };

// Reads an 8-bit PNG of any colour type (grey, grey + alpha, palette, RGB, RGBA) as RGBA: grey is
// copied to r, g and b, a missing alpha is 255. 16-bit files are refused (libpng would convert
// them from linear light, so their bytes would not be what was stored). Throws GoldenError.
Image read_png(const std::filesystem::path& path);

// Writes `pixels` (width * height * channels bytes) as an 8-bit PNG, creating the file's folder.
// Throws GoldenError.
void write_png(const std::filesystem::path& path, uint32_t width, uint32_t height,
               std::span<const uint8_t> pixels, PngChannels channels = PngChannels::rgba);

// The comparison rule: a pixel differs when any channel's absolute difference exceeds
// max_channel_difference; the comparison passes when at most
// max(max_differing_pixels, floor(max_differing_fraction * width * height)) pixels differ.
struct GoldenTolerance {
  uint32_t max_channel_difference = 0;
  uint64_t max_differing_pixels = 0;
  double max_differing_fraction = 0.0;  // 0.001 allows one pixel in a thousand

  uint64_t allowed_pixels(uint64_t total) const;
};

struct ImageDifference {
  uint32_t max_difference = 0;     // largest channel difference anywhere
  uint64_t differing_pixels = 0;   // pixels beyond max_channel_difference
  uint32_t worst_x = 0, worst_y = 0;  // the first pixel with max_difference
  std::array<uint8_t, 4> worst_actual{}, worst_expected{};
};

// Compares two images of the same size (pure function; throws GoldenError on different sizes).
ImageDifference difference(const Image& actual, const Image& expected, uint32_t max_channel_difference);

// A picture of the difference: pixels beyond the tolerance in red (brighter the larger the
// difference), pixels within it but not equal in yellow, equal pixels as a dim grey of the golden.
Image difference_image(const Image& actual, const Image& expected, uint32_t max_channel_difference);

struct GoldenResult {
  bool pass = false;
  bool updated = false;         // ONEGPU_UPDATE_GOLDENS rewrote the golden
  bool golden_missing = false;
  std::string name;
  uint32_t width = 0, height = 0;
  ImageDifference diff;
  uint64_t allowed_pixels = 0;
  std::string message;          // says why it failed, naming the worst pixel and its values

  explicit operator bool() const { return pass; }
};

struct GoldenOptions {
  // Where the goldens are; the default is tests/goldens in the source tree.
  std::filesystem::path directory = default_golden_directory();

  static std::filesystem::path default_golden_directory();
};

// Compares `rgba` (width * height * 4 bytes) with <directory>/<name>.png. `name` is made of
// letters, digits, '_', '-', '.' and '/' (a sub-folder), without "..". A missing golden fails,
// telling how to create it. Honors the three environment variables above. Throws GoldenError for
// a bad name, a wrong byte count or an unreadable golden.
GoldenResult compare_with_golden(std::string_view name, uint32_t width, uint32_t height,
                                 std::span<const uint8_t> rgba, const GoldenTolerance& tolerance = {},
                                 const GoldenOptions& options = {});

// Converts a readback of a texture's texels (rows `bytes_per_row` apart; 0 means tightly packed)
// to RGBA8 for comparison: rgba8 is copied, bgra8 swizzled, r8 and rg8 fill the missing colour
// channels with 0 and alpha with 255 (what a shader samples); float formats clamp to [0, 1] and
// round to nearest (NaN becomes 0); depth32_float becomes grey. sRGB formats keep their encoded
// bytes, which is what a PNG stores. r32_uint and depth24_stencil8 throw GoldenError.
Image to_rgba8(TextureFormat format, uint32_t width, uint32_t height, std::span<const std::byte> texels,
               uint64_t bytes_per_row = 0);

}  // namespace onegpu::testing
