// Buffers: uploads, synchronous and asynchronous readback, ranges, memory statistics, errors.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "shaders/fill_push.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "test_add_one.h"
#include "test_fill.h"
#include "vulkan/check.h"

namespace onegpu::testing {
namespace {

static_assert(sizeof(FillPush) == shaders::test_fill::kPushConstantSize);

class Buffers : public DeviceTest {};

TEST_F(Buffers, UploadBeforeSubmissionIsVisibleToIt) {
  const uint32_t n = 777;
  std::vector<uint32_t> init(n + 1 + 8, kSentinel);
  init[0] = n;
  auto values = random_words(n, 11);
  std::copy(values.begin(), values.end(), init.begin() + 1);
  auto data = device().create_buffer(init);  // upload queued, not yet run
  auto kernel = device().create_compute_kernel(shaders::test_add_one::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(kernel, group, std::span<const std::byte>{}, {(n + 63) / 64, 1, 1});
  // A write queued after recording but before submission also runs before it.
  std::vector<uint32_t> patch = {5, 6, 7};
  data.write(patch, 1);
  device().submit(enc);
  auto out = data.read();
  EXPECT_EQ(out[1], 6u);
  EXPECT_EQ(out[2], 7u);
  EXPECT_EQ(out[3], 8u);
  for (uint32_t i = 3; i < n; ++i) ASSERT_EQ(out[1 + i], values[i] + 1) << i;
  for (size_t i = n + 1; i < out.size(); ++i) ASSERT_EQ(out[i], kSentinel);
}

TEST_F(Buffers, ReadAsyncCompletesInSubmissionOrderAndSeesPriorWork) {
  const uint32_t n = 4096;
  const int kRounds = 24;
  auto data = device().create_buffer<uint32_t>(n);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  std::vector<std::vector<uint32_t>> results(kRounds, std::vector<uint32_t>(n, kSentinel));
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::vector<std::future<void>> futures;
  for (int k = 0; k < kRounds; ++k) {
    auto enc = device().begin_commands();
    enc.begin_compute_pass().dispatch(kernel, group, FillPush{n, uint32_t(k) << 20, uint32_t(k + 1)}, {n / 64, 1, 1});
    device().submit(enc);
    auto promise = std::make_shared<std::promise<void>>();
    futures.push_back(promise->get_future());
    data.read_bytes_async(0, std::as_writable_bytes(std::span(results[k])), [&, k, promise](std::exception_ptr e) {
      {
        std::lock_guard lock(mu);
        order.push_back(k);
        threads.push_back(std::this_thread::get_id());
      }
      if (e) promise->set_exception(e);
      else promise->set_value();
    });
  }
  for (auto& f : futures) f.get();
  std::vector<int> expected(kRounds);
  for (int k = 0; k < kRounds; ++k) expected[k] = k;
  EXPECT_EQ(order, expected);
  for (auto id : threads) EXPECT_NE(id, std::this_thread::get_id()) << "completions run on the readback thread";
  for (int k = 0; k < kRounds; ++k)
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(results[k][i], (uint32_t(k) << 20) + i * uint32_t(k + 1)) << k << "," << i;
}

TEST_F(Buffers, ReadAsyncFutureAndVectorForms) {
  auto values = random_floats(300, 5);
  auto data = device().create_buffer(values);
  std::future<std::vector<float>> whole = data.read_async();
  std::vector<float> part(10);
  std::future<void> some = data.read_async(std::span(part), 100);
  EXPECT_EQ(whole.get(), values);
  some.get();
  EXPECT_EQ(part, std::vector<float>(values.begin() + 100, values.begin() + 110));
}

TEST_F(Buffers, SubWordElementsAndOddRanges) {
  std::vector<uint16_t> halves = {1, 2, 3, 4, 5, 6, 7};
  auto data = device().create_buffer(halves);
  EXPECT_EQ(data.size_bytes(), 16u);  // padded to whole 32-bit words
  EXPECT_EQ(data.read(), halves);
  std::vector<uint16_t> mid(3);
  data.read(std::span(mid), 1);
  EXPECT_EQ(mid, (std::vector<uint16_t>{2, 3, 4}));
  std::vector<uint16_t> tail = {70};
  data.write(tail, 6);  // ends in the padding: allowed
  std::vector<uint16_t> two = {30, 40};
  data.write(two, 2);  // whole words
  EXPECT_EQ(data.read(), (std::vector<uint16_t>{1, 2, 30, 40, 5, 6, 70}));
  std::vector<uint16_t> one = {9};
  EXPECT_THROW(data.write(one, 1), KernelShapeError);  // would split a word in the middle
}

TEST_F(Buffers, RangesOutsideTheBufferThrow) {
  auto data = device().create_buffer<float>(16);
  std::vector<float> big(17);
  EXPECT_THROW(data.write(big), KernelShapeError);
  EXPECT_THROW(data.read(std::span(big)), KernelShapeError);
  std::vector<float> two(2);
  EXPECT_THROW(data.read(std::span(two), 15), KernelShapeError);
  EXPECT_THROW(data.read_async(std::span(two), SIZE_MAX / 4), KernelShapeError);
  try {
    data.write(two, 15);
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "write");
  }
}

TEST_F(Buffers, TooLargeAndOutOfMemory) {
  const auto& c = caps();
  if (c.max_buffer_size != 0 && c.max_buffer_size < UINT64_MAX / 2) {
    try {
      device().create_buffer<uint8_t>(c.max_buffer_size + 1);
      FAIL();
    } catch (const UnsupportedError& e) {
      EXPECT_EQ(e.capability(), "max_buffer_size");
    }
  }
  EXPECT_THROW(device().create_buffer<double>(SIZE_MAX / 2), KernelShapeError);  // bytes overflow
  vulkan::inject_failure("vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  try {
    device().create_buffer<float>(40u << 20);  // dedicated allocation
    FAIL();
  } catch (const OutOfMemoryError& e) {
    EXPECT_GE(e.requested_bytes(), 160ull << 20);
  }
  vulkan::clear_injected_failures();
  auto after = device().create_buffer<float>(16);  // the device still works
  EXPECT_EQ(after.size(), 16u);
}

TEST_F(Buffers, MemoryStatsFollowBuffers) {
  device().wait_idle();
  MemoryStats s0 = device().memory_stats();
  {
    auto a = device().create_buffer<float>(256 * 1024);  // 1 MiB
    auto b = device().create_buffer<float>(256 * 1024);
    MemoryStats s1 = device().memory_stats();
    EXPECT_EQ(s1.live_buffers, s0.live_buffers + 2);
    EXPECT_EQ(s1.live_bytes, s0.live_bytes + (2u << 20));
    EXPECT_GE(s1.blocks, 1u);
    EXPECT_GE(s1.block_bytes, s1.live_bytes);
    {
      auto big = device().create_buffer<float>(48u << 20);  // 192 MiB
      MemoryStats s2 = device().memory_stats();
      EXPECT_EQ(s2.blocks, s1.blocks + 1) << "a large buffer gets a dedicated allocation";
      EXPECT_EQ(s2.live_bytes, s1.live_bytes + (192ull << 20));
    }
    device().wait_idle();
    MemoryStats s3 = device().memory_stats();
    EXPECT_EQ(s3.blocks, s1.blocks);
    EXPECT_EQ(s3.live_bytes, s1.live_bytes);
    std::vector<float> ones(256 * 1024, 1.f);
    a.write(ones);
    EXPECT_GE(device().memory_stats().staging_bytes, 1u << 20);
    // Released while the GPU may still use it: counted until the work is done.
    auto enc = device().begin_commands();
    enc.copy_buffer(a, 0, b, 0, 1u << 20);
    device().submit(enc);
  }
  MemoryStats s4 = device().memory_stats();
  EXPECT_EQ(s4.live_bytes - s4.pending_release_bytes, s0.live_bytes);
  device().wait_idle();
  MemoryStats s5 = device().memory_stats();
  EXPECT_EQ(s5.live_buffers, s0.live_buffers);
  EXPECT_EQ(s5.live_bytes, s0.live_bytes);
  EXPECT_EQ(s5.pending_release_bytes, 0u);
}

}  // namespace
}  // namespace onegpu::testing
