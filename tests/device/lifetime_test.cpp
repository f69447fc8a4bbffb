// Nothing recorded outlives what it uses; failed submissions surface as CommandFailedError; long
// work splits into consecutive submissions. Every test runs under the validation layer, which
// reports a command buffer that uses a destroyed buffer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <optional>
#include <type_traits>

#include "onegpu/kernels/gemm.h"
#include "shaders/fill_push.h"
#include "support/device_fixture.h"
#include "support/random.h"
#include "test_fill.h"
#include "test_subgroup_sum.h"
#include "test_transpose.h"
#include "vulkan/check.h"

namespace onegpu::testing {
namespace {

static_assert(!std::is_copy_constructible_v<ComputeKernel> && std::is_nothrow_move_constructible_v<ComputeKernel>);
static_assert(!std::is_copy_assignable_v<ComputeKernel>);
static_assert(!std::is_copy_constructible_v<BindGroup> && std::is_nothrow_move_constructible_v<BindGroup>);
static_assert(!std::is_copy_constructible_v<ComputePass> && std::is_nothrow_move_constructible_v<ComputePass>);
static_assert(!std::is_copy_constructible_v<CommandEncoder>);

struct TransposePush {
  uint32_t rows, cols;
};
Grid transpose_grid(uint32_t rows, uint32_t cols) { return {(cols + 15) / 16, (rows + 15) / 16, 1}; }

class Lifetimes : public DeviceTest {};

TEST_F(Lifetimes, BufferDestroyedAfterWriteBeforeSubmit) {
  const MemoryStats before = device().memory_stats();
  {
    auto doomed = device().create_buffer<uint32_t>(1 << 18);
    doomed.write(random_words(1 << 18, 1));  // the upload waits for the next submission
  }
  // Released, but not before the submission that carries its upload.
  EXPECT_EQ(device().memory_stats().pending_release_bytes - before.pending_release_bytes, 4u << 18);
  auto kept = device().create_buffer(std::vector<uint32_t>{1, 2, 3, 4});
  auto enc = device().begin_commands();
  device().submit(enc);
  device().wait_idle();
  EXPECT_EQ(kept.read(), (std::vector<uint32_t>{1, 2, 3, 4}));
  const MemoryStats after = device().memory_stats();
  EXPECT_EQ(after.pending_release_bytes, before.pending_release_bytes);
  EXPECT_EQ(after.live_buffers, before.live_buffers + 1);
}

TEST_F(Lifetimes, BufferDestroyedAfterDispatchRecordedBeforeSubmit) {
  const uint32_t rows = 40, cols = 24;
  auto input = random_floats(rows * cols, 2);
  auto dst = device().create_buffer<float>(rows * cols);
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  auto enc = device().begin_commands();
  const uint64_t live = device().memory_stats().live_buffers;
  {
    auto src = device().create_buffer(input);
    auto group = device().create_bind_group(kernel, {src, dst});
    enc.begin_compute_pass().dispatch(kernel, group, TransposePush{rows, cols}, transpose_grid(rows, cols));
    enc.copy_buffer(src, 0, src, 0, 0);  // an empty copy records nothing
  }
  EXPECT_EQ(device().memory_stats().live_buffers, live + 1) << "the encoder keeps the source alive";
  device().submit(enc);
  auto out = dst.read();
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], input[r * cols + c]);
  device().wait_idle();
  EXPECT_EQ(device().memory_stats().live_buffers, live) << "released once the submission finished";
}

TEST_F(Lifetimes, CopySourceAndIndirectArgumentsDestroyedBeforeSubmit) {
  auto dst = device().create_buffer(std::vector<uint32_t>(8, kSentinel));
  auto enc = device().begin_commands();
  {
    auto src = device().create_buffer(std::vector<uint32_t>{9, 8, 7, 6});
    enc.copy_buffer(src, 0, dst, 4, 16);
  }
  device().submit(enc);
  EXPECT_EQ(dst.read(), (std::vector<uint32_t>{kSentinel, 9, 8, 7, 6, kSentinel, kSentinel, kSentinel}));
}

TEST_F(Lifetimes, BindGroupAndKernelDestroyedAfterDispatchBeforeSubmit) {
  auto data = device().create_buffer(std::vector<uint32_t>(128, kSentinel));
  auto enc = device().begin_commands();
  {
    auto kernel = device().create_compute_kernel(shaders::test_fill::source());
    auto group = device().create_bind_group(kernel, {data});
    enc.begin_compute_pass().dispatch(kernel, group, FillPush{100, 3, 2}, {2, 1, 1});
  }
  device().submit(enc);
  auto out = data.read();
  for (uint32_t i = 0; i < 100; ++i) ASSERT_EQ(out[i], 3 + 2 * i) << i;
  for (uint32_t i = 100; i < 128; ++i) ASSERT_EQ(out[i], kSentinel) << i;
}

TEST_F(Lifetimes, FamilyAndItsInputsDestroyedAfterEncodeBeforeSubmit) {
  // Split k: the family's own scratch buffer is bound too, and goes with the family.
  const kernels::GemmProblem problem{.m = 128, .n = 96, .k = 512};
  auto c = device().create_buffer(std::vector<float>(problem.m * problem.n, -1.0f));
  auto enc = device().begin_commands();
  std::string variant;
  {
    auto a = device().create_buffer(std::vector<float>(problem.m * problem.k, 1.0f));
    auto b = device().create_buffer(std::vector<float>(problem.k * problem.n, 2.0f));
    kernels::Gemm gemm(device(), DataType::float32);
    variant = gemm.variant(problem);
    gemm.encode(enc, problem, a, b, c);
    gemm.encode(enc, problem, a, b, c);  // two calls share the encoder
  }
  device().submit(enc);
  for (float v : c.read()) ASSERT_EQ(v, 1024.0f) << variant;
}

TEST_F(Lifetimes, GroupWhoseBufferWasDestroyedIsRefusedAndDoesNotPinIt) {
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  const uint64_t live = device().memory_stats().live_buffers;
  BindGroup group;
  {
    auto data = device().create_buffer<uint32_t>(64);
    group = device().create_bind_group(kernel, {data});
  }
  device().wait_idle();
  EXPECT_EQ(device().memory_stats().live_buffers, live) << "the group kept its buffer alive";
  auto enc = device().begin_commands();
  auto pass = enc.begin_compute_pass();
  try {
    pass.dispatch(kernel, group, FillPush{64, 1, 1}, {1, 1, 1});
    FAIL() << "a group whose buffer is gone was dispatched";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.operation(), "dispatch");
    EXPECT_NE(std::string(e.what()).find("destroyed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(enc.dispatch_count(), 0u);
}

TEST_F(Lifetimes, ReportedWorkgroupMemoryIsTheDriversFigureOrTheDeclaredSize) {
  auto kernel = device().create_compute_kernel(shaders::test_subgroup_sum::source());
  ASSERT_GT(kernel.reflection().workgroup_memory_bytes, 0u);
  if (kernel.statistics().empty()) {
    EXPECT_EQ(kernel.reported_workgroup_memory_bytes(), kernel.reflection().workgroup_memory_bytes);
  } else {
    EXPECT_GE(kernel.reported_workgroup_memory_bytes(), 1u);
  }
}

// ---- misuse ----

TEST_F(Lifetimes, ObjectsOfOneDeviceAreRefusedByAnother) {
  std::string why;
  auto other = open_test_device(&why);
  ASSERT_TRUE(other);
  {
    auto mine = device().create_buffer<uint32_t>(64);
    auto theirs = other->create_buffer<uint32_t>(64);
    auto kernel = device().create_compute_kernel(shaders::test_fill::source());
    auto their_kernel = other->create_compute_kernel(shaders::test_fill::source());
    EXPECT_THROW(device().create_bind_group(kernel, {theirs}), UsageError);
    EXPECT_THROW(device().create_bind_group(their_kernel, {mine}), UsageError);
    auto group = device().create_bind_group(kernel, {mine});
    auto their_group = other->create_bind_group(their_kernel, {theirs});
    auto enc = device().begin_commands();
    auto pass = enc.begin_compute_pass();
    EXPECT_THROW(pass.dispatch(their_kernel, their_group, FillPush{64, 1, 1}, {1, 1, 1}), UsageError);
    const FillPush push{64, 1, 1};
    EXPECT_THROW(pass.dispatch_indirect(kernel, group, std::as_bytes(std::span(&push, 1)), theirs, 0), UsageError);
    EXPECT_THROW(enc.copy_buffer(mine, 0, theirs, 0, 16), UsageError);
    EXPECT_THROW(enc.copy_buffer(theirs, 0, mine, 0, 16), UsageError);
    EXPECT_EQ(enc.dispatch_count(), 0u);
    auto their_enc = other->begin_commands();
    EXPECT_THROW(device().submit(their_enc), UsageError);
    other->submit(their_enc);
  }
  EXPECT_TRUE(close_and_take_messages(*other).empty());
}

TEST_F(Lifetimes, ClosedDeviceAndSubmittedEncoderRaiseUsageErrors) {
  std::string why;
  auto d = open_test_device(&why);
  ASSERT_TRUE(d);
  auto enc = d->begin_commands();
  d->submit(enc);
  try {
    d->submit(enc);
    FAIL() << "an encoder was submitted twice";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.operation(), "submit");
  }
  EXPECT_THROW(enc.begin_compute_pass(), UsageError);
  EXPECT_THROW(enc.copy_buffer(RawBuffer(), 0, RawBuffer(), 0, 0), UsageError);
  d->close();
  EXPECT_THROW(d->create_buffer<float>(4), UsageError);
  EXPECT_THROW(d->begin_commands(), UsageError);
  EXPECT_THROW(d->wait_idle(), UsageError);
  EXPECT_THROW(d->create_timestamp_set(1), UsageError);
}

TEST_F(Lifetimes, TimestampSetCapacityIsBounded) {
  if (!caps().timestamps) GTEST_SKIP() << "no timestamps";
  EXPECT_THROW(device().create_timestamp_set(0), KernelShapeError);
  EXPECT_THROW(device().create_timestamp_set(UINT32_MAX), KernelShapeError);
  EXPECT_THROW(device().create_timestamp_set(Device::kMaxTimedPasses + 1), KernelShapeError);
}

TEST_F(Lifetimes, ZeroElementReadsCompleteWithoutCopying) {
  auto data = device().create_buffer<uint32_t>(0);
  auto all = data.read_async();
  EXPECT_TRUE(all.get().empty());
  auto bigger = device().create_buffer<uint32_t>(8);
  bigger.read_async(std::span<uint32_t>(), 8).get();
  EXPECT_TRUE(data.read().empty());
}

TEST_F(Lifetimes, CompletionsMayNotBlockOnTheReadbackThreadAndMayThrow) {
  auto data = device().create_buffer(std::vector<uint32_t>{1, 2, 3, 4});
  std::promise<std::string> outcome;
  std::vector<uint32_t> out(4);
  data.read_bytes_async(0, std::as_writable_bytes(std::span(out)), [&](std::exception_ptr) {
    try {
      (void)data.read();
      outcome.set_value("read returned");
    } catch (const UsageError& e) {
      outcome.set_value(e.operation());
    }
  });
  auto f = outcome.get_future();
  EXPECT_EQ(f.get(), "read");
  // A completion that throws is reported and the thread goes on with the next one.
  data.read_bytes_async(0, std::as_writable_bytes(std::span(out)), [](std::exception_ptr) {
    throw std::runtime_error("from a completion");
  });
  EXPECT_EQ(data.read(), (std::vector<uint32_t>{1, 2, 3, 4}));
}

// The last Device handle dropped inside one of its own readback completions: the readback thread
// cannot wait for itself, so the device is released once the completion has returned, after the
// readbacks queued behind it, which still complete with their data.
TEST(DeviceInItsCompletion, LastHandleDroppedInsideACompletion) {
  std::string why;
  auto opened = open_test_device(&why);
  if (!opened) GTEST_SKIP() << why;
  auto device = std::make_shared<std::optional<Device>>(std::move(*opened));
  opened.reset();
  const std::vector<uint32_t> values = random_words(64, 3);
  auto data = std::make_shared<std::optional<Buffer<uint32_t>>>((*device)->create_buffer(values));
  std::promise<void> queued;
  std::shared_future<void> both_queued = queued.get_future().share();
  std::promise<std::string> first, second;
  std::vector<uint32_t> out1(64), out2(64);
  (*data)->read_bytes_async(0, std::as_writable_bytes(std::span(out1)),
                            [device, data, both_queued, &first](std::exception_ptr e) {
                              both_queued.wait();
                              data->reset();
                              device->reset();  // the last handle: closes the device from here
                              first.set_value(e ? "error" : "done");
                            });
  (*data)->read_bytes_async(0, std::as_writable_bytes(std::span(out2)), [&second](std::exception_ptr e) {
    second.set_value(e ? "error" : "done");
  });
  device.reset();
  data.reset();
  queued.set_value();
  EXPECT_EQ(first.get_future().get(), "done");
  EXPECT_EQ(second.get_future().get(), "done");  // queued behind the close: still delivered
  EXPECT_EQ(out1, values);
  EXPECT_EQ(out2, values);
}

// close() called from a completion closes the device the same way: the handle reads closed at once,
// new reads are refused, and the readbacks queued before it complete.
TEST(DeviceInItsCompletion, CloseInsideACompletion) {
  std::string why;
  auto device = open_test_device(&why);
  if (!device) GTEST_SKIP() << why;
  const std::vector<uint32_t> values = random_words(16, 4);
  auto data = device->create_buffer(values);
  std::promise<void> queued;
  std::shared_future<void> both_queued = queued.get_future().share();
  std::promise<std::string> closing, after;
  std::vector<uint32_t> out1(16), out2(16);
  data.read_bytes_async(0, std::as_writable_bytes(std::span(out1)), [&](std::exception_ptr) {
    both_queued.wait();
    device->close();
    std::vector<uint32_t> more(16);
    try {
      data.read_bytes_async(0, std::as_writable_bytes(std::span(more)), [](std::exception_ptr) {});
      closing.set_value(device->closed() ? "closed, read accepted" : "open");
    } catch (const UsageError& e) {
      closing.set_value(device->closed() ? "closed, " + e.operation() + " refused" : "open");
    }
  });
  data.read_bytes_async(0, std::as_writable_bytes(std::span(out2)), [&](std::exception_ptr e) {
    after.set_value(e ? "error" : "done");
  });
  queued.set_value();
  EXPECT_EQ(closing.get_future().get(), "closed, read refused");
  EXPECT_EQ(after.get_future().get(), "done");
  EXPECT_EQ(out1, values);
  EXPECT_EQ(out2, values);
  EXPECT_THROW(data.read_bytes_async(0, std::as_writable_bytes(std::span(out1)), [](std::exception_ptr) {}),
               UsageError);
  data = Buffer<uint32_t>();
  device.reset();  // the handle of a device closed from its readback thread
}

TEST_F(Lifetimes, ManySubmissionsKeepABoundedNumberOfCommandPools) {
  auto data = device().create_buffer(std::vector<uint32_t>(64, 0));
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  for (int i = 0; i < 10000; ++i) {
    auto enc = device().begin_commands();
    if (i % 100 == 0) enc.begin_compute_pass().dispatch(kernel, group, FillPush{64, uint32_t(i), 1}, {1, 1, 1});
    device().submit(enc);
  }
  device().wait_idle();
  EXPECT_LE(device().memory_stats().command_pools, 64u);
  EXPECT_EQ(data.read()[0], 9900u);
}

TEST(Validation, TheOptionForcesTheLayerOffWhateverTheEnvironmentSays) {
  if (enumerate_adapters().empty()) GTEST_SKIP() << "no adapter";
  setenv("ONEGPU_VALIDATION", "1", 1);
  Device off = Device::create({.validation = false});
  EXPECT_FALSE(off.validation_enabled());
  std::optional<Device> from_env;
  try {
    from_env = Device::create();
  } catch (const UnsupportedError&) {
    // the layer is not installed: the environment asked for it and it is missing
  }
  unsetenv("ONEGPU_VALIDATION");
  if (from_env) {
    EXPECT_TRUE(from_env->validation_enabled());
  }
  Device plain = Device::create();
  EXPECT_FALSE(plain.validation_enabled());
}

// ---- failed submissions ----

class Failures : public DeviceTest {
 protected:
  void TearDown() override {
    vulkan::clear_injected_failures();
    DeviceTest::TearDown();
  }
};

TEST_F(Failures, LostDeviceAtSubmitIsRaisedByEveryLaterSubmitWaitAndRead) {
  auto data = device().create_buffer(std::vector<uint32_t>(64, kSentinel));
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(kernel, group, FillPush{64, 1, 1}, {1, 1, 1});
  vulkan::inject_failure("vkQueueSubmit", VK_ERROR_DEVICE_LOST);
  try {
    device().submit(enc);
    FAIL() << "the failed submission was not reported";
  } catch (const CommandFailedError& e) {
    EXPECT_EQ(e.failure(), CommandFailedError::Failure::device_lost);
    EXPECT_EQ(e.operation(), "vkQueueSubmit");
    EXPECT_NE(std::string(e.what()).find("device_lost"), std::string::npos) << e.what();
  }
  EXPECT_THROW(device().wait_idle(), CommandFailedError);
  EXPECT_THROW(data.read(), CommandFailedError);
  EXPECT_THROW((void)data.read_async(), CommandFailedError);
  auto later = device().begin_commands();
  EXPECT_THROW(device().submit(later), CommandFailedError);
}

TEST_F(Failures, LostDeviceWhileWaitingReachesReadbacksAndLaterSubmits) {
  auto data = device().create_buffer(std::vector<uint32_t>(16, 7));
  vulkan::inject_failure("vkWaitSemaphores", VK_ERROR_DEVICE_LOST);
  try {
    (void)data.read();
    FAIL() << "the failed wait was not reported";
  } catch (const CommandFailedError& e) {
    EXPECT_EQ(e.failure(), CommandFailedError::Failure::device_lost);
    EXPECT_EQ(e.operation(), "vkWaitSemaphores");
  }
  auto enc = device().begin_commands();
  EXPECT_THROW(device().submit(enc), CommandFailedError);
  EXPECT_THROW(device().wait_idle(), CommandFailedError);
}

TEST_F(Failures, OutOfMemoryAtSubmitSaysSo) {
  auto enc = device().begin_commands();
  vulkan::inject_failure("vkQueueSubmit", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  try {
    device().submit(enc);
    FAIL() << "the failed submission was not reported";
  } catch (const CommandFailedError& e) {
    EXPECT_EQ(e.failure(), CommandFailedError::Failure::out_of_memory);
  }
  EXPECT_THROW(device().wait_idle(), CommandFailedError);
}

TEST_F(Failures, ACreationThatFailsHalfwayLeaksNothing) {
  // Each failure comes after other handles were made; the validation layer reports any left over
  // when the fixture closes the device.
  vulkan::inject_failure("vkCreateComputePipelines", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_THROW(device().create_compute_kernel(shaders::test_fill::source()), OutOfMemoryError);
  vulkan::inject_failure("vkCreatePipelineLayout", VK_ERROR_INITIALIZATION_FAILED);
  EXPECT_THROW(device().create_compute_kernel(shaders::test_fill::source()), CommandError);
  vulkan::inject_failure("vkBindBufferMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_THROW(device().create_buffer<float>(1024), OutOfMemoryError);
  auto data = device().create_buffer(std::vector<uint32_t>{1, 2, 3});  // takes the one command pool
  vulkan::inject_failure("vkAllocateCommandBuffers", VK_ERROR_OUT_OF_HOST_MEMORY);
  EXPECT_THROW(data.read(), OutOfMemoryError);  // the readback's command pool
  EXPECT_EQ(data.read(), (std::vector<uint32_t>{1, 2, 3}));
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  EXPECT_EQ(device().memory_stats().live_buffers, 1u);
}

// ---- long submissions ----

// 2 * rounds dependent transposes of a 37 x 53 matrix, reporting `work` per pass.
std::vector<float> transpose_chain(Device& device, int rounds, uint64_t work, bool split_every_pass,
                                   uint32_t* submissions) {
  const uint32_t rows = 37, cols = 53;
  auto a = device.create_buffer(random_floats(rows * cols, 4));
  auto b = device.create_buffer<float>(rows * cols);
  auto kernel = device.create_compute_kernel(shaders::test_transpose::source());
  auto ab = device.create_bind_group(kernel, {a, b});
  auto ba = device.create_bind_group(kernel, {b, a});
  auto enc = device.begin_commands();
  for (int i = 0; i < rounds; ++i) {
    enc.begin_compute_pass().dispatch(kernel, ab, TransposePush{rows, cols}, transpose_grid(rows, cols));
    enc.report_work(work);
    if (split_every_pass) enc.split_submission();
    enc.begin_compute_pass().dispatch(kernel, ba, TransposePush{cols, rows}, transpose_grid(cols, rows));
    enc.report_work(work);
    enc.copy_buffer(a, 0, b, 0, 4 * rows);  // one copy inside the chain; b is rewritten next
  }
  *submissions = enc.submission_count();
  device.submit(enc);
  return a.read();
}

TEST_F(Lifetimes, WithoutABudgetReportedWorkOnlyCounts) {
  EXPECT_EQ(caps().submission_work_budget, 0u);
  uint32_t submissions = 0;
  transpose_chain(device(), 5, 1ull << 40, false, &submissions);
  EXPECT_EQ(submissions, 1u);
}

TEST_F(Lifetimes, TimedPassesAcrossASplitKeepTheirSlots) {
  if (!caps().timestamps) GTEST_SKIP() << "no timestamps";
  auto data = device().create_buffer<uint32_t>(4096);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  auto timing = device().create_timestamp_set(4);
  auto enc = device().begin_commands();
  enc.begin_pass_timing(timing);
  for (uint32_t i = 0; i < 4; ++i) {
    enc.begin_compute_pass().dispatch(kernel, group, FillPush{4096, i, 1}, {64, 1, 1});
    enc.split_submission();
  }
  EXPECT_EQ(enc.submission_count(), 4u);
  device().submit(enc);
  auto durations = timing.wait_pass_durations();
  EXPECT_EQ(durations.size(), 4u);
  EXPECT_EQ(data.read()[4095], 3u + 4095u);
}

TEST(LongSubmissions, ASmallBudgetSplitsWorkWithoutChangingResults) {
  std::string why;
  auto whole = open_test_device(&why);
  if (!whole) GTEST_SKIP() << why;
  auto split = open_test_device(&why, {.submission_work_budget = 10});
  uint32_t one = 0, many = 0, forced = 0;
  auto expected = transpose_chain(*whole, 7, 6, false, &one);
  auto got = transpose_chain(*split, 7, 6, false, &many);
  auto got_forced = transpose_chain(*whole, 7, 0, true, &forced);
  EXPECT_EQ(one, 1u);
  EXPECT_EQ(many, 8u) << "a new command buffer at each copy, once 12 operations passed the budget of 10";
  EXPECT_EQ(forced, 8u) << "split_submission() splits at the next pass";
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got_forced, expected);
  EXPECT_TRUE(close_and_take_messages(*whole).empty());
  EXPECT_TRUE(close_and_take_messages(*split).empty());
}

}  // namespace
}  // namespace onegpu::testing
