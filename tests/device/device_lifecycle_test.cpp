// Devices: creation and destruction, adapter choice, validation messages per device, leaks.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/device_access.h"
#include "support/device_fixture.h"
#include "test_fill.h"
#include "vulkan/objects.h"

namespace onegpu::testing {
namespace {

// Makes the validation layer complain about an object of `device`: a buffer of size 0.
void provoke_validation_error(Device& device) {
  auto& vd = static_cast<vulkan::VulkanDevice&>(DeviceAccess::backend(device));
  vulkan::Context& ctx = vd.context();
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = 0;
  ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (ctx.fn.vkCreateBuffer(ctx.device, &ci, nullptr, &buffer) == VK_SUCCESS && buffer != VK_NULL_HANDLE)
    ctx.fn.vkDestroyBuffer(ctx.device, buffer, nullptr);
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(DeviceLifecycle, TwoDevicesDoNotSeeEachOthersMessages) {
  std::string why;
  auto a = open_test_device(&why);
  if (!a) GTEST_SKIP() << why;
  auto b = open_test_device(&why);
  ASSERT_TRUE(b);
  if (!a->validation_enabled()) GTEST_SKIP() << "the validation layer is not installed";
  provoke_validation_error(*a);
  auto from_a = a->take_validation_messages();
  auto from_b = b->take_validation_messages();
  EXPECT_FALSE(from_a.empty()) << "the layer reported nothing for a zero-sized buffer";
  EXPECT_TRUE(any_contains(from_a, "size"));
  EXPECT_TRUE(from_b.empty()) << join(from_b);
  provoke_validation_error(*b);
  EXPECT_TRUE(a->take_validation_messages().empty());
  EXPECT_FALSE(b->take_validation_messages().empty());
  EXPECT_TRUE(close_and_take_messages(*a).empty());
  EXPECT_TRUE(close_and_take_messages(*b).empty());
}

TEST(DeviceLifecycle, RepeatedMessagesAreAllReported) {
  std::string why;
  auto device = open_test_device(&why);
  if (!device) GTEST_SKIP() << why;
  if (!device->validation_enabled()) GTEST_SKIP() << "the validation layer is not installed";
  for (int i = 0; i < 14; ++i) provoke_validation_error(*device);
  auto messages = device->take_validation_messages();
  EXPECT_GE(messages.size(), 14u) << "the layer's duplicate-message limit is in force";
  EXPECT_TRUE(close_and_take_messages(*device).empty());
}

TEST(DeviceLifecycle, LeakedBufferIsReportedAfterDestroy) {
  std::string why;
  auto device = open_test_device(&why);
  if (!device) GTEST_SKIP() << why;
  if (!device->validation_enabled()) GTEST_SKIP() << "the validation layer is not installed";
  auto other = open_test_device(&why);
  auto kept = device->create_buffer<float>(64);  // still alive when the device goes
  auto released = device->create_buffer<float>(64);
  released = Buffer<float>();
  auto messages = close_and_take_messages(*device);
  EXPECT_TRUE(any_contains(messages, "VkBuffer")) << join(messages);
  EXPECT_TRUE(close_and_take_messages(*other).empty()) << "the other device saw the leak";
  EXPECT_THROW(kept.read(), Error);  // inert, not a crash
}

TEST(DeviceLifecycle, TwoHundredCreateDestroyCycles) {
  std::string why;
  auto first = open_test_device(&why);
  if (!first) GTEST_SKIP() << why;
  EXPECT_TRUE(close_and_take_messages(*first).empty());
  for (int i = 0; i < 200; ++i) {
    auto d = open_test_device(&why);
    ASSERT_TRUE(d) << "cycle " << i;
    auto b = d->create_buffer(std::vector<uint32_t>{uint32_t(i), 2, 3, 4});
    ASSERT_EQ(b.read()[0], uint32_t(i));
    b = Buffer<uint32_t>();
    auto messages = close_and_take_messages(*d);
    ASSERT_TRUE(messages.empty()) << "cycle " << i << ":\n" << join(messages);
  }
}

class Lifecycle : public DeviceTest {};

TEST_F(Lifecycle, EncodersNeverSubmittedDoNotLeak) {
  auto data = device().create_buffer<uint32_t>(64);
  auto kernel = device().create_compute_kernel(shaders::test_fill::source());
  auto group = device().create_bind_group(kernel, {data});
  struct {
    uint32_t count, value, step;
  } push{64, 1, 1};
  {
    auto dropped = device().begin_commands();
    dropped.begin_compute_pass().dispatch(kernel, group, push, {1, 1, 1});
  }
  auto later = device().begin_commands();  // the dropped encoder's pool is reused
  later.begin_compute_pass().dispatch(kernel, group, push, {1, 1, 1});
  device().submit(later);
  EXPECT_EQ(data.read()[63], 64u);
  EXPECT_THROW(device().submit(later), Error);
}

TEST_F(Lifecycle, ClosedDeviceRefusesWork) {
  Device d = Device::create({.validation = device().validation_enabled()});
  d.close();
  EXPECT_TRUE(d.closed());
  EXPECT_THROW(d.create_buffer<float>(4), Error);
  EXPECT_THROW(d.begin_commands(), Error);
  d.close();  // idempotent
  EXPECT_TRUE(d.take_validation_messages().empty());
}

TEST_F(Lifecycle, AdapterChosenByEnvironmentWinsOverOptions) {
  const std::string name = enumerate_adapters().front().name;
  setenv("ONEGPU_ADAPTER", name.c_str(), 1);
  {
    Device d = Device::create({.adapter = "no such adapter", .validation = true});
    EXPECT_EQ(d.adapter().name, name);
    EXPECT_TRUE(close_and_take_messages(d).empty());
  }
  setenv("ONEGPU_ADAPTER", "no such adapter", 1);
  EXPECT_THROW(Device::create({.validation = true}), UnsupportedError);
  unsetenv("ONEGPU_ADAPTER");
  Device by_kind = Device::create({.adapter = adapter_kind_name(device().adapter().kind), .validation = true});
  EXPECT_EQ(by_kind.adapter().kind, device().adapter().kind);
  EXPECT_TRUE(close_and_take_messages(by_kind).empty());
}

TEST_F(Lifecycle, CapabilitiesComeFromTheDevice) {
  const ComputeCapabilities& c = caps();
  EXPECT_GT(c.subgroup_size, 0u);
  EXPECT_LE(c.min_subgroup_size, c.subgroup_size);
  EXPECT_GE(c.max_subgroup_size, c.subgroup_size);
  EXPECT_GE(c.max_workgroup_invocations, 128u);
  EXPECT_GE(c.max_workgroup_count[0], 65535u);
  EXPECT_GT(c.max_storage_buffer_range, 0u);
  EXPECT_FALSE(c.describe().empty());
  EXPECT_TRUE(c.features.has(ShaderFeature::subgroup_basic) == c.subgroup_operations.basic);
  for (const auto& s : c.cooperative_matrix_shapes) EXPECT_GT(s.m * s.n * s.k, 0u);
  EXPECT_EQ(device().adapter().name, enumerate_adapters()[0].name);
}

}  // namespace
}  // namespace onegpu::testing

namespace onegpu::testing {
namespace {

TEST(DeviceLifecycle, EncoderOutlivingItsDeviceIsReleasedAndInert) {
  std::string why;
  auto device = open_test_device(&why);
  if (!device) GTEST_SKIP() << why;
  auto data = device->create_buffer<uint32_t>(64);
  auto kernel = device->create_compute_kernel(shaders::test_fill::source());
  auto group = device->create_bind_group(kernel, {data});
  struct {
    uint32_t count, value, step;
  } push{64, 1, 1};
  auto encoder = device->begin_commands();
  encoder.begin_compute_pass().dispatch(kernel, group, push, {1, 1, 1});
  kernel = ComputeKernel();  // only the encoder holds them now
  group = BindGroup();
  data = Buffer<uint32_t>();
  auto messages = close_and_take_messages(*device);
  EXPECT_TRUE(messages.empty()) << join(messages);
  EXPECT_THROW(encoder.begin_compute_pass(), Error);
}

}  // namespace
}  // namespace onegpu::testing
