#include "support/device_fixture.h"

#include <cstdlib>

namespace onegpu::testing {

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::optional<Device> open_test_device(std::string* why, DeviceOptions options) {
  // The layer stops repeating a message after 10 occurrences by default; a test must see them all.
  // (Before the validated instance exists, which the first device with validation creates.)
  setenv("VK_LAYER_DUPLICATE_MESSAGE_LIMIT", "0", 0);
  setenv("VK_KHRONOS_VALIDATION_DUPLICATE_MESSAGE_LIMIT", "0", 0);
  if (enumerate_adapters().empty()) {
    *why = "no Vulkan adapter on this machine (install mesa-vulkan-drivers for lavapipe)";
    const char* require = std::getenv("ONEGPU_REQUIRE_DEVICE");
    if (require != nullptr && std::string(require) == "1")
      ADD_FAILURE() << "ONEGPU_REQUIRE_DEVICE=1 but " << *why;
    return std::nullopt;
  }
  options.validation = true;
  return Device::create(options);
}

std::vector<std::string> close_and_take_messages(Device& device) {
  std::vector<std::string> messages = device.take_validation_messages();
  device.close();
  for (auto& m : device.take_validation_messages()) messages.push_back(m);
  return messages;
}

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::webgpu ? "webgpu" : "vulkan";
}

void DeviceTest::open(Backend backend) {
  if (backend == Backend::webgpu) {
#ifndef ONEGPU_HAS_WGSL_KERNELS
    GTEST_SKIP() << "the kernels were built without WGSL (no node or naga-wasm: run tools/setup-webgpu.sh and "
                    "configure again)";
#endif
    if (enumerate_adapters(Backend::webgpu).empty()) {
      const char* require = std::getenv("ONEGPU_REQUIRE_WEBGPU");
      if (require != nullptr && std::string(require) == "1")
        FAIL() << "ONEGPU_REQUIRE_WEBGPU=1 but there is no WebGPU adapter (tools/setup-webgpu.sh, tools/webgpu-env.sh)";
      GTEST_SKIP() << "no WebGPU adapter (Dawn needs tools/setup-webgpu.sh and the Mesa 25 lavapipe of "
                      "tools/webgpu-env.sh; CTest runs these through tools/with-webgpu-env.sh)";
    }
    device_ = Device::create({.backend = Backend::webgpu});
    return;
  }
  std::string why;
  device_ = open_test_device(&why);
  if (!device_) GTEST_SKIP() << why;
  ASSERT_TRUE(device_->validation_enabled() || std::getenv("ONEGPU_VALIDATION_OPTIONAL") != nullptr)
      << "device tests run with the validation layer";
}

void DeviceTest::TearDown() {
  if (!device_) return;
  std::vector<std::string> messages = close_and_take_messages(*device_);
  EXPECT_TRUE(messages.empty()) << "validation messages or leaks:\n" << join(messages);
}

}  // namespace onegpu::testing
