// A golden-image test end to end: a kernel draws a picture into a buffer of rgba8 texels, which is
// read back and compared with tests/goldens/compute/gradient.png, and with the picture computed on
// the host in float64 (so a wrong golden cannot pass). docs/goldens.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "support/device_fixture.h"
#include "support/golden.h"
#include "test_gradient.h"

namespace onegpu::testing {
namespace {

struct GradientPush {
  uint32_t width, height;
};

class GoldenImages : public DeviceTest {};

TEST_F(GoldenImages, ComputedGradientMatchesGoldenAndHost) {
  const uint32_t w = 64, h = 48;
  auto kernel = device().create_compute_kernel(shaders::test_gradient::source());
  auto pixels = device().create_buffer<uint32_t>(std::vector<uint32_t>(w * h + 4, 0xDEADBEEFu));
  auto group = device().create_bind_group(kernel, {pixels});
  auto encoder = device().begin_commands();
  auto pass = encoder.begin_compute_pass();
  pass.dispatch(kernel, group, GradientPush{w, h}, {(w + 7) / 8, (h + 7) / 8, 1});
  device().submit(encoder);
  const std::vector<uint32_t> words = pixels.read();
  for (size_t i = w * h; i < words.size(); ++i) EXPECT_EQ(words[i], 0xDEADBEEFu) << "sentinel " << i;

  const Image image = to_rgba8(TextureFormat::rgba8_unorm, w, h, std::as_bytes(std::span(words).first(w * h)));
  // Host picture: unorm8 of each channel, rounded to nearest; a driver may round the exact halves
  // the other way, so 1 is allowed per channel.
  uint32_t worst = 0;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const double checker = (((x >> 3) + (y >> 3)) & 1u) ? 1.0 : 0.0;
      const double ref[4] = {double(x) / (w - 1), double(y) / (h - 1), 0.25 + 0.5 * checker, 1.0};
      const auto px = image.pixel(x, y);
      for (int c = 0; c < 4; ++c)
        worst = std::max<uint32_t>(worst, uint32_t(std::abs(double(px[c]) - std::round(ref[c] * 255.0))));
    }
  }
  EXPECT_LE(worst, 1u) << "the kernel's picture against the float64 host picture";

  const GoldenResult r = compare_with_golden("compute/gradient", w, h, image.rgba, {.max_channel_difference = 1});
  EXPECT_TRUE(r) << r.message;
}

}  // namespace
}  // namespace onegpu::testing
