// The WebGPU device tests' fixture: a device on Dawn's default adapter, closed after each test,
// which fails on any message Dawn reported (uncaptured errors, warnings) or object left alive.
//
// Without Dawn (tools/setup-webgpu.sh not run, or ONEGPU_SKIP_WEBGPU=1) the tests skip and say
// why. With Dawn installed but no adapter for it (Mesa's lavapipe older than Dawn accepts, or the
// loader not pointed at .deps/mesa25), they skip too, unless ONEGPU_REQUIRE_DEVICE=1: then a
// missing adapter beside an installed Dawn is a failure, since the setup is broken.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "onegpu/onegpu.h"

namespace onegpu::testing {

// True when a Dawn library is installed where the backend looks (ONEGPU_WEBGPU_LIBRARY or the
// setup script's copy).
bool webgpu_library_installed();

// Why there is no WebGPU adapter, and whether that fails the test (see above).
struct NoAdapter {
  std::string why;
  bool fail = false;
};
NoAdapter no_webgpu_adapter();

class WebGpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  Device& device() { return *device_; }
  const ComputeCapabilities& caps() { return device_->capabilities(); }
  // Closes the device now and returns what it reported.
  std::vector<std::string> close_device();

 private:
  std::optional<Device> device_;
};

// A ShaderSource for WGSL text with buffer bindings in set 0 (read_only as listed) and a
// push-constant block of `push_bytes`.
ShaderSource wgsl_kernel(const std::string& name, const std::string& wgsl, std::vector<bool> read_only,
                         uint32_t push_bytes, std::array<uint32_t, 3> local_size = {64, 1, 1});

}  // namespace onegpu::testing
