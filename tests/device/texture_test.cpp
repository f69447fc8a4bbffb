// Textures: creation checks, round trips of every copyable format through every dimension, mip and
// layer, partial regions with sentinels, asynchronous reads, buffer <-> texture copies with padded
// rows, texture <-> texture copies, mip generation against a host box filter, lifetimes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <future>
#include <random>
#include <vector>

#include "core/texture_checks.h"
#include "support/device_fixture.h"
#include "support/random.h"

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

}  // namespace
}  // namespace onegpu::testing
