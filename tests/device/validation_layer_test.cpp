// Requiring the validation layer where it is missing: an error, or with
// ONEGPU_VALIDATION_OPTIONAL=1 a notice and a device without it. Runs a child process in which the
// loader finds no explicit layer (VK_LAYER_PATH names an empty folder), since each process keeps
// its instances for its whole life.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "onegpu/onegpu.h"

namespace {

std::string run(const std::string& env) {
  const std::string command = env + " " ONEGPU_VALIDATION_PROBE " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::string out;
  std::array<char, 256> buf;
  while (fgets(buf.data(), int(buf.size()), pipe) != nullptr) out += buf.data();
  pclose(pipe);
  return out;
}

TEST(ValidationLayer, MissingLayerIsAnErrorUnlessOptional) {
  if (onegpu::enumerate_adapters().empty()) {
    if (const char* r = std::getenv("ONEGPU_REQUIRE_DEVICE"); r && std::string(r) == "1") FAIL() << "no adapter";
    GTEST_SKIP() << "no Vulkan adapter on this machine";
  }
  const std::string hidden = "env -u VK_ADD_LAYER_PATH -u VK_INSTANCE_LAYERS VK_LAYER_PATH=/nonexistent-onegpu-layers";
  EXPECT_NE(run(hidden).find("unsupported: validation layer"), std::string::npos) << run(hidden);
  const std::string optional = run(hidden + " ONEGPU_VALIDATION_OPTIONAL=1");
  EXPECT_NE(optional.find("unvalidated"), std::string::npos) << optional;
  EXPECT_NE(optional.find("notice"), std::string::npos) << optional;
  EXPECT_NE(run("").find("validated"), std::string::npos);
}

}  // namespace
