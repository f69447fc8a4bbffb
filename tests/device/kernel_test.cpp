// Kernels are checked against the device before anything is created.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "support/device_fixture.h"
#include "support/random.h"
#include "support/spirv_modules.h"
#include "test_big_workgroup.h"
#include "test_fill.h"
#include "test_subgroup_sum.h"
#include "test_textures.h"
#include "test_transpose.h"

namespace onegpu::testing {
namespace {

class Kernels : public DeviceTest {};

TEST_F(Kernels, WorkgroupTooLargeThrowsUnsupported) {
  try {
    device().create_compute_kernel(shaders::test_big_workgroup::source());
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability().rfind("max_workgroup", 0), 0u) << e.capability();
  }
}

TEST_F(Kernels, TextureBindingsBuildAKernel) {
  ComputeKernel k = device().create_compute_kernel(shaders::test_textures::source());
  EXPECT_EQ(k.reflection().bindings.size(), 6u);
  // A storage binding whose format the library does not map is refused before the driver sees it.
  ShaderSource s = shaders::test_textures::source();
  s.reflection.bindings[1].storage_format = std::nullopt;
  try {
    device().create_compute_kernel(s);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "storage_texture_format");
  }
}

TEST_F(Kernels, MissingFeatureThrowsUnsupported) {
  // The same module, with a reflection that claims a feature the device lacks.
  ShaderSource s = shaders::test_fill::source();
  ShaderFeature lacking = ShaderFeature::cooperative_matrix;
  if (caps().features.has(lacking)) lacking = ShaderFeature::bfloat16;
  if (caps().features.has(lacking)) GTEST_SKIP() << "the device has every optional feature";
  s.reflection.features |= lacking;
  try {
    device().create_compute_kernel(s);
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), feature_name(lacking));
  }
}

TEST_F(Kernels, SubgroupSizeTheDeviceDoesNotOfferThrows) {
  const uint32_t wanted = caps().max_subgroup_size * 2;
  try {
    device().create_compute_kernel(shaders::test_subgroup_sum::source(), "sum", {.required_subgroup_size = wanted});
    FAIL() << "no exception";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(e.capability(), "required_subgroup_size");
    EXPECT_EQ(e.expected(), std::to_string(wanted));
  }
}

TEST(KernelStatistics, ReadWhenAskedForAndOnlyThen) {
  std::string why;
  auto device = open_test_device(&why, {.kernel_statistics = true});
  if (!device) GTEST_SKIP() << why;
  auto kernel = device->create_compute_kernel(shaders::test_fill::source(), "fill");
  if (!device->capabilities().kernel_statistics) {
    EXPECT_TRUE(kernel.statistics().empty());
  } else {
    ASSERT_FALSE(kernel.statistics().empty()) << "the driver reported no statistics";
    for (const KernelStatistic& s : kernel.statistics()) {
      EXPECT_FALSE(s.name.empty());
      EXPECT_FALSE(s.executable.empty());
      EXPECT_TRUE(std::isfinite(s.value)) << s.name;
    }
  }
  if (!std::getenv("ONEGPU_KERNEL_STATISTICS")) {  // which would turn them on for every device
    auto plain = open_test_device(&why);
    EXPECT_TRUE(plain->create_compute_kernel(shaders::test_fill::source(), "fill").statistics().empty());
    EXPECT_TRUE(close_and_take_messages(*plain).empty());
  }
  kernel = ComputeKernel();
  const auto messages = close_and_take_messages(*device);
  EXPECT_TRUE(messages.empty()) << join(messages);
}

TEST_F(Kernels, PinnedSubgroupSizeWithFullSubgroups) {
  const uint32_t width = caps().max_subgroup_size;
  auto kernel = device().create_compute_kernel(shaders::test_subgroup_sum::source(), "sum",
                                               {.require_full_subgroups = true, .required_subgroup_size = width});
  const uint32_t groups = 37;
  auto input = random_words(groups * 64, 9);
  for (auto& v : input) v &= 0xffff;
  auto src = device().create_buffer(input);
  auto dst = device().create_buffer(std::vector<uint32_t>(2 * groups + 4, kSentinel));
  auto group = device().create_bind_group(kernel, {src, dst});
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(kernel, group, std::span<const std::byte>{}, {groups, 1, 1});
  device().submit(enc);
  auto out = dst.read();
  for (uint32_t g = 0; g < groups; ++g) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 64; ++i) sum += input[g * 64 + i];
    ASSERT_EQ(out[g], sum) << g;
    ASSERT_EQ(out[groups + g], width) << "subgroup width seen by the shader";
  }
  for (uint32_t i = 2 * groups; i < out.size(); ++i) ASSERT_EQ(out[i], kSentinel);
}

TEST_F(Kernels, BindGroupsAreCheckedAgainstTheReflection) {
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  EXPECT_EQ(kernel.reflection().bindings.size(), 2u);
  EXPECT_EQ(kernel.label(), "test_transpose");
  auto a = device().create_buffer<float>(64);
  auto b = device().create_buffer<float>(64);
  EXPECT_THROW(device().create_bind_group(kernel, {a}), KernelShapeError);
  EXPECT_THROW(device().create_bind_group(kernel, {a, b, a}), KernelShapeError);
  EXPECT_THROW(device().create_bind_group(kernel, {a, BufferBinding(b, 260)}), KernelShapeError);
  EXPECT_THROW(device().create_bind_group(kernel, {a, BufferBinding(b, 128, 132)}), KernelShapeError);
  const uint64_t align = caps().min_storage_buffer_offset_alignment;
  if (align > 4) {
    EXPECT_THROW(device().create_bind_group(kernel, {a, BufferBinding(b, 4)}), KernelShapeError);
  }
  EXPECT_NO_THROW(device().create_bind_group(kernel, {a, BufferBinding(b, 0, 128)}));
}

TEST_F(Kernels, BoundRangesAtAnOffset) {
  const uint64_t align = std::max<uint64_t>(caps().min_storage_buffer_offset_alignment, 4);
  const uint32_t rows = 4, cols = 8, offset_elems = static_cast<uint32_t>(align / 4) * 4;
  auto input = random_floats(rows * cols, 4);
  auto src = device().create_buffer(input);
  auto dst = device().create_buffer(std::vector<uint32_t>(offset_elems + rows * cols + 8, kSentinel));
  auto kernel = device().create_compute_kernel(shaders::test_transpose::source());
  auto group = device().create_bind_group(kernel, {src, BufferBinding(dst, offset_elems * 4ull, rows * cols * 4ull)});
  struct {
    uint32_t rows, cols;
  } push{rows, cols};
  auto enc = device().begin_commands();
  enc.begin_compute_pass().dispatch(kernel, group, push, {1, 1, 1});
  device().submit(enc);
  auto out = dst.read();
  for (uint32_t i = 0; i < offset_elems; ++i) ASSERT_EQ(out[i], kSentinel);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      float v;
      std::memcpy(&v, &out[offset_elems + c * rows + r], 4);
      ASSERT_EQ(v, input[r * cols + c]);
    }
  for (size_t i = offset_elems + rows * cols; i < out.size(); ++i) ASSERT_EQ(out[i], kSentinel);
}

// A malformed module is refused before the driver parses it: a typed error, and the validation
// layer (which checks every module the driver is given) says nothing.
TEST(KernelStructure, MalformedModulesNeverReachTheDriver) {
  std::string why;
  auto device = open_test_device(&why);
  if (!device) GTEST_SKIP() << why;
  const std::vector<uint32_t> ok = minimal_compute_module();
  ShaderSource source{.name = "minimal", .spirv = ok, .reflection = reflect_spirv(ok)};
  EXPECT_TRUE(device->create_compute_kernel(source));  // the baseline is a valid module
  for (const BrokenModule& m : broken_compute_modules()) {
    ShaderSource broken = source;
    broken.spirv = m.words;
    try {
      device->create_compute_kernel(broken);
      ADD_FAILURE() << m.rule << ": no exception";
    } catch (const KernelShapeError& e) {
      EXPECT_EQ(e.operation(), "create_compute_kernel") << m.rule;
      EXPECT_EQ(e.argument(), "shader") << m.rule;
      EXPECT_NE(std::string(e.what()).find(m.message), std::string::npos) << m.rule << ": " << e.what();
    }
    const auto messages = device->take_validation_messages();
    EXPECT_TRUE(messages.empty()) << m.rule << ": " << join(messages);
  }
  const auto messages = close_and_take_messages(*device);
  EXPECT_TRUE(messages.empty()) << join(messages);
}

}  // namespace
}  // namespace onegpu::testing
