// The WebGPU backend's device layer on Dawn: buffers, readback, kernels from WGSL, the
// push-constant ring, pass ordering, copies, indirect dispatch, errors and leaks.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/device_access.h"
#include "test_add_one.h"
#include "test_add_one_spirv13.h"
#include "webgpu/objects.h"
#include "webgpu/webgpu_fixture.h"

namespace onegpu::testing {
namespace {

constexpr uint32_t kSentinel = 0xA5A5F00Du;

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// y[i] = x[i] * a + b (wrapping u32 arithmetic: exact on the host) for i < n.
const char* kAffine = R"(
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
struct Push { a: u32, b: u32, n: u32 }
@group(1) @binding(0) var<uniform> push: Push;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < push.n) { y[id.x] = x[id.x] * push.a + push.b; }
}
)";
struct AffinePush {
  uint32_t a, b, n;
};
struct SlotPush {
  uint32_t index, value;
};

// data[i] = data[i] * 2 + 1 in place: a chain of these is exact only if each pass sees the last.
const char* kStep = R"(
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
struct Push { n: u32 }
@group(1) @binding(0) var<uniform> push: Push;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < push.n) { data[id.x] = data[id.x] * 2u + 1u; }
}
)";

TEST(WebGpuAdapters, ListedWithTheSpecCapabilities) {
  std::vector<AdapterInfo> adapters = enumerate_adapters(Backend::webgpu);
  if (adapters.empty()) {
    const NoAdapter none = no_webgpu_adapter();
    if (none.fail) FAIL() << "ONEGPU_REQUIRE_DEVICE=1 but " << none.why;
    GTEST_SKIP() << none.why;
  }
  const AdapterInfo& a = adapters[0];
  EXPECT_EQ(a.backend, Backend::webgpu);
  EXPECT_FALSE(a.name.empty());
  const ComputeCapabilities& c = a.compute;
  EXPECT_FALSE(c.features.has(ShaderFeature::int8));
  EXPECT_FALSE(c.features.has(ShaderFeature::storage_buffer_8bit));
  EXPECT_FALSE(c.features.has(ShaderFeature::bfloat16));
  EXPECT_FALSE(c.features.has(ShaderFeature::cooperative_matrix));
  EXPECT_FALSE(c.features.has(ShaderFeature::subgroup_clustered));
  EXPECT_FALSE(c.subgroup_size_control);
  EXPECT_TRUE(c.cooperative_matrix_shapes.empty());
  EXPECT_EQ(c.timestamp_period_ns, c.timestamps ? 1.0 : 0.0);  // WebGPU timestamps are nanoseconds
  EXPECT_EQ(c.max_push_constants_bytes, 256u);
  EXPECT_FALSE(c.aliased_writable_bindings);
  EXPECT_GE(c.max_workgroup_invocations, 256u);
  EXPECT_GE(c.max_storage_buffer_range, 128u << 20);
  if (c.features.has(ShaderFeature::subgroup_basic)) {
    EXPECT_GT(c.min_subgroup_size, 0u);
    EXPECT_LE(c.min_subgroup_size, c.max_subgroup_size);
    EXPECT_EQ(c.full_subgroups, c.min_subgroup_size == c.max_subgroup_size);
  }
}

using WebGpuDevice = WebGpuTest;

TEST_F(WebGpuDevice, OpensTheWebGpuBackend) {
  EXPECT_EQ(device().adapter().backend, Backend::webgpu);
  EXPECT_TRUE(device().validation_enabled());
  const MemoryStats stats = device().memory_stats();  // WebGPU keeps no tally
  EXPECT_EQ(stats.live_buffers, 0u);
  EXPECT_EQ(stats.block_bytes, 0u);
}

TEST_F(WebGpuDevice, BufferRoundTripsKeepTheirNeighbours) {
  const std::vector<uint32_t> data = random_words(1000, 1);
  Buffer<uint32_t> b = device().create_buffer<uint32_t>(1002);
  std::vector<uint32_t> init(1002, kSentinel);
  b.write(init);
  b.write(data, 1);
  std::vector<uint32_t> out = b.read();
  EXPECT_EQ(out.front(), kSentinel);
  EXPECT_EQ(out.back(), kSentinel);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), out.begin() + 1));

  // Byte-granular writes and reads (WebGPU moves whole words: the edges are merged).
  const std::byte odd[5] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}, std::byte{5}};
  b.write_bytes(4 * 10 + 3, odd);
  std::byte back[11];
  b.read_bytes(4 * 10, back);
  std::vector<std::byte> want(11);
  std::memcpy(want.data(), &data[9], 3);
  std::memcpy(want.data() + 3, odd, 5);
  std::memcpy(want.data() + 8, reinterpret_cast<const std::byte*>(&data[10]) + 4, 3);
  EXPECT_EQ(std::memcmp(back, want.data(), 11), 0);
}

TEST_F(WebGpuDevice, ReadAsyncCompletesOffTheCallingThread) {
  const std::vector<uint32_t> data = random_words(4096, 2);
  Buffer<uint32_t> b = device().create_buffer(data);
  std::vector<uint32_t> out(4096, 0);
  std::atomic<bool> done{false};
  std::thread::id completed_on;
  b.read_bytes_async(0, std::as_writable_bytes(std::span(out)), [&](std::exception_ptr e) {
    EXPECT_FALSE(e);
    completed_on = std::this_thread::get_id();
    done = true;
  });
  for (int i = 0; i < 200000 && !done; ++i) std::this_thread::sleep_for(std::chrono::microseconds(50));
  ASSERT_TRUE(done);
  EXPECT_NE(completed_on, std::this_thread::get_id());
  EXPECT_EQ(out, data);
  // The future form.
  std::vector<uint32_t> again = b.read_async().get();
  EXPECT_EQ(again, data);
}

TEST_F(WebGpuDevice, KernelFromWgslMatchesTheHostAndRepeatsBitForBit) {
  ComputeKernel k = device().create_compute_kernel(wgsl_kernel("affine", kAffine, {true, false}, 12));
  constexpr uint32_t n = 1000;
  const std::vector<uint32_t> x = random_words(n, 3);
  Buffer<uint32_t> in = device().create_buffer(x);
  // y binds words [64, 64 + n) of a larger buffer: the rest must keep its sentinels.
  Buffer<uint32_t> y = device().create_buffer<uint32_t>(64 + n + 64);
  const AffinePush push{2654435761u, 12345u, n};
  std::vector<std::vector<uint32_t>> runs;
  for (int run = 0; run < 2; ++run) {
    y.write(std::vector<uint32_t>(64 + n + 64, kSentinel));
    BindGroup g = device().create_bind_group(k, std::vector<BufferBinding>{in, {y, 256, 4 * n}});
    CommandEncoder e = device().begin_commands();
    e.begin_compute_pass().dispatch(k, g, push, Grid{(n + 63) / 64, 1, 1});
    device().submit(e);
    runs.push_back(y.read());
  }
  const std::vector<uint32_t>& out = runs[0];
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(out[i], kSentinel) << i;
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[64 + i], x[i] * push.a + push.b) << i;
  for (uint32_t i = 64 + n; i < out.size(); ++i) ASSERT_EQ(out[i], kSentinel) << i;
  EXPECT_EQ(runs[0], runs[1]);
}

TEST_F(WebGpuDevice, SpirvKernelsRunWhereDawnReadsThem) {
  // SPIR-V newer than 1.3 (what the library's own kernels are) is refused before Dawn sees it.
  try {
    device().create_compute_kernel(shaders::test_add_one::source());
    ADD_FAILURE() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "spirv_version");
  }
  // The Vulkan tests' add_one compiled for Vulkan 1.1 (no push constants): data[i] += 1 for
  // i < the count in word 0.
  std::optional<ComputeKernel> k;
  try {
    k = device().create_compute_kernel(shaders::test_add_one_spirv13::source());
  } catch (const KernelShapeError& e) {
    GTEST_SKIP() << "this Dawn does not read SPIR-V: " << e.what();
  }
  std::vector<uint32_t> init = random_words(257, 8);
  init[0] = 200;
  Buffer<uint32_t> data = device().create_buffer(init);
  BindGroup g = device().create_bind_group(*k, std::vector<BufferBinding>{data});
  CommandEncoder e = device().begin_commands();
  e.begin_compute_pass().dispatch(*k, g, std::span<const std::byte>(), Grid{4, 1, 1});
  device().submit(e);
  std::vector<uint32_t> want = init;
  for (uint32_t i = 0; i < 200; ++i) want[1 + i] += 1;
  EXPECT_EQ(data.read(), want);
}

TEST_F(WebGpuDevice, PushConstantRingGivesEveryDispatchItsOwnValues) {
  // Each dispatch writes one word from its own push constants; more dispatches than one ring
  // block holds, over two encoders submitted back to back (the blocks are reused).
  const char* wgsl = R"(
@group(0) @binding(0) var<storage, read_write> slots: array<u32>;
struct Push { index: u32, value: u32 }
@group(1) @binding(0) var<uniform> push: Push;
@compute @workgroup_size(1) fn main() { slots[push.index] = push.value; }
)";
  ComputeKernel k = device().create_compute_kernel(wgsl_kernel("ring", wgsl, {false}, 8, {1, 1, 1}));
  constexpr uint32_t per_encoder = 1500;
  Buffer<uint32_t> out = device().create_buffer<uint32_t>(2 * per_encoder);
  out.write(std::vector<uint32_t>(2 * per_encoder, kSentinel));
  BindGroup g = device().create_bind_group(k, std::vector<BufferBinding>{out});
  const std::vector<uint32_t> values = random_words(2 * per_encoder, 4);
  for (uint32_t e = 0; e < 2; ++e) {
    CommandEncoder enc = device().begin_commands();
    ComputePass pass = enc.begin_compute_pass();
    for (uint32_t i = e * per_encoder; i < (e + 1) * per_encoder; ++i) {
      const SlotPush push{i, values[i]};
      pass.dispatch(k, g, push, Grid{1, 1, 1});
    }
    device().submit(enc);
  }
  EXPECT_EQ(out.read(), values);
}

TEST_F(WebGpuDevice, PassesAndSubmissionsRunInOrder) {
  ComputeKernel step = device().create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4));
  constexpr uint32_t n = 777;
  const std::vector<uint32_t> init = random_words(n, 5);
  Buffer<uint32_t> data = device().create_buffer(init);
  BindGroup g = device().create_bind_group(step, std::vector<BufferBinding>{data});
  const uint32_t push = n;
  // 12 passes in one encoder, split into two submissions, then 5 in one pass and one more
  // encoder: every step must see the one before.
  CommandEncoder e = device().begin_commands();
  for (int i = 0; i < 12; ++i) {
    e.begin_compute_pass().dispatch(step, g, push, Grid{(n + 63) / 64, 1, 1});
    if (i == 5) e.split_submission();
  }
  EXPECT_EQ(e.submission_count(), 2u);
  device().submit(e);
  CommandEncoder e2 = device().begin_commands();
  ComputePass p = e2.begin_compute_pass();
  for (int i = 0; i < 5; ++i) p.dispatch(step, g, push, Grid{(n + 63) / 64, 1, 1});
  device().submit(e2);
  std::vector<uint32_t> want = init;
  for (auto& v : want)
    for (int i = 0; i < 17; ++i) v = v * 2 + 1;
  EXPECT_EQ(data.read(), want);
}

TEST_F(WebGpuDevice, CopiesBetweenPassesSeeTheirWrites) {
  ComputeKernel step = device().create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4));
  constexpr uint32_t n = 512;
  const std::vector<uint32_t> init = random_words(n, 6);
  Buffer<uint32_t> a = device().create_buffer(init);
  Buffer<uint32_t> b = device().create_buffer<uint32_t>(n + 8);
  b.write(std::vector<uint32_t>(n + 8, kSentinel));
  BindGroup ga = device().create_bind_group(step, std::vector<BufferBinding>{a});
  BindGroup gb = device().create_bind_group(step, std::vector<BufferBinding>{{b, 0, 4 * n}});
  const uint32_t push = n;
  CommandEncoder e = device().begin_commands();
  e.begin_compute_pass().dispatch(step, ga, push, Grid{n / 64, 1, 1});
  e.copy_buffer(a, 0, b, 16, 4 * (n - 4));  // b[4 .. n) = a'[0 .. n-4)
  e.begin_compute_pass().dispatch(step, gb, push, Grid{n / 64, 1, 1});
  device().submit(e);
  std::vector<uint32_t> out = b.read();
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(out[i], kSentinel * 2 + 1) << i;
  for (uint32_t i = 4; i < n; ++i) ASSERT_EQ(out[i], (init[i - 4] * 2 + 1) * 2 + 1) << i;
  for (uint32_t i = n; i < n + 8; ++i) EXPECT_EQ(out[i], kSentinel) << i;
}

TEST_F(WebGpuDevice, IndirectDispatchReadsArgumentsAnEarlierPassWrote) {
  // Pass 1 writes the grid (5, 1, 1) at word 4 of `args`; pass 2 dispatches from it and each
  // workgroup marks its slot.
  const char* make_args = R"(
@group(0) @binding(0) var<storage, read_write> args: array<u32>;
@compute @workgroup_size(1) fn main() { args[4] = 5u; args[5] = 1u; args[6] = 1u; }
)";
  const char* mark = R"(
@group(0) @binding(0) var<storage, read_write> marks: array<u32>;
struct Push { value: u32 }
@group(1) @binding(0) var<uniform> push: Push;
@compute @workgroup_size(1) fn main(@builtin(workgroup_id) wg: vec3u) { marks[wg.x] = push.value + wg.x; }
)";
  ComputeKernel k_args = device().create_compute_kernel(wgsl_kernel("make_args", make_args, {false}, 0, {1, 1, 1}));
  ComputeKernel k_mark = device().create_compute_kernel(wgsl_kernel("mark", mark, {false}, 4, {1, 1, 1}));
  Buffer<uint32_t> args = device().create_buffer(std::vector<uint32_t>(8, 0));
  Buffer<uint32_t> marks = device().create_buffer(std::vector<uint32_t>(16, kSentinel));
  BindGroup ga = device().create_bind_group(k_args, std::vector<BufferBinding>{args});
  BindGroup gm = device().create_bind_group(k_mark, std::vector<BufferBinding>{marks});
  CommandEncoder e = device().begin_commands();
  e.begin_compute_pass().dispatch(k_args, ga, std::span<const std::byte>(), Grid{1, 1, 1});
  const uint32_t value = 1000;
  e.begin_compute_pass().dispatch_indirect(k_mark, gm, std::as_bytes(std::span(&value, 1)), args, 16);
  device().submit(e);
  std::vector<uint32_t> out = marks.read();
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(out[i], i < 5 ? value + i : kSentinel) << i;
}

TEST_F(WebGpuDevice, PassTimingsAreOrderedAndNonZero) {
  if (!caps().timestamps) GTEST_SKIP() << "no timestamp-query on this adapter";
  ComputeKernel step = device().create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4));
  constexpr uint32_t n = 1 << 16;
  Buffer<uint32_t> data = device().create_buffer(random_words(n, 9));
  BindGroup g = device().create_bind_group(step, std::vector<BufferBinding>{data});
  TimestampSet set = device().create_timestamp_set(4);
  EXPECT_FALSE(set.try_read().has_value());  // nothing submitted yet
  CommandEncoder e = device().begin_commands();
  e.begin_pass_timing(set);
  for (int pass = 0; pass < 3; ++pass) {
    ComputePass p = e.begin_compute_pass();
    for (int i = 0; i < 4; ++i) p.dispatch(step, g, n, Grid{n / 64, 1, 1});
  }
  device().submit(e);
  const std::vector<uint64_t> durations = set.wait_pass_durations();
  ASSERT_EQ(durations.size(), 3u);
  std::optional<std::vector<uint64_t>> slots = set.try_read();
  ASSERT_TRUE(slots.has_value());
  ASSERT_EQ(slots->size(), 6u);
  for (size_t i = 1; i < slots->size(); ++i) EXPECT_LE((*slots)[i - 1], (*slots)[i]) << i;
  for (uint64_t d : durations) EXPECT_GT(d, 0u);
  RecordProperty("pass_ns", std::to_string(durations[0]) + " " + std::to_string(durations[1]) + " " +
                                std::to_string(durations[2]));
}

TEST_F(WebGpuDevice, ErrorsAreTheTypedExceptions) {
  // WGSL Dawn refuses: KernelShapeError naming the shader, with Dawn's message.
  try {
    device().create_compute_kernel(wgsl_kernel("broken", "@compute fn main() { let x: u32 = ; }", {}, 0));
    ADD_FAILURE() << "no exception";
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "create_compute_kernel");
    EXPECT_EQ(e.argument(), "shader");
  }
  // What WebGPU has not yet: UnsupportedError (the texture capabilities are all false here).
  EXPECT_THROW(device().create_texture(TextureDescriptor{.width = 4, .height = 4}), UnsupportedError);
  ComputeKernel step = device().create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4));
  // A pinned subgroup size WebGPU cannot promise.
  KernelOptions pinned{.required_subgroup_size = caps().max_subgroup_size * 2 + 1};
  EXPECT_THROW(device().create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4), {}, pinned), UnsupportedError);
  // The public layer's checks hold on this backend too.
  Buffer<uint32_t> b = device().create_buffer<uint32_t>(4);
  BindGroup g = device().create_bind_group(step, std::vector<BufferBinding>{b});
  CommandEncoder e = device().begin_commands();
  const uint64_t wrong = 0;
  EXPECT_THROW(e.begin_compute_pass().dispatch(step, g, wrong, Grid{1, 1, 1}), KernelShapeError);
}

TEST_F(WebGpuDevice, UncapturedErrorsBecomeDeviceMessages) {
  auto& backend = dynamic_cast<webgpu::WebGpuDevice&>(DeviceAccess::backend(device()));
  backend.inject_validation_error("injected by the test");
  std::vector<std::string> messages = device().take_validation_messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("uncaptured validation error"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("injected by the test"), std::string::npos) << messages[0];
}

TEST_F(WebGpuDevice, AnObjectAliveAtDestructionIsReportedAsALeak) {
  std::optional<Buffer<uint32_t>> kept = device().create_buffer<uint32_t>(16);
  std::vector<std::string> messages = close_device();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("still alive"), std::string::npos) << messages[0];
  kept.reset();  // releasing after the device is gone is harmless
}

TEST_F(WebGpuDevice, AClosedDeviceRefusesWork) {
  Buffer<uint32_t> b = device().create_buffer<uint32_t>(4);
  b = {};
  device().close();
  device().close();  // idempotent
  EXPECT_TRUE(device().closed());
  EXPECT_THROW(device().create_buffer<uint32_t>(4), UsageError);
  EXPECT_THROW(device().begin_commands(), UsageError);
}

// A completion that throws is reported on stderr and the readback thread goes on with the next one.
TEST_F(WebGpuDevice, ACompletionThatThrowsDoesNotStopTheThread) {
  const std::vector<uint32_t> data = random_words(64, 5);
  Buffer<uint32_t> b = device().create_buffer(data);
  std::vector<uint32_t> out(64);
  b.read_bytes_async(0, std::as_writable_bytes(std::span(out)),
                     [](std::exception_ptr) { throw std::runtime_error("from a completion"); });
  EXPECT_EQ(b.read(), data);
  EXPECT_EQ(out, data);
}

// close() called, or the last handle dropped, inside one of the device's own readback completions:
// the readback thread cannot wait for itself, so the device is released once the completion has
// returned, after the readbacks queued behind it, which still complete with their data; a read
// started after the close is refused.
TEST(WebGpuInItsCompletion, CloseOrLastHandleInsideACompletion) {
  if (enumerate_adapters(Backend::webgpu).empty()) {
    const NoAdapter none = no_webgpu_adapter();
    if (none.fail) FAIL() << "ONEGPU_REQUIRE_DEVICE=1 but " << none.why;
    GTEST_SKIP() << none.why;
  }
  for (const bool drop_last_handle : {false, true}) {
    SCOPED_TRACE(drop_last_handle ? "last handle dropped" : "close()");
    auto device = std::make_shared<std::optional<Device>>(Device::create({.backend = Backend::webgpu}));
    const std::vector<uint32_t> values = random_words(64, 6);
    auto data = std::make_shared<std::optional<Buffer<uint32_t>>>((*device)->create_buffer(values));
    std::promise<void> queued;
    std::shared_future<void> both_queued = queued.get_future().share();
    std::promise<std::string> first, second;
    std::vector<uint32_t> out1(64), out2(64);
    (*data)->read_bytes_async(
        0, std::as_writable_bytes(std::span(out1)),
        [device, data, both_queued, drop_last_handle, &first](std::exception_ptr e) {
          both_queued.wait();
          std::string what = e ? "error" : "done";
          if (drop_last_handle) {
            data->reset();
            device->reset();  // the last handles: closes the device from here
          } else {
            (*device)->close();
            std::vector<uint32_t> more(4);
            try {
              (*data)->read_bytes_async(0, std::as_writable_bytes(std::span(more)), [](std::exception_ptr) {});
              what += ", read accepted";
            } catch (const UsageError&) {
              what += ", read refused";
            }
          }
          first.set_value(what);
        });
    (*data)->read_bytes_async(0, std::as_writable_bytes(std::span(out2)),
                              [&second](std::exception_ptr e) { second.set_value(e ? "error" : "done"); });
    if (drop_last_handle) {
      device.reset();
      data.reset();
    }
    queued.set_value();
    EXPECT_EQ(first.get_future().get(), drop_last_handle ? "done" : "done, read refused");
    EXPECT_EQ(second.get_future().get(), "done");  // queued behind the close: still delivered
    EXPECT_EQ(out1, values);
    EXPECT_EQ(out2, values);
  }
}

TEST(WebGpuOnVulkan, AWgslOnlyShaderIsRefusedByTheVulkanBackend) {
  if (enumerate_adapters(Backend::vulkan).empty()) GTEST_SKIP() << "no Vulkan adapter";
  Device d = Device::create({.backend = Backend::vulkan, .validation = false});
  EXPECT_THROW(d.create_compute_kernel(wgsl_kernel("step", kStep, {false}, 4)), UnsupportedError);
}

}  // namespace
}  // namespace onegpu::testing
