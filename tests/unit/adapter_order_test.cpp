// Adapter order and selection as plain functions over snapshots.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "onegpu/adapter.h"
#include "onegpu/errors.h"

namespace onegpu {
namespace {

AdapterInfo make(std::string name, AdapterKind kind, uint32_t vendor, uint32_t device, ApiVersion api = {1, 3, 0},
                 uint8_t uuid0 = 0) {
  AdapterInfo a;
  a.name = std::move(name);
  a.kind = kind;
  a.vendor_id = vendor;
  a.device_id = device;
  a.api_version = api;
  a.pipeline_cache_uuid[0] = uuid0;
  return a;
}

std::vector<std::string> names(const std::vector<AdapterInfo>& v) {
  std::vector<std::string> out;
  for (auto& a : v) out.push_back(a.name + "/" + a.api_version.to_string() + "/" + std::to_string(a.pipeline_cache_uuid[0]));
  return out;
}

std::vector<AdapterInfo> machine() {
  return {make("llvmpipe", AdapterKind::software, 0x10005, 0),
          make("AMD Radeon (RADV)", AdapterKind::integrated, 0x1002, 0x164e),
          make("NVIDIA RTX 4070", AdapterKind::discrete, 0x10de, 0x2786),
          make("NVIDIA H200", AdapterKind::discrete, 0x10de, 0x2335, {1, 4, 312}),
          make("NVIDIA H200", AdapterKind::discrete, 0x10de, 0x2335, {1, 3, 280}),
          make("AMD W7900", AdapterKind::discrete, 0x1002, 0x7448),
          make("Virtio GPU", AdapterKind::virtual_gpu, 0x1af4, 1),
          make("Mystery", AdapterKind::other, 1, 1),
          make("NVIDIA H200", AdapterKind::discrete, 0x10de, 0x2335, {1, 4, 312}, 7)};
}

TEST(AdapterOrder, KindThenVendorDeviceNameNewestApiThenUuid) {
  auto v = machine();
  sort_adapters(v);
  EXPECT_EQ(names(v), (std::vector<std::string>{
                          "AMD W7900/1.3.0/0", "NVIDIA H200/1.4.312/0", "NVIDIA H200/1.4.312/7",
                          "NVIDIA H200/1.3.280/0", "NVIDIA RTX 4070/1.3.0/0", "AMD Radeon (RADV)/1.3.0/0",
                          "Virtio GPU/1.3.0/0", "llvmpipe/1.3.0/0", "Mystery/1.3.0/0"}));
}

TEST(AdapterOrder, SameOrderWhateverTheEnumerationOrder) {
  auto reference = machine();
  sort_adapters(reference);
  std::mt19937 rng(7);
  for (int i = 0; i < 50; ++i) {
    auto v = machine();
    std::shuffle(v.begin(), v.end(), rng);
    sort_adapters(v);
    EXPECT_EQ(names(v), names(reference));
  }
}

TEST(AdapterSelect, EmptyQueryTakesTheFirst) {
  auto v = machine();
  sort_adapters(v);
  EXPECT_EQ(select_adapter(v, ""), 0u);
}

TEST(AdapterSelect, ByKindAnyCase) {
  auto v = machine();
  sort_adapters(v);
  EXPECT_EQ(v[select_adapter(v, "software")].name, "llvmpipe");
  EXPECT_EQ(v[select_adapter(v, "Integrated")].name, "AMD Radeon (RADV)");
  EXPECT_EQ(v[select_adapter(v, "DISCRETE")].name, "AMD W7900");
}

TEST(AdapterSelect, ByNameSubstringCaseInsensitiveFirstInOrder) {
  auto v = machine();
  sort_adapters(v);
  size_t i = select_adapter(v, "h200");
  EXPECT_EQ(v[i].name, "NVIDIA H200");
  EXPECT_EQ(v[i].api_version, (ApiVersion{1, 4, 312}));
  EXPECT_EQ(v[select_adapter(v, "rtx")].name, "NVIDIA RTX 4070");
}

TEST(AdapterSelect, NoMatchThrowsUnsupportedWithTheList) {
  auto v = machine();
  sort_adapters(v);
  try {
    select_adapter(v, "Arc A770");
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "adapter");
    EXPECT_EQ(e.expected(), "Arc A770");
    EXPECT_NE(e.actual().find("llvmpipe"), std::string::npos);
  }
  EXPECT_THROW(select_adapter({}, ""), UnsupportedError);
}

TEST(BackendSelection, MetalIsNotImplemented) {
  setenv("ONEGPU_BACKEND", "Metal", 1);
  try {
    selected_backend();
    ADD_FAILURE() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "backend");
    EXPECT_EQ(e.expected(), "metal");
  }
  setenv("ONEGPU_BACKEND", "WebGPU", 1);
  EXPECT_EQ(selected_backend(), Backend::webgpu);
  setenv("ONEGPU_BACKEND", "VULKAN", 1);
  EXPECT_EQ(selected_backend(), Backend::vulkan);
  unsetenv("ONEGPU_BACKEND");
  EXPECT_EQ(selected_backend(), Backend::vulkan);
}

}  // namespace
}  // namespace onegpu
