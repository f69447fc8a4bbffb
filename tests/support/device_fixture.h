// The fixture every device test uses: opens the test adapter with the validation layer required,
// and after the test closes the device and fails on any validation message or leaked object.
// Without any adapter the test is skipped (and says why) unless ONEGPU_REQUIRE_DEVICE=1.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "support/shape_error.h"
#include "onegpu/onegpu.h"

namespace onegpu::testing {

// A device for a test, or nullopt with `why` set when the machine has no adapter.
std::optional<Device> open_test_device(std::string* why, DeviceOptions options = {});

// Closes the device and returns every validation message, leaks included.
std::vector<std::string> close_and_take_messages(Device& device);

std::string join(const std::vector<std::string>& lines);

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { open(Backend::vulkan); }
  void TearDown() override;
  Device& device() { return *device_; }
  const ComputeCapabilities& caps() { return device_->capabilities(); }
  // Opens the device on `backend` (Vulkan with the validation layer; WebGPU on Dawn, which always
  // validates). Without a WebGPU adapter the test skips saying why, unless
  // ONEGPU_REQUIRE_WEBGPU=1 (set where CTest runs these tests on the Mesa of tools/webgpu-env.sh).
  void open(Backend backend);

 private:
  std::optional<Device> device_;
};

// The same tests on every backend: TEST_P over a fixture derived from this one, instantiated with
// INSTANTIATE_TEST_SUITE_P(Backends, Fixture, ::testing::ValuesIn(kEveryBackend), backend_name).
class BackendTest : public DeviceTest, public ::testing::WithParamInterface<Backend> {
 protected:
  void SetUp() override { open(GetParam()); }
};
inline constexpr Backend kEveryBackend[] = {Backend::vulkan, Backend::webgpu};
std::string backend_name(const ::testing::TestParamInfo<Backend>& info);

}  // namespace onegpu::testing
