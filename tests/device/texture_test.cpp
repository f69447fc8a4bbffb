// Textures: creation checks, round trips of every copyable format through every dimension, mip and
// layer, partial regions with sentinels, asynchronous reads, buffer <-> texture copies with padded
// rows, texture <-> texture copies, mip generation against a host box filter, lifetimes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <future>
#include <optional>
#include <random>
#include <vector>

#include "core/texture_checks.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "test_sample_cube.h"
#include "test_sample_lod.h"
#include "test_storage_fill.h"
#include "test_texel_fetch_uint.h"

namespace onegpu::testing {
namespace {

class Textures : public DeviceTest {};

// Random texel bytes for `f`: any bytes for unorm and uint formats, finite floats for float
// formats, depths in [0, 1] (a copy into a depth32_float texture keeps only those).
std::vector<std::byte> random_texels(TextureFormat f, uint64_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> out(bytes);
  const FormatInfo info = format_info(f);
  if (f == TextureFormat::depth32_float) {
    std::uniform_real_distribution<float> d(0.f, 1.f);
    for (uint64_t i = 0; i < bytes; i += 4) {
      float v = d(rng);
      std::memcpy(&out[i], &v, 4);
    }
  } else if (f == TextureFormat::r16_float || f == TextureFormat::rgba16_float) {
    for (uint64_t i = 0; i < bytes; i += 2) {
      uint16_t h = static_cast<uint16_t>(rng());
      if (((h >> 10) & 0x1f) == 0x1f) h &= 0xbfff;  // no infinity or NaN
      std::memcpy(&out[i], &h, 2);
    }
  } else if (f == TextureFormat::r32_float || f == TextureFormat::rgba32_float) {
    std::uniform_real_distribution<float> d(-1e6f, 1e6f);
    for (uint64_t i = 0; i < bytes; i += 4) {
      float v = d(rng);
      std::memcpy(&out[i], &v, 4);
    }
  } else {
    (void)info;
    for (auto& b : out) b = static_cast<std::byte>(rng());
  }
  return out;
}

TextureDescriptor make(TextureDimension dim, TextureFormat f, uint32_t w, uint32_t h, uint32_t d, uint32_t mips) {
  TextureDescriptor t;
  t.dimension = dim;
  t.format = f;
  t.width = w;
  t.height = h;
  t.depth_or_layers = d;
  t.mip_levels = mips;
  t.usage = TextureUsage::copy_src | TextureUsage::copy_dst;
  return t;
}

// A host model of a texture: every mip's layers, tightly packed.
struct HostTexture {
  TextureDescriptor d;
  std::vector<std::vector<std::byte>> mips;
  explicit HostTexture(const TextureDescriptor& desc) : d(desc) {
    for (uint32_t m = 0; m < d.mip_levels; ++m) {
      TextureRegion r{m, 0, core::layer_count(d)};
      mips.emplace_back(core::packed_bytes(d, core::resolve_region(d, r, "t", "r")));
    }
  }
  // Writes tightly packed `data` into region `r` (resolved).
  void write(const core::ResolvedRegion& r, const std::vector<std::byte>& data) {
    const Extent3 e = core::mip_extent(d, r.mip);
    const uint64_t texel = format_info(d.format).bytes_per_texel;
    uint64_t k = 0;
    for (uint32_t l = 0; l < r.layers; ++l)
      for (uint32_t z = 0; z < r.depth; ++z)
        for (uint32_t y = 0; y < r.height; ++y) {
          const uint64_t at = ((((uint64_t(r.layer + l) * e.depth + r.z + z) * e.height + r.y + y) * e.width) + r.x) * texel;
          std::memcpy(&mips[r.mip][at], &data[k], r.width * texel);
          k += r.width * texel;
        }
  }
};

const TextureDimension kDims[] = {TextureDimension::d2, TextureDimension::d2_array, TextureDimension::cube,
                                  TextureDimension::d3};

TEST_F(Textures, RoundTripEveryFormatDimensionMipAndLayer) {
  const TextureCapabilities& tc = device().texture_capabilities();
  uint32_t seed = 1, checked = 0;
  for (uint32_t fi = 0; fi < kTextureFormatCount; ++fi) {
    const TextureFormat f = static_cast<TextureFormat>(fi);
    if (!tc.format(f).copy) continue;
    for (TextureDimension dim : kDims) {
      if (dim == TextureDimension::d3 && is_depth_format(f)) continue;
      const uint32_t w = dim == TextureDimension::cube ? 8 : 9, h = dim == TextureDimension::cube ? 8 : 6;
      const uint32_t depth = dim == TextureDimension::d2 ? 1 : dim == TextureDimension::cube ? 6 : dim == TextureDimension::d3 ? 5 : 3;
      const TextureDescriptor d = make(dim, f, w, h, depth, 3);
      SCOPED_TRACE(std::string(format_name(f)) + " " + texture_dimension_name(dim));
      Texture t = device().create_texture(d);
      HostTexture host(d);
      // Whole mips, then a partial region of each mip (the texels outside keep their values).
      for (uint32_t m = 0; m < d.mip_levels; ++m) {
        const TextureRegion whole{m, 0, core::layer_count(d)};
        auto data = random_texels(f, t.region_bytes(whole), seed++);
        t.write(whole, data);
        host.write(core::resolve_region(d, whole, "t", "r"), data);
      }
      for (uint32_t m = 0; m < d.mip_levels; ++m) {
        const Extent3 e = t.mip_extent(m);
        TextureRegion part{m, core::layer_count(d) > 1 ? 1u : 0u, 1, e.width > 1 ? 1u : 0u, e.height > 2 ? 2u : 0u,
                           e.depth > 1 ? 1u : 0u, e.width > 2 ? e.width - 2 : 0u, 1, 0};
        auto data = random_texels(f, t.region_bytes(part), seed++);
        t.write(part, data);
        host.write(core::resolve_region(d, part, "t", "r"), data);
      }
      for (uint32_t m = 0; m < d.mip_levels; ++m) {
        std::vector<std::byte> out(host.mips[m].size(), std::byte{0xcd});
        t.read({m, 0, core::layer_count(d)}, out);
        ASSERT_EQ(std::memcmp(out.data(), host.mips[m].data(), out.size()), 0) << "mip " << m;
      }
      // One layer (or one slice) alone.
      const TextureRegion one{1, core::layer_count(d) - 1, 1, 0, 0, dim == TextureDimension::d3 ? 1u : 0u, 0, 0,
                              dim == TextureDimension::d3 ? 1u : 0u};
      const auto r = core::resolve_region(d, one, "t", "r");
      std::vector<std::byte> out(t.region_bytes(one));
      t.read(one, out);
      const Extent3 e = t.mip_extent(1);
      const uint64_t texel = format_info(f).bytes_per_texel;
      const uint64_t at = (uint64_t(r.layer) * e.depth + r.z) * e.height * e.width * texel;
      ASSERT_EQ(std::memcmp(out.data(), &host.mips[1][at], out.size()), 0);
      ++checked;
    }
  }
  EXPECT_GE(checked, 30u) << "most formats are copyable on every device";
}

TEST_F(Textures, ReadAsyncWithFutureAndCallback) {
  const TextureDescriptor d = make(TextureDimension::d2, TextureFormat::rgba8_unorm, 13, 7, 1, 1);
  Texture t = device().create_texture(d);
  auto data = random_texels(d.format, t.region_bytes({}), 7);
  t.write({}, data);
  std::vector<std::byte> a(data.size()), b(data.size());
  std::future<void> fa = t.read_async({}, a);
  std::promise<std::exception_ptr> done;
  t.read_async({}, b, [&done](std::exception_ptr e) { done.set_value(e); });
  fa.get();
  EXPECT_EQ(done.get_future().get(), nullptr);
  EXPECT_EQ(a, data);
  EXPECT_EQ(b, data);
}

TEST_F(Textures, BufferCopiesWithPaddedRowsAndOffset) {
  const TextureDescriptor d = make(TextureDimension::d2_array, TextureFormat::rgba16_float, 10, 5, 2, 1);
  Texture t = device().create_texture(d);
  const uint32_t texel = 8, w = 6, h = 3, row = 64, rows = 4, offset = 16;
  const TextureRegion region{0, 0, 2, 2, 1, 0, w, h, 1};
  // Source buffer: two images of `rows` rows of `row` bytes after `offset`; padding is sentinel.
  std::vector<uint32_t> src_words((offset + row * rows * 2) / 4, kSentinel);
  auto texels = random_texels(d.format, uint64_t(w) * h * 2 * texel, 3);
  for (uint32_t l = 0; l < 2; ++l)
    for (uint32_t y = 0; y < h; ++y)
      std::memcpy(reinterpret_cast<std::byte*>(src_words.data()) + offset + (l * rows + y) * row,
                  &texels[((l * h) + y) * w * texel], w * texel);
  auto src = device().create_buffer(src_words);
  auto dst = device().create_buffer(std::vector<uint32_t>(src_words.size(), kSentinel));
  auto enc = device().begin_commands();
  enc.copy_buffer_to_texture(src, {offset, row, rows}, t, region);
  enc.copy_texture_to_buffer(t, region, dst, {offset, row, rows});
  device().submit(enc);
  auto out = dst.read();
  const auto* bytes = reinterpret_cast<const std::byte*>(out.data());
  for (size_t i = 0; i < out.size() * 4; ++i) {
    const size_t rel = i < offset ? SIZE_MAX : i - offset;
    const bool inside = rel != SIZE_MAX && (rel % row) < w * texel && (rel / row) % rows < h;
    if (inside) {
      const size_t l = rel / (row * rows), y = (rel / row) % rows, x = rel % row;
      ASSERT_EQ(bytes[i], texels[(l * h + y) * w * texel + x]) << i;
    } else {
      ASSERT_EQ(bytes[i], reinterpret_cast<const std::byte*>(&kSentinel)[i % 4]) << "padding byte " << i;
    }
  }
  // The texture holds the region where write() would have put it.
  std::vector<std::byte> back(t.region_bytes(region));
  t.read(region, back);
  EXPECT_EQ(back, texels);
}

TEST_F(Textures, CopyBetweenTexturesAndMips) {
  const TextureDescriptor d = make(TextureDimension::d2, TextureFormat::r32_uint, 16, 12, 1, 3);
  Texture a = device().create_texture(d), b = device().create_texture(d);
  auto data = random_texels(d.format, a.region_bytes({}), 11);
  auto dst_before = random_texels(d.format, b.region_bytes({1}), 12);
  a.write({}, data);
  b.write({1}, dst_before);
  auto enc = device().begin_commands();
  // 5x4 texels from (3, 2) of a's mip 0 to b's mip 1 at (1, 1); then within b, mip 1 -> mip 2.
  enc.copy_texture(a, {0, 0, 1, 3, 2, 0, 5, 4, 1}, b, {1, 0, 1, 1, 0});
  enc.copy_texture(b, {1, 0, 1, 1, 1, 0, 3, 3, 1}, b, {2, 0, 0, 0, 0});
  device().submit(enc);
  std::vector<uint32_t> src(16 * 12), mip1(8 * 6), mip2(4 * 3);
  std::memcpy(src.data(), data.data(), data.size());
  std::vector<uint32_t> want1(8 * 6);
  std::memcpy(want1.data(), dst_before.data(), dst_before.size());
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 5; ++x) want1[(1 + y) * 8 + 1 + x] = src[(2 + y) * 16 + 3 + x];
  b.read({1}, std::as_writable_bytes(std::span(mip1)));
  EXPECT_EQ(mip1, want1);
  b.read({2, 0, 1, 0, 0, 0, 3, 3, 1}, std::as_writable_bytes(std::span(mip2).first(9)));
  for (uint32_t y = 0; y < 3; ++y)
    for (uint32_t x = 0; x < 3; ++x) EXPECT_EQ(mip2[y * 3 + x], want1[(1 + y) * 8 + 1 + x]);
}


double srgb_to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double linear_to_srgb(double l) { return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055; }

// generate_mipmaps against a host 2x2 box filter of the device's own previous level (so that one
// level's rounding does not carry into the next): 1 LSB for unorm8 (the blit's rounding and its
// filter's fixed-point weights), averaged in linear space for sRGB (what a Vulkan blit of an sRGB
// format does: decode, filter, encode), alpha linear.
TEST_F(Textures, GenerateMipmapsMatchesABoxFilter) {
  const TextureCapabilities& tc = device().texture_capabilities();
  for (TextureFormat f : {TextureFormat::rgba8_unorm, TextureFormat::rgba8_srgb}) {
    if (!tc.format(f).blit || !tc.format(f).filterable) continue;
    SCOPED_TRACE(format_name(f));
    TextureDescriptor d = make(TextureDimension::d2_array, f, 16, 8, 2, 5);
    Texture t = device().create_texture(d);
    auto data = random_texels(f, t.region_bytes({0, 0, 2}), 21);
    t.write({0, 0, 2}, data);
    auto enc = device().begin_commands();
    enc.generate_mipmaps(t);
    device().submit(enc);
    std::vector<uint8_t> prev(data.size());
    std::memcpy(prev.data(), data.data(), data.size());
    for (uint32_t m = 1; m < d.mip_levels; ++m) {
      const Extent3 pe = t.mip_extent(m - 1), e = t.mip_extent(m);
      std::vector<uint8_t> got(uint64_t(e.width) * e.height * 4 * 2);
      t.read({m, 0, 2}, std::as_writable_bytes(std::span(got)));
      for (uint32_t l = 0; l < 2; ++l)
        for (uint32_t y = 0; y < e.height; ++y)
          for (uint32_t x = 0; x < e.width; ++x)
            for (uint32_t c = 0; c < 4; ++c) {
              const bool srgb = format_info(f).srgb && c < 3;
              double sum = 0;
              for (uint32_t dy = 0; dy < 2; ++dy)
                for (uint32_t dx = 0; dx < 2; ++dx) {
                  // A 1-texel side stays 1: its two samples are the same texel.
                  const uint32_t sy = std::min(2 * y + dy, pe.height - 1), sx = std::min(2 * x + dx, pe.width - 1);
                  const double v = prev[((uint64_t(l) * pe.height + sy) * pe.width + sx) * 4 + c] / 255.0;
                  sum += srgb ? srgb_to_linear(v) : v;
                }
              const double want = (srgb ? linear_to_srgb(sum / 4) : sum / 4) * 255.0;
              const double g = got[((uint64_t(l) * e.height + y) * e.width + x) * 4 + c];
              ASSERT_LE(std::abs(g - want), 1.0 + 1e-9) << "mip " << m << " layer " << l << " (" << x << ", " << y << ") c" << c;
            }
      prev = got;
    }
  }
}

// Every bad input raises its typed error before anything reaches the driver.
TEST_F(Textures, BadInputRaisesTypedErrors) {
  const TextureCapabilities& tc = device().texture_capabilities();
  auto create = [&](TextureDescriptor d) { return device().create_texture(d); };
  auto arg = [&](TextureDescriptor d) { return shape_error_argument([&] { create(d); }); };
  EXPECT_EQ(arg({.width = 0}), "extent");
  EXPECT_EQ(arg({.width = 4, .height = 4, .mip_levels = 4}), "mip_levels");  // log2(4) + 1 = 3
  EXPECT_EQ(arg({.width = 4, .height = 4, .mip_levels = 0}), "mip_levels");
  EXPECT_EQ(arg({.width = 4, .height = 4, .depth_or_layers = 2}), "depth_or_layers");
  EXPECT_EQ(arg({.dimension = TextureDimension::cube, .width = 4, .height = 4, .depth_or_layers = 5}), "depth_or_layers");
  EXPECT_EQ(arg({.dimension = TextureDimension::cube, .width = 4, .height = 2, .depth_or_layers = 6}), "extent");
  EXPECT_EQ(arg({.width = 4, .height = 4, .usage = TextureUsage::none}), "usage");
  EXPECT_EQ(arg({.width = 4, .height = 4, .sample_count = 2}), "sample_count");
  const TextureUsage rt = TextureUsage::render_target | TextureUsage::sampled;
  EXPECT_EQ(arg({.width = 4, .height = 4, .mip_levels = 2, .sample_count = 4, .usage = rt}), "sample_count");
  EXPECT_EQ(arg({.width = 4, .height = 4, .sample_count = 4, .usage = rt | TextureUsage::storage}), "sample_count");
  EXPECT_EQ(arg({.width = 4, .height = 4, .sample_count = 4}), "sample_count");  // not a render target
  EXPECT_THROW(create({.width = tc.max_texture_2d + 1}), UnsupportedError);
  EXPECT_THROW(create({.dimension = TextureDimension::d3, .width = 2, .height = 2, .depth_or_layers = tc.max_texture_3d + 1}),
               UnsupportedError);
  if (!tc.format(TextureFormat::rgba8_srgb).storage) {
    try {
      create({.format = TextureFormat::rgba8_srgb, .usage = TextureUsage::storage});
      ADD_FAILURE() << "no exception";
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "rgba8_srgb storage");
    }
  }

  // Regions, data sizes and usages of transfers.
  Texture t = create(make(TextureDimension::d2_array, TextureFormat::rgba8_unorm, 8, 4, 2, 2));
  std::vector<std::byte> bytes(8 * 4 * 4);
  auto write_arg = [&](TextureRegion r, size_t n) {
    return shape_error_argument([&] { t.write(r, std::span(bytes).first(n)); });
  };
  EXPECT_EQ(write_arg({2}, 16), "region");                  // mip past the last
  EXPECT_EQ(write_arg({0, 1, 2}, 16), "region");            // layers outside
  EXPECT_EQ(write_arg({0, 0, 1, 8}, 16), "region");         // x outside
  EXPECT_EQ(write_arg({0, 0, 1, 4, 0, 0, 5, 1, 1}, 20), "region");  // x + width past the edge
  EXPECT_EQ(write_arg({0, 0, 1, 0, 0, 1}, 16), "region");   // z of a 2-D texture
  EXPECT_EQ(write_arg({0, 0, 1}, 16), "data");              // 128 bytes expected
  EXPECT_EQ(write_arg({0, 0, 1, 0, 0, 0, 1, 1, 1}, 4), "(nothing thrown)");
  Texture sampled_only = create({.width = 4, .height = 4, .usage = TextureUsage::sampled});
  EXPECT_EQ(shape_error_argument([&] { sampled_only.write({}, std::span(bytes).first(64)); }), "texture");
  std::vector<std::byte> out(64);
  EXPECT_EQ(shape_error_argument([&] { sampled_only.read({}, out); }), "texture");

  // Buffer layouts of copies.
  auto buf = device().create_buffer<uint32_t>(64);
  auto enc = device().begin_commands();
  auto layout_arg = [&](BufferTextureLayout l, TextureRegion r = {0, 0, 1, 0, 0, 0, 4, 2, 1}) {
    return shape_error_argument([&] { enc.copy_buffer_to_texture(buf, l, t, r); });
  };
  EXPECT_EQ(layout_arg({0, 12}), "layout");       // bytes_per_row 12 < 16
  EXPECT_EQ(layout_arg({2, 0}), "layout");        // offset not a multiple of 4
  EXPECT_EQ(layout_arg({0, 18}), "layout");       // row pitch not a multiple of the texel
  EXPECT_EQ(layout_arg({0, 16, 1}), "layout");    // rows_per_image below the height
  EXPECT_EQ(layout_arg({0, 256}), "layout");      // 256 + 16 bytes > 256
  EXPECT_EQ(layout_arg({240, 0}), "layout");      // the range runs past the buffer
  EXPECT_EQ(layout_arg({0, 0}), "(nothing thrown)");
  Texture other_format = create({.format = TextureFormat::r32_float, .width = 8, .height = 4,
                                 .usage = TextureUsage::copy_src | TextureUsage::copy_dst});
  EXPECT_EQ(shape_error_argument([&] { enc.copy_texture(t, {}, other_format, {}); }), "dst");
  EXPECT_EQ(shape_error_argument([&] { enc.copy_texture(t, {0, 0, 1, 0, 0, 0, 4, 4, 1}, t, {0, 0, 2, 0, 0}); }), "dst");
  EXPECT_EQ(shape_error_argument([&] { enc.copy_texture(t, {0, 0, 1, 0, 0, 0, 4, 4, 1}, t, {0, 1, 2, 0, 0}); }),
            "(nothing thrown)");
  EXPECT_EQ(shape_error_argument([&] { enc.generate_mipmaps(create({.width = 4, .height = 4, .mip_levels = 2})); }),
            "texture");  // usage lacks copy_src

  // Bindings: kind, usage, dimension, texel kind, storage format, sampler, mips, device.
  auto sample = device().create_compute_kernel(shaders::test_sample_lod::source());
  auto fill = device().create_compute_kernel(shaders::test_storage_fill::source());
  auto fetch = device().create_compute_kernel(shaders::test_texel_fetch_uint::source());
  auto cube = device().create_compute_kernel(shaders::test_sample_cube::source());
  Sampler nearest = device().create_sampler();
  Sampler linear = device().create_sampler({.mag_filter = FilterMode::linear, .min_filter = FilterMode::linear});
  Sampler compare = device().create_sampler({.compare = CompareFunction::less});
  Texture rgba = create({.width = 4, .height = 4, .mip_levels = 3,
                         .usage = TextureUsage::sampled | TextureUsage::copy_dst});
  Texture rgba32 = create({.format = TextureFormat::rgba32_float, .width = 4, .height = 4, .mip_levels = 2,
                           .usage = TextureUsage::sampled | TextureUsage::storage});
  Texture uints = create({.format = TextureFormat::r32_uint, .width = 4, .height = 4});
  Texture layers = create({.dimension = TextureDimension::d2_array, .width = 4, .height = 4, .depth_or_layers = 3});
  auto bind_arg = [&](const ComputeKernel& k, std::initializer_list<Binding> b) {
    return shape_error_argument([&] { device().create_bind_group(k, b); });
  };
  EXPECT_EQ(bind_arg(sample, {buf, buf, buf}), "binding 0");                                     // buffer for a texture
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba, 0, 0, 0, 0, &nearest}, rgba, buf}), "binding 1");  // texture for a buffer
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba}, buf, buf}), "binding 0");                    // no sampler
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba, 3, 0, 0, 0, &nearest}, buf, buf}), "binding 0");  // base_mip
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba, 1, 3, 0, 0, &nearest}, buf, buf}), "binding 0");  // mips
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba, 0, 0, 0, 0, &compare}, buf, buf}), "binding 0");  // compare
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&uints, 0, 0, 0, 0, &nearest}, buf, buf}), "binding 0");  // uint texels
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&layers, 0, 0, 0, 0, &nearest}, buf, buf}), "binding 0");  // 3 layers
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&layers, 0, 0, 2, 1, &nearest}, buf, buf}), "(nothing thrown)");
  EXPECT_EQ(bind_arg(sample, {TextureBinding{&rgba, 0, 0, 0, 0, &nearest}, buf, buf}), "(nothing thrown)");
  EXPECT_EQ(bind_arg(fetch, {TextureBinding{&rgba, 0, 0, 0, 0, &nearest}, buf}), "binding 0");  // float for uint
  EXPECT_EQ(bind_arg(fetch, {TextureBinding{&uints, 0, 0, 0, 0, &nearest}, buf}), "(nothing thrown)");
  EXPECT_THROW(device().create_bind_group(fetch, {TextureBinding{&uints, 0, 0, 0, 0, &linear}, buf}), UnsupportedError);
  EXPECT_EQ(bind_arg(cube, {TextureBinding{&layers, 0, 0, 0, 0, &nearest}, buf}), "binding 0");  // not a cube
  EXPECT_EQ(bind_arg(fill, {rgba}), "binding 0");                              // not storage usage
  EXPECT_EQ(bind_arg(fill, {rgba32}), "binding 0");                            // two mips
  EXPECT_EQ(bind_arg(fill, {TextureBinding{&rgba32, 1, 1}}), "(nothing thrown)");
  EXPECT_EQ(bind_arg(fill, {TextureBinding{&rgba32, 0, 1, 0, 0, &nearest}}), "binding 0");  // no sampler here
  if (tc.format(TextureFormat::r32_float).storage) {
    Texture r32 = create({.format = TextureFormat::r32_float, .width = 4, .height = 4, .usage = TextureUsage::storage});
    EXPECT_EQ(bind_arg(fill, {r32}), "binding 0");  // the shader declares rgba32f
  }
  EXPECT_EQ(bind_arg(sample, {buf, buf}), "bindings");  // count

  // Destroyed (moved-from) textures and samplers, and other devices.
  Texture gone = create({.width = 4, .height = 4});
  Texture taker = std::move(gone);
  EXPECT_THROW(device().create_bind_group(sample, {TextureBinding{&gone, 0, 0, 0, 0, &nearest}, buf, buf}), UsageError);
  EXPECT_THROW(enc.copy_texture(gone, {}, t, {}), UsageError);
  std::string why;
  if (auto other = open_test_device(&why)) {
    Texture theirs = other->create_texture({.width = 4, .height = 4, .usage = TextureUsage::sampled | TextureUsage::copy_src});
    EXPECT_THROW(device().create_bind_group(sample, {TextureBinding{&theirs, 0, 0, 0, 0, &nearest}, buf, buf}), UsageError);
    EXPECT_THROW(enc.copy_texture_to_buffer(theirs, {}, buf, {}), UsageError);
    theirs = Texture();
    EXPECT_TRUE(close_and_take_messages(*other).empty());
  }

  // Samplers.
  auto sampler_arg = [&](SamplerDescriptor s) { return shape_error_argument([&] { device().create_sampler(s); }); };
  EXPECT_EQ(sampler_arg({.lod_min = 2, .lod_max = 1}), "lod_max");
  EXPECT_EQ(sampler_arg({.lod_min = -1}), "lod_min");
  EXPECT_EQ(sampler_arg({.max_anisotropy = 0}), "max_anisotropy");
  EXPECT_EQ(sampler_arg({.max_anisotropy = 2}), "max_anisotropy");  // nearest filters
  EXPECT_THROW(device().create_sampler({.mag_filter = FilterMode::linear, .min_filter = FilterMode::linear,
                                        .mipmap_filter = FilterMode::linear,
                                        .max_anisotropy = static_cast<uint16_t>(tc.max_sampler_anisotropy + 1)}),
               UnsupportedError);
}

// The encoder keeps textures (and the samplers of its groups) alive when the caller destroys them
// right after recording; the dispatch of a group whose texture is gone is refused.
TEST_F(Textures, EncoderKeepsTexturesAlive) {
  const uint32_t w = 8, h = 4;
  auto fetch = device().create_compute_kernel(shaders::test_texel_fetch_uint::source());
  auto out = device().create_buffer(std::vector<uint32_t>(w * h + 1, kSentinel));
  auto copy_out = device().create_buffer(std::vector<uint32_t>(w * h, kSentinel));
  const std::vector<uint32_t> words = random_words(w * h, 4);
  const uint64_t live = device().memory_stats().live_textures;
  auto enc = device().begin_commands();
  {
    Texture t = device().create_texture({.format = TextureFormat::r32_uint, .width = w, .height = h,
                                         .usage = TextureUsage::sampled | TextureUsage::copy_dst | TextureUsage::copy_src});
    t.write({}, std::as_bytes(std::span(words)));
    Sampler s = device().create_sampler();
    auto group = device().create_bind_group(fetch, {TextureBinding{&t, 0, 0, 0, 0, &s}, out});
    struct Push {
      uint32_t width, height;
      int32_t lod;
    };
    enc.begin_compute_pass().dispatch(fetch, group, Push{w, h, 0}, Grid{1, 1});
    enc.copy_texture_to_buffer(t, {}, copy_out, {});
  }
  EXPECT_EQ(device().memory_stats().live_textures, live + 1) << "the encoder holds the texture";
  device().submit(enc);
  auto got = out.read();
  for (uint32_t i = 0; i < w * h; ++i) ASSERT_EQ(got[i], words[i]) << i;
  EXPECT_EQ(got[w * h], kSentinel);
  EXPECT_EQ(copy_out.read(), words);
  device().wait_idle();
  EXPECT_EQ(device().memory_stats().live_textures, live) << "released after the submission";

  // A group whose texture was destroyed cannot be dispatched.
  Sampler s = device().create_sampler();
  std::optional<Texture> t = device().create_texture({.format = TextureFormat::r32_uint, .width = w, .height = h});
  auto group = device().create_bind_group(fetch, {TextureBinding{&*t, 0, 0, 0, 0, &s}, out});
  t.reset();
  auto enc2 = device().begin_commands();
  struct Push {
    uint32_t width, height;
    int32_t lod;
  };
  EXPECT_THROW(enc2.begin_compute_pass().dispatch(fetch, group, Push{w, h, 0}, Grid{1, 1}), UsageError);
}

}  // namespace
}  // namespace onegpu::testing
