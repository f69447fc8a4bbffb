#include "support/golden.h"

#include <onegpu/numeric.h>

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#ifndef ONEGPU_GOLDEN_DIR
#error "ONEGPU_GOLDEN_DIR must name tests/goldens (set by tests/CMakeLists.txt)"
#endif

namespace onegpu::testing {
namespace fs = std::filesystem;

namespace {

std::string env_value(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool env_on(const char* name) {
  std::string v = env_value(name);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "1" || v == "true";
}

uint64_t checked_image_bytes(const char* op, uint32_t width, uint32_t height, uint32_t channels) {
  // 32-bit sizes cannot overflow 64 bits: (2^32)^2 * 4 < 2^66 would, so check the product.
  const uint64_t pixels = uint64_t(width) * height;
  if (width == 0 || height == 0) throw GoldenError(std::string(op) + ": empty image (" + std::to_string(width) +
                                                   " x " + std::to_string(height) + ")");
  if (pixels > (uint64_t(1) << 32) / channels)
    throw GoldenError(std::string(op) + ": image of " + std::to_string(width) + " x " + std::to_string(height) +
                      " is too large");
  return pixels * channels;
}

void check_name(std::string_view name) {
  const bool bad_chars = std::any_of(name.begin(), name.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/');
  });
  if (name.empty() || bad_chars || name.find("..") != std::string_view::npos || name.front() == '/' ||
      name.back() == '/')
    throw GoldenError("compare_with_golden: name: \"" + std::string(name) +
                      "\" must be letters, digits, '_', '-', '.' and inner '/', without \"..\"");
}

std::string pixel_text(const std::array<uint8_t, 4>& p) {
  return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ", " +
         std::to_string(p[3]) + ")";
}

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info == nullptr ? "(none)" : std::string(info->test_suite_name()) + "." + info->name();
}

void append_report(const GoldenResult& r) {
  const std::string path = env_value("ONEGPU_GOLDEN_REPORT");
  if (path.empty()) return;
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::ofstream out(path, std::ios::app);
  if (!out) throw GoldenError("compare_with_golden: cannot append to ONEGPU_GOLDEN_REPORT file " + path);
  out << "{\"test\":\"" << json_escape(current_test_name()) << "\",\"name\":\"" << json_escape(r.name)
      << "\",\"width\":" << r.width << ",\"height\":" << r.height << ",\"max_difference\":" << r.diff.max_difference
      << ",\"differing_pixels\":" << r.diff.differing_pixels << ",\"allowed_pixels\":" << r.allowed_pixels
      << ",\"golden_missing\":" << (r.golden_missing ? "true" : "false")
      << ",\"updated\":" << (r.updated ? "true" : "false") << ",\"pass\":" << (r.pass ? "true" : "false") << "}\n";
}

}  // namespace

Image read_png(const fs::path& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str()))
    throw GoldenError("read_png: " + path.string() + ": " + image.message);
  if (image.format & PNG_FORMAT_FLAG_LINEAR) {
    png_image_free(&image);
    throw GoldenError("read_png: " + path.string() + ": 16-bit PNGs are not read; save it with 8 bits per channel");
  }
  image.format = PNG_FORMAT_RGBA;
  Image out;
  out.width = image.width;
  out.height = image.height;
  try {
    out.rgba.resize(checked_image_bytes("read_png", image.width, image.height, 4));
  } catch (...) {
    png_image_free(&image);
    throw;
  }
  if (!png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr))
    throw GoldenError("read_png: " + path.string() + ": " + image.message);  // finish_read frees on failure
  return out;
}

void write_png(const fs::path& path, uint32_t width, uint32_t height, std::span<const uint8_t> pixels,
               PngChannels channels) {
  const uint64_t bytes = checked_image_bytes("write_png", width, height, static_cast<uint32_t>(channels));
  if (pixels.size() != bytes)
    throw GoldenError("write_png: " + path.string() + ": " + std::to_string(pixels.size()) + " bytes given, " +
                      std::to_string(width) + " x " + std::to_string(height) + " x " +
                      std::to_string(static_cast<uint32_t>(channels)) + " = " + std::to_string(bytes) + " expected");
  if (path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw GoldenError("write_png: cannot create " + path.parent_path().string() + ": " + ec.message());
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = channels == PngChannels::grey ? PNG_FORMAT_GRAY
                 : channels == PngChannels::rgb ? PNG_FORMAT_RGB
                                                : PNG_FORMAT_RGBA;
  if (!png_image_write_to_file(&image, path.c_str(), 0, pixels.data(), 0, nullptr))
    throw GoldenError("write_png: " + path.string() + ": " + image.message);
}

uint64_t GoldenTolerance::allowed_pixels(uint64_t total) const {
  const double fraction = std::clamp(max_differing_fraction, 0.0, 1.0);
  const auto by_fraction = static_cast<uint64_t>(std::floor(fraction * static_cast<double>(total)));
  return std::max(max_differing_pixels, by_fraction);
}

ImageDifference difference(const Image& actual, const Image& expected, uint32_t max_channel_difference) {
  if (actual.width != expected.width || actual.height != expected.height)
    throw GoldenError("difference: sizes differ: " + std::to_string(actual.width) + " x " +
                      std::to_string(actual.height) + " and " + std::to_string(expected.width) + " x " +
                      std::to_string(expected.height));
  ImageDifference d;
  for (uint32_t y = 0; y < actual.height; ++y) {
    for (uint32_t x = 0; x < actual.width; ++x) {
      const size_t i = (size_t(y) * actual.width + x) * 4;
      uint32_t worst = 0;
      for (int c = 0; c < 4; ++c)
        worst = std::max<uint32_t>(worst, std::abs(int(actual.rgba[i + c]) - int(expected.rgba[i + c])));
      if (worst > max_channel_difference) ++d.differing_pixels;
      if (worst > d.max_difference) {
        d.max_difference = worst;
        d.worst_x = x;
        d.worst_y = y;
        d.worst_actual = actual.pixel(x, y);
        d.worst_expected = expected.pixel(x, y);
      }
    }
  }
  if (d.max_difference == 0 && actual.width > 0 && actual.height > 0) {
    d.worst_actual = actual.pixel(0, 0);
    d.worst_expected = expected.pixel(0, 0);
  }
  return d;
}

Image difference_image(const Image& actual, const Image& expected, uint32_t max_channel_difference) {
  difference(actual, expected, max_channel_difference);  // checks the sizes
  Image out{actual.width, actual.height, std::vector<uint8_t>(actual.rgba.size())};
  for (size_t i = 0; i < actual.rgba.size(); i += 4) {
    uint32_t worst = 0;
    for (int c = 0; c < 4; ++c) worst = std::max<uint32_t>(worst, std::abs(int(actual.rgba[i + c]) - int(expected.rgba[i + c])));
    uint8_t* p = &out.rgba[i];
    if (worst > max_channel_difference) {
      p[0] = static_cast<uint8_t>(std::min<uint32_t>(255, 128 + worst));
      p[1] = p[2] = 0;
    } else if (worst > 0) {
      p[0] = p[1] = 255;
      p[2] = 0;
    } else {
      const uint32_t grey = (expected.rgba[i] + expected.rgba[i + 1] + expected.rgba[i + 2]) / 3;
      p[0] = p[1] = p[2] = static_cast<uint8_t>(grey / 4);
    }
    p[3] = 255;
  }
  return out;
}

fs::path GoldenOptions::default_golden_directory() { return fs::path(ONEGPU_GOLDEN_DIR); }

GoldenResult compare_with_golden(std::string_view name, uint32_t width, uint32_t height, std::span<const uint8_t> rgba,
                                 const GoldenTolerance& tolerance, const GoldenOptions& options) {
  check_name(name);
  const uint64_t bytes = checked_image_bytes("compare_with_golden", width, height, 4);
  if (rgba.size() != bytes)
    throw GoldenError("compare_with_golden: " + std::string(name) + ": " + std::to_string(rgba.size()) +
                      " bytes given, " + std::to_string(width) + " x " + std::to_string(height) + " x 4 = " +
                      std::to_string(bytes) + " expected");
  const Image actual{width, height, std::vector<uint8_t>(rgba.begin(), rgba.end())};
  const fs::path golden = options.directory / (std::string(name) + ".png");
  const std::string capture_dir = env_value("ONEGPU_CAPTURE_DIR");
  if (!capture_dir.empty()) write_png(fs::path(capture_dir) / (std::string(name) + ".png"), width, height, rgba);

  GoldenResult r;
  r.name = std::string(name);
  r.width = width;
  r.height = height;
  r.allowed_pixels = tolerance.allowed_pixels(uint64_t(width) * height);

  if (env_on("ONEGPU_UPDATE_GOLDENS")) {
    write_png(golden, width, height, rgba);
    r.pass = r.updated = true;
    r.message = "ONEGPU_UPDATE_GOLDENS: rewrote " + golden.string() + " (" + std::to_string(width) + " x " +
                std::to_string(height) + "); review it before committing";
    std::cout << "[ golden   ] " << r.message << std::endl;
    append_report(r);
    return r;
  }

  if (!fs::exists(golden)) {
    r.golden_missing = true;
    r.message = "compare_with_golden: " + std::string(name) + ": no golden at " + golden.string() +
                "; run the test with ONEGPU_UPDATE_GOLDENS=1 to create it from this image, review the PNG and "
                "commit it (docs/goldens.md)";
    append_report(r);
    return r;
  }

  const Image expected = read_png(golden);
  if (expected.width != width || expected.height != height) {
    r.message = "compare_with_golden: " + std::string(name) + ": the image is " + std::to_string(width) + " x " +
                std::to_string(height) + " but the golden " + golden.string() + " is " +
                std::to_string(expected.width) + " x " + std::to_string(expected.height);
    append_report(r);
    return r;
  }
  r.diff = difference(actual, expected, tolerance.max_channel_difference);
  r.pass = r.diff.differing_pixels <= r.allowed_pixels;
  std::ostringstream msg;
  msg << "compare_with_golden: " << name << ": " << r.diff.differing_pixels << " of " << uint64_t(width) * height
      << " pixels differ by more than " << tolerance.max_channel_difference << " (allowed " << r.allowed_pixels
      << "); largest difference " << r.diff.max_difference << " at (" << r.diff.worst_x << ", " << r.diff.worst_y
      << "): image " << pixel_text(r.diff.worst_actual) << ", golden " << pixel_text(r.diff.worst_expected);
  if (!r.pass && !capture_dir.empty()) {
    const fs::path base = fs::path(capture_dir) / std::string(name);
    write_png(base.string() + ".expected.png", width, height, expected.rgba);
    const Image diff = difference_image(actual, expected, tolerance.max_channel_difference);
    write_png(base.string() + ".diff.png", width, height, diff.rgba);
    msg << "; saved " << base.string() << ".png, .expected.png and .diff.png";
  } else if (!r.pass) {
    msg << "; set ONEGPU_CAPTURE_DIR to save the image and a diff";
  }
  r.message = msg.str();
  append_report(r);
  return r;
}

namespace {

float clamp_unit(float v) { return std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f); }
uint8_t unorm8(float v) { return static_cast<uint8_t>(std::lround(clamp_unit(v) * 255.0f)); }

float load_f32(const std::byte* p) {
  float v;
  std::memcpy(&v, p, 4);
  return v;
}
float load_f16(const std::byte* p) {
  float16 h;
  std::memcpy(&h.bits, p, 2);
  return to_float(h);
}

}  // namespace

Image to_rgba8(TextureFormat format, uint32_t width, uint32_t height, std::span<const std::byte> texels,
               uint64_t bytes_per_row) {
  const FormatInfo info = format_info(format);
  if (format == TextureFormat::r32_uint || info.bytes_per_texel == 0)
    throw GoldenError("to_rgba8: format: " + std::string(info.name) + " has no colour to compare");
  checked_image_bytes("to_rgba8", width, height, 4);
  const uint64_t row = uint64_t(width) * info.bytes_per_texel;
  if (bytes_per_row == 0) bytes_per_row = row;
  if (bytes_per_row < row)
    throw GoldenError("to_rgba8: bytes_per_row: " + std::to_string(bytes_per_row) + " is less than " +
                      std::to_string(row) + " (" + std::to_string(width) + " texels of " + std::string(info.name) + ")");
  const uint64_t needed = bytes_per_row * (height - 1) + row;  // no overflow: both factors < 2^32 * 16
  if (texels.size() < needed)
    throw GoldenError("to_rgba8: texels: " + std::to_string(texels.size()) + " bytes, " + std::to_string(needed) +
                      " needed for " + std::to_string(width) + " x " + std::to_string(height) + " " +
                      std::string(info.name));
  Image out{width, height, std::vector<uint8_t>(size_t(width) * height * 4)};
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      const std::byte* t = texels.data() + y * bytes_per_row + uint64_t(x) * info.bytes_per_texel;
      uint8_t* p = &out.rgba[(size_t(y) * width + x) * 4];
      const auto b = [&](int i) { return std::to_integer<uint8_t>(t[i]); };
      switch (format) {
        case TextureFormat::rgba8_unorm:
        case TextureFormat::rgba8_srgb: p[0] = b(0), p[1] = b(1), p[2] = b(2), p[3] = b(3); break;
        case TextureFormat::bgra8_unorm:
        case TextureFormat::bgra8_srgb: p[0] = b(2), p[1] = b(1), p[2] = b(0), p[3] = b(3); break;
        case TextureFormat::r8_unorm: p[0] = b(0), p[1] = 0, p[2] = 0, p[3] = 255; break;
        case TextureFormat::rg8_unorm: p[0] = b(0), p[1] = b(1), p[2] = 0, p[3] = 255; break;
        case TextureFormat::r16_float: p[0] = unorm8(load_f16(t)), p[1] = 0, p[2] = 0, p[3] = 255; break;
        case TextureFormat::rgba16_float:
          for (int c = 0; c < 4; ++c) p[c] = unorm8(load_f16(t + 2 * c));
          break;
        case TextureFormat::r32_float: p[0] = unorm8(load_f32(t)), p[1] = 0, p[2] = 0, p[3] = 255; break;
        case TextureFormat::rgba32_float:
          for (int c = 0; c < 4; ++c) p[c] = unorm8(load_f32(t + 4 * c));
          break;
        case TextureFormat::depth32_float: p[0] = p[1] = p[2] = unorm8(load_f32(t)), p[3] = 255; break;
        default: throw GoldenError("to_rgba8: format: " + std::string(info.name) + " is not converted");
      }
    }
  }
  return out;
}

}  // namespace onegpu::testing
