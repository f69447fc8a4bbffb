// Pass timing with GPU timestamps.
#include <gtest/gtest.h>

#include "support/device_fixture.h"
#include "test_fill.h"

namespace onegpu::testing {
namespace {

class Timestamps : public DeviceTest {};

TEST_F(Timestamps, SlotsAreFilledNonZeroAndOrdered) {
  if (!caps().timestamps) GTEST_SKIP() << "the device has no timestamps";
  const uint32_t n = 1 << 16;
  auto data = device().create_buffer<uint32_t>(n);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto timing = device().create_timestamp_set(3);
  EXPECT_EQ(timing.pass_capacity(), 3u);
  EXPECT_FALSE(timing.try_read().has_value());
  struct {
    uint32_t count, value, step;
  } push{n, 1, 2};
  auto enc = device().begin_commands();
  enc.begin_pass_timing(timing);
  for (int i = 0; i < 4; ++i) {  // the fourth pass finds the set full and is not timed
    enc.begin_compute_pass().dispatch(kernel, group, push, {n / 64, 1, 1});
  }
  device().submit(enc);
  auto durations = timing.wait_pass_durations();
  ASSERT_EQ(durations.size(), 3u);
  auto slots = timing.try_read();
  ASSERT_TRUE(slots.has_value());
  ASSERT_EQ(slots->size(), 6u);
  for (uint64_t t : *slots) EXPECT_NE(t, 0u);
  for (size_t i = 1; i < slots->size(); ++i) EXPECT_LE((*slots)[i - 1], (*slots)[i]) << i;
  EXPECT_EQ(data.read()[n - 1], 1 + (n - 1) * 2);
}

TEST_F(Timestamps, DevicesWithoutTimestampsSayWhy) {
  if (caps().timestamps) {
    EXPECT_THROW(device().create_timestamp_set(0), KernelShapeError);
  } else {
    EXPECT_THROW(device().create_timestamp_set(1), UnsupportedError);
  }
}

}  // namespace
}  // namespace onegpu::testing
