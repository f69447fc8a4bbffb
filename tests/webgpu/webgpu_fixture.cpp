#include "webgpu/webgpu_fixture.h"

#include <cstdlib>
#include <filesystem>

namespace onegpu::testing {

namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

bool webgpu_library_installed() {
  if (const char* v = std::getenv("ONEGPU_WEBGPU_LIBRARY"); v != nullptr && *v != 0) return true;
  return std::filesystem::exists(ONEGPU_WEBGPU_LIBRARY_PATH);
}

NoAdapter no_webgpu_adapter() {
  const bool installed = webgpu_library_installed();
  const char* require = std::getenv("ONEGPU_REQUIRE_DEVICE");
  return {installed ? "Dawn is installed but found no adapter (source tools/webgpu-env.sh for the Mesa 25 "
                      "lavapipe of .deps/mesa25)"
                    : "no Dawn library (run tools/setup-webgpu.sh)",
          installed && require != nullptr && std::string(require) == "1"};
}

void WebGpuTest::SetUp() {
  if (enumerate_adapters(Backend::webgpu).empty()) {
    const NoAdapter none = no_webgpu_adapter();
    if (none.fail) FAIL() << "ONEGPU_REQUIRE_DEVICE=1 but " << none.why;
    GTEST_SKIP() << none.why;
  }
  device_ = Device::create({.backend = Backend::webgpu});
}

std::vector<std::string> WebGpuTest::close_device() {
  std::vector<std::string> messages = device_->take_validation_messages();
  device_->close();
  for (auto& m : device_->take_validation_messages()) messages.push_back(m);
  device_.reset();
  return messages;
}

void WebGpuTest::TearDown() {
  if (!device_) return;
  std::vector<std::string> messages = close_device();
  EXPECT_TRUE(messages.empty()) << "Dawn's messages or leaks:\n" << join_lines(messages);
}

ShaderSource wgsl_kernel(const std::string& name, const std::string& wgsl, std::vector<bool> read_only,
                         uint32_t push_bytes, std::array<uint32_t, 3> local_size) {
  ShaderSource s;
  s.name = name;
  s.wgsl = wgsl;
  for (uint32_t i = 0; i < read_only.size(); ++i)
    s.reflection.bindings.push_back(
        ShaderBinding{.set = 0, .binding = i, .kind = BindingKind::storage_buffer, .read_only = read_only[i]});
  s.reflection.push_constant_size = push_bytes;
  s.reflection.local_size = local_size;
  return s;
}

}  // namespace onegpu::testing
