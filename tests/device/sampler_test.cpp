// Samplers: a compute kernel samples a small random texture with textureLod at random coordinates
// and lods; a float64 host reference implements nearest and linear filtering, the four address
// modes, mip selection (nearest and linear between mips) and depth comparison.
//
// Tolerance, from the device's limits: filter weights are kept to subTexelPrecisionBits bits and
// the weight between two mips to mipmapPrecisionBits bits, so a bilinear result may differ from
// the exact one by up to 2 * 2^-subTexelPrecisionBits (one weight per axis, texel values in
// [0, 1]) and a trilinear one by 2^-mipmapPrecisionBits more; a filter that computes in 8-bit
// fixed point for unorm8 formats (llvmpipe does) adds up to 2/255. Nearest filtering is exact
// (1e-6). On lavapipe (8 and 4 bits): 0.0157 bilinear, 0.0782 trilinear. Samples whose texel or mip
// choice lies within one precision step of a boundary (where the exact and the device's choice
// may differ) are skipped and counted; most samples are checked.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/device_fixture.h"
#include "support/random.h"
#include "test_sample_lod.h"
#include "test_sample_shadow.h"
#include "test_storage_fill.h"

namespace onegpu::testing {
namespace {

class Samplers : public DeviceTest {};

using Texel = std::array<double, 4>;

struct HostMip {
  int64_t w, h;
  std::vector<Texel> texels;
};

// The texel index after the address mode, or -1 for the border.
int64_t wrap(int64_t i, int64_t n, AddressMode m) {
  switch (m) {
    case AddressMode::clamp_to_edge: return std::clamp<int64_t>(i, 0, n - 1);
    case AddressMode::repeat: return ((i % n) + n) % n;
    case AddressMode::mirror_repeat: {
      const int64_t t = ((i % (2 * n)) + 2 * n) % (2 * n);
      return t >= n ? 2 * n - 1 - t : t;
    }
    case AddressMode::clamp_to_border: return i < 0 || i >= n ? -1 : i;
  }
  return 0;
}

struct Reference {
  std::vector<HostMip> mips;
  SamplerDescriptor s;
  double eps_texel;  // a coordinate closer than this to a boundary is ambiguous
  double eps_lod;

  Texel fetch(const HostMip& m, int64_t i, int64_t j) const {
    const int64_t x = wrap(i, m.w, s.address_u), y = wrap(j, m.h, s.address_v);
    if (x < 0 || y < 0) return {0, 0, 0, 0};  // transparent black
    return m.texels[y * m.w + x];
  }
  // Filters one mip; `ambiguous` is set near a nearest-filter boundary.
  Texel filter(const HostMip& m, double u, double v, FilterMode f, bool& ambiguous) const {
    if (f == FilterMode::nearest) {
      const double x = u * m.w, y = v * m.h;
      if (std::abs(x - std::round(x)) < eps_texel || std::abs(y - std::round(y)) < eps_texel) ambiguous = true;
      return fetch(m, static_cast<int64_t>(std::floor(x)), static_cast<int64_t>(std::floor(y)));
    }
    const double x = u * m.w - 0.5, y = v * m.h - 0.5;
    const int64_t i = static_cast<int64_t>(std::floor(x)), j = static_cast<int64_t>(std::floor(y));
    const double a = x - i, b = y - j;
    const Texel t00 = fetch(m, i, j), t10 = fetch(m, i + 1, j), t01 = fetch(m, i, j + 1), t11 = fetch(m, i + 1, j + 1);
    Texel out;
    for (int c = 0; c < 4; ++c)
      out[c] = (1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c] + (1 - a) * b * t01[c] + a * b * t11[c];
    return out;
  }
  Texel sample(double u, double v, double lod, bool& ambiguous) const {
    const double lambda = std::clamp<double>(lod, s.lod_min, s.lod_max);
    const double q = static_cast<double>(mips.size() - 1);
    if (s.mag_filter != s.min_filter && std::abs(lambda) < eps_lod) ambiguous = true;
    const FilterMode f = lambda <= 0 ? s.mag_filter : s.min_filter;
    const double d = std::clamp(lambda, 0.0, q);
    if (s.mipmap_filter == FilterMode::nearest || lambda <= 0) {
      if (lambda > 0 && std::abs(d - std::floor(d) - 0.5) < eps_lod) ambiguous = true;
      const int64_t level = lambda <= 0 ? 0 : std::min<int64_t>(static_cast<int64_t>(std::ceil(d + 0.5)) - 1, int64_t(q));
      return filter(mips[std::max<int64_t>(level, 0)], u, v, f, ambiguous);
    }
    const int64_t hi = static_cast<int64_t>(std::floor(d)), lo = std::min<int64_t>(hi + 1, int64_t(q));
    const double delta = d - std::floor(d);
    const Texel a = filter(mips[hi], u, v, f, ambiguous), b = filter(mips[lo], u, v, f, ambiguous);
    Texel out;
    for (int c = 0; c < 4; ++c) out[c] = (1 - delta) * a[c] + delta * b[c];
    return out;
  }
};

TEST_F(Samplers, FilteringAddressModesAndMipsMatchTheHostReference) {
  const TextureCapabilities& tc = device().texture_capabilities();
  const uint32_t sub = std::max(tc.sub_texel_precision_bits, 4u), mipbits = std::max(tc.mipmap_precision_bits, 1u);
  const double tol = 2 * std::ldexp(1.0, -int(sub)) + std::ldexp(1.0, -int(mipbits)) + 2.0 / 255;
  RecordProperty("tolerance", std::to_string(tol));
  std::printf("subTexelPrecisionBits %u, mipmapPrecisionBits %u: tolerance %.5f\n", tc.sub_texel_precision_bits,
              tc.mipmap_precision_bits, tol);

  TextureDescriptor td{.format = TextureFormat::rgba8_unorm, .width = 7, .height = 5, .mip_levels = 3};
  Texture tex = device().create_texture(td);
  std::mt19937 rng(5);
  std::vector<HostMip> mips;
  for (uint32_t m = 0; m < td.mip_levels; ++m) {
    const Extent3 e = tex.mip_extent(m);
    std::vector<uint8_t> bytes(uint64_t(e.width) * e.height * 4);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    tex.write({m}, std::as_bytes(std::span(bytes)));
    HostMip hm{e.width, e.height, {}};
    for (size_t i = 0; i < bytes.size(); i += 4)
      hm.texels.push_back({bytes[i] / 255.0, bytes[i + 1] / 255.0, bytes[i + 2] / 255.0, bytes[i + 3] / 255.0});
    mips.push_back(std::move(hm));
  }

  const uint32_t n = 512;
  std::uniform_real_distribution<float> coord(-1.25f, 2.25f), lod(-0.5f, 2.7f);
  std::vector<float> coords(n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    coords[4 * i] = coord(rng);
    coords[4 * i + 1] = coord(rng);
    coords[4 * i + 2] = lod(rng);
    coords[4 * i + 3] = 0;
  }
  auto coord_buffer = device().create_buffer(coords);
  auto kernel = device().create_compute_kernel(shaders::test_sample_lod::source());

  const AddressMode modes[] = {AddressMode::clamp_to_edge, AddressMode::repeat, AddressMode::mirror_repeat,
                               AddressMode::clamp_to_border};
  const std::array<FilterMode, 3> filters[] = {{FilterMode::nearest, FilterMode::nearest, FilterMode::nearest},
                                               {FilterMode::linear, FilterMode::linear, FilterMode::linear},
                                               {FilterMode::linear, FilterMode::nearest, FilterMode::linear},
                                               {FilterMode::nearest, FilterMode::linear, FilterMode::nearest}};
  uint64_t checked = 0, skipped = 0;
  for (int a = 0; a < 4; ++a) {
    for (const auto& f : filters) {
      SamplerDescriptor sd{.address_u = modes[a], .address_v = modes[(a + 1) % 4], .mag_filter = f[0],
                           .min_filter = f[1], .mipmap_filter = f[2]};
      Sampler sampler = device().create_sampler(sd);
      auto out = device().create_buffer(std::vector<float>(n * 4 + 4, std::nanf("")));
      auto group = device().create_bind_group(kernel, {TextureBinding{&tex, 0, 0, 0, 0, &sampler}, coord_buffer, out});
      auto enc = device().begin_commands();
      enc.begin_compute_pass().dispatch(kernel, group, n, Grid{n / 64});
      device().submit(enc);
      const std::vector<float> got = out.read();
      // Nearest filtering returns a texel exactly; each linear stage adds its precision.
      const bool bilinear = f[0] == FilterMode::linear || f[1] == FilterMode::linear;
      const double config_tol = (bilinear ? 2 * std::ldexp(1.0, -int(sub)) + 2.0 / 255 : 1e-6) +
                                (f[2] == FilterMode::linear ? std::ldexp(1.0, -int(mipbits)) : 0.0);
      Reference ref{mips, sd, std::ldexp(1.0, -int(sub)) + 1e-4, std::ldexp(1.0, -int(mipbits)) + 1e-4};
      for (uint32_t i = 0; i < n; ++i) {
        bool ambiguous = false;
        const Texel want = ref.sample(coords[4 * i], coords[4 * i + 1], coords[4 * i + 2], ambiguous);
        if (ambiguous) {
          ++skipped;
          continue;
        }
        ++checked;
        for (int c = 0; c < 4; ++c)
          ASSERT_NEAR(got[4 * i + c], want[c], config_tol)
              << "address " << a << " filters " << int(f[0]) << int(f[1]) << int(f[2]) << " sample " << i << " ("
              << coords[4 * i] << ", " << coords[4 * i + 1] << ", lod " << coords[4 * i + 2] << ") channel " << c;
      }
      for (int c = 0; c < 4; ++c) EXPECT_TRUE(std::isnan(got[n * 4 + c])) << "sentinel after the output";
    }
  }
  EXPECT_GT(checked, 4 * skipped) << checked << " checked, " << skipped << " skipped near a boundary";
}

TEST_F(Samplers, DepthComparisonLessAndGreater) {
  const TextureCapabilities& tc = device().texture_capabilities();
  if (!tc.format(TextureFormat::depth32_float).sampled) GTEST_SKIP() << "depth32_float cannot be sampled here";
  TextureDescriptor td{.format = TextureFormat::depth32_float, .width = 6, .height = 5};
  Texture tex = device().create_texture(td);
  auto depths = random_floats(30, 8, 0.f, 1.f);
  tex.write({}, std::as_bytes(std::span(depths)));
  const uint32_t n = 256;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  std::vector<float> coords(n * 4);
  for (auto& c : coords) c = unit(rng);
  for (uint32_t i = 0; i < n; ++i) coords[4 * i + 3] = 0;  // lod
  auto coord_buffer = device().create_buffer(coords);
  auto kernel = device().create_compute_kernel(shaders::test_sample_shadow::source());
  for (CompareFunction fn : {CompareFunction::less, CompareFunction::greater}) {
    Sampler sampler = device().create_sampler({.compare = fn});
    auto out = device().create_buffer(std::vector<float>(n + 1, -1.f));
    auto group = device().create_bind_group(kernel, {TextureBinding{&tex, 0, 0, 0, 0, &sampler}, coord_buffer, out});
    auto enc = device().begin_commands();
    enc.begin_compute_pass().dispatch(kernel, group, n, Grid{n / 64});
    device().submit(enc);
    const auto got = out.read();
    uint32_t checked = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const double x = coords[4 * i] * 6.0, y = coords[4 * i + 1] * 5.0, ref = coords[4 * i + 2];
      if (std::abs(x - std::round(x)) < 1e-2 || std::abs(y - std::round(y)) < 1e-2) continue;
      const int64_t tx = std::min<int64_t>(static_cast<int64_t>(x), 5), ty = std::min<int64_t>(static_cast<int64_t>(y), 4);
      const double texel = depths[ty * 6 + tx];
      if (std::abs(ref - texel) < 1e-6) continue;
      const bool pass = fn == CompareFunction::less ? ref < texel : ref > texel;
      ASSERT_EQ(got[i], pass ? 1.f : 0.f) << "sample " << i << " ref " << ref << " texel " << texel;
      ++checked;
    }
    EXPECT_GT(checked, n * 3 / 4);
    EXPECT_EQ(got[n], -1.f) << "sentinel";
  }
}

// A compute pass writes a storage texture, the next pass of the same encoder samples it: the
// encoder orders the two (a memory barrier) without any wait in between.
TEST_F(Samplers, StorageWriteThenSampleInTheNextPass) {
  const TextureCapabilities& tc = device().texture_capabilities();
  if (!tc.format(TextureFormat::rgba32_float).storage) GTEST_SKIP() << "rgba32_float storage not offered";
  const uint32_t w = 19, h = 11, n = w * h;
  TextureDescriptor td{.format = TextureFormat::rgba32_float, .width = w, .height = h,
                       .usage = TextureUsage::storage | TextureUsage::sampled | TextureUsage::copy_dst};
  Texture tex = device().create_texture(td);
  const std::vector<float> before = random_floats(n * 4, 3);
  tex.write({}, std::as_bytes(std::span(before)));  // overwritten by the kernel
  std::vector<float> coords(n * 4);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      float* c = &coords[4 * (y * w + x)];
      c[0] = (x + 0.5f) / w;
      c[1] = (y + 0.5f) / h;
      c[2] = 0;
      c[3] = 0;
    }
  auto coord_buffer = device().create_buffer(coords);
  auto out = device().create_buffer(std::vector<float>(n * 4, std::nanf("")));
  auto fill = device().create_compute_kernel(shaders::test_storage_fill::source());
  auto sample = device().create_compute_kernel(shaders::test_sample_lod::source());
  Sampler sampler = device().create_sampler();
  auto fill_group = device().create_bind_group(fill, {tex});
  auto sample_group = device().create_bind_group(sample, {TextureBinding{&tex, 0, 0, 0, 0, &sampler}, coord_buffer, out});
  struct FillPush {
    uint32_t width, height;
    float scale, seed;
  };
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(fill, fill_group, FillPush{w, h, 0.25f, 7.5f}, Grid{(w + 7) / 8, (h + 7) / 8});
  enc.begin_compute_pass().dispatch(sample, sample_group, n, Grid{(n + 63) / 64});
  device().submit(enc);
  const auto got = out.read();
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const float* g = &got[4 * (y * w + x)];
      ASSERT_EQ(g[0], x * 0.25f) << x << "," << y;
      ASSERT_EQ(g[1], float(y));
      ASSERT_EQ(g[2], float(x + y));
      ASSERT_EQ(g[3], 7.5f);
    }
}

}  // namespace
}  // namespace onegpu::testing
