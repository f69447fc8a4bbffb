// The checks a kernel, a binding set and a grid pass before anything reaches the driver.
#include <gtest/gtest.h>

#include "core/checks.h"
#include "onegpu/errors.h"

namespace onegpu::core {
namespace {

ComputeCapabilities lavapipe_like() {
  ComputeCapabilities c;
  c.subgroup_size = c.min_subgroup_size = c.max_subgroup_size = 8;
  c.max_workgroup_size = {1024, 1024, 64};
  c.max_workgroup_invocations = 1024;
  c.max_workgroup_count = {65535, 65535, 65535};
  c.max_workgroup_memory_bytes = 32768;
  c.max_workgroup_subgroups = 32;
  c.max_push_constants_bytes = 128;
  c.max_storage_buffer_range = 1u << 27;
  c.min_storage_buffer_offset_alignment = 16;
  c.full_subgroups = true;
  c.subgroup_size_control = true;
  c.features = FeatureSet(ShaderFeature::float16) | ShaderFeature::int8 | ShaderFeature::full_subgroups |
               ShaderFeature::subgroup_arithmetic;
  return c;
}

ComputeCapabilities amd_like() {
  ComputeCapabilities c = lavapipe_like();
  c.subgroup_size = 64;
  c.min_subgroup_size = 32;
  c.max_subgroup_size = 64;
  return c;
}

ShaderReflection shader(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
  ShaderReflection r;
  r.local_size = {x, y, z};
  return r;
}

template <class F>
UnsupportedError unsupported(F&& f) {
  try {
    f();
  } catch (const UnsupportedError& e) {
    return e;
  }
  ADD_FAILURE() << "no UnsupportedError";
  return UnsupportedError("", "", "");
}

TEST(PlanKernel, AcceptsWhatFits) {
  KernelPlan p = plan_kernel(shader(256), {}, lavapipe_like());
  EXPECT_FALSE(p.full_subgroups);
  EXPECT_EQ(p.pinned_subgroup_size, 0u);
}

TEST(PlanKernel, WorkgroupAxisAndTotalLimits) {
  auto c = lavapipe_like();
  auto e = unsupported([&] { plan_kernel(shader(1, 1, 65), {}, c); });
  EXPECT_EQ(e.capability(), "max_workgroup_size_z");
  EXPECT_EQ(e.expected(), "65");
  EXPECT_EQ(e.actual(), "64");
  e = unsupported([&] { plan_kernel(shader(64, 32), {}, c); });
  EXPECT_EQ(e.capability(), "max_workgroup_invocations");
  EXPECT_EQ(e.expected(), "2048");
}

TEST(PlanKernel, WorkgroupMemoryAndPushConstants) {
  auto r = shader(64);
  r.workgroup_memory_bytes = 32769;
  EXPECT_EQ(unsupported([&] { plan_kernel(r, {}, lavapipe_like()); }).capability(), "max_workgroup_memory_bytes");
  r.workgroup_memory_bytes = 0;
  r.push_constant_size = 132;
  EXPECT_EQ(unsupported([&] { plan_kernel(r, {}, lavapipe_like()); }).capability(), "max_push_constants_bytes");
}

TEST(PlanKernel, MissingFeatureIsNamed) {
  auto r = shader(64);
  r.features = FeatureSet(ShaderFeature::float16) | ShaderFeature::float64;
  auto e = unsupported([&] { plan_kernel(r, {}, lavapipe_like()); });
  EXPECT_EQ(e.capability(), "float64");
  EXPECT_EQ(e.actual(), "not supported");
}

TEST(PlanKernel, CooperativeMatrixImpliesFullSubgroups) {
  auto c = lavapipe_like();
  c.features |= ShaderFeature::cooperative_matrix;
  auto r = shader(64);
  r.features = FeatureSet(ShaderFeature::cooperative_matrix) | ShaderFeature::full_subgroups;
  EXPECT_TRUE(plan_kernel(r, {}, c).full_subgroups);
  c.full_subgroups = false;
  EXPECT_EQ(unsupported([&] { plan_kernel(r, {}, c); }).capability(), "full_subgroups");
}

TEST(PlanKernel, FullSubgroupsNeedAWholeNumberOfSubgroupsPerRow) {
  auto c = amd_like();
  KernelOptions o{.require_full_subgroups = true};
  EXPECT_TRUE(plan_kernel(shader(128), o, c).full_subgroups);
  auto e = unsupported([&] { plan_kernel(shader(32, 2), o, c); });
  EXPECT_EQ(e.capability(), "full_subgroups");
  EXPECT_EQ(e.actual(), "32");
  o.required_subgroup_size = 32;  // pinned width: a multiple of 32 suffices
  EXPECT_EQ(plan_kernel(shader(32, 2), o, c).pinned_subgroup_size, 32u);
}

TEST(PlanKernel, RequiredSubgroupSizeRules) {
  auto amd = amd_like();
  EXPECT_EQ(plan_kernel(shader(64), {.required_subgroup_size = 64}, amd).pinned_subgroup_size, 64u);
  EXPECT_EQ(unsupported([&] { plan_kernel(shader(64), {.required_subgroup_size = 16}, amd); }).capability(),
            "required_subgroup_size");
  EXPECT_EQ(unsupported([&] { plan_kernel(shader(64), {.required_subgroup_size = 48}, amd); }).capability(),
            "required_subgroup_size");
  // Too many subgroups for the workgroup at that width.
  amd.max_workgroup_subgroups = 8;
  EXPECT_EQ(unsupported([&] { plan_kernel(shader(512), {.required_subgroup_size = 32}, amd); }).capability(),
            "max_workgroup_subgroups");
  // A fixed-width device accepts its width (without pinning) and nothing else.
  auto fixed = lavapipe_like();
  fixed.subgroup_size_control = false;
  EXPECT_EQ(plan_kernel(shader(64), {.required_subgroup_size = 8}, fixed).pinned_subgroup_size, 0u);
  auto e = unsupported([&] { plan_kernel(shader(64), {.required_subgroup_size = 32}, fixed); });
  EXPECT_EQ(e.expected(), "32");
  EXPECT_EQ(e.actual(), "fixed 8");
  // A device with a range but no control cannot pin.
  auto nocontrol = amd_like();
  nocontrol.subgroup_size_control = false;
  EXPECT_EQ(unsupported([&] { plan_kernel(shader(64), {.required_subgroup_size = 32}, nocontrol); }).actual(),
            "no subgroup size control");
}

TEST(CheckBindings, ResolvesWholeRangesAndChecksEachOne) {
  ShaderReflection r = shader(64);
  r.bindings = {{0, 0, BindingKind::storage_buffer, true, "a"}, {0, 1, BindingKind::storage_buffer, false, "b"}};
  auto c = lavapipe_like();
  std::vector<BindingRange> ranges = {{1024, 0, 0}, {1024, 512, 0}};
  check_bindings(r, ranges, c);
  EXPECT_EQ(ranges[0].size, 1024u);
  EXPECT_EQ(ranges[1].size, 512u);

  std::vector<BindingRange> one = {{1024, 0, 0}};
  EXPECT_THROW(check_bindings(r, one, c), KernelShapeError);
  std::vector<BindingRange> misaligned = {{1024, 4, 0}, {1024, 0, 0}};
  try {
    check_bindings(r, misaligned, c);
    FAIL();
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "bind");
    EXPECT_EQ(e.argument(), "binding 0");
  }
  std::vector<BindingRange> outside = {{1024, 512, 528}, {1024, 0, 0}};
  EXPECT_THROW(check_bindings(r, outside, c), KernelShapeError);
  std::vector<BindingRange> overflow = {{1024, 16, UINT64_MAX - 8}, {1024, 0, 0}};
  EXPECT_THROW(check_bindings(r, overflow, c), KernelShapeError);
  std::vector<BindingRange> too_big = {{1ull << 28, 0, 0}, {1024, 0, 0}};
  EXPECT_EQ(unsupported([&] { check_bindings(r, too_big, c); }).capability(), "max_storage_buffer_range");
}

TEST(CheckBindings, UniformBindingsAgainstTheUniformRange) {
  ShaderReflection r = shader(64);
  r.bindings = {{0, 0, BindingKind::uniform_buffer, true, "u"}};
  auto c = lavapipe_like();
  c.max_uniform_buffer_range = 65536;
  std::vector<BindingRange> fits = {{1 << 20, 0, 65536}};
  EXPECT_NO_THROW(check_bindings(r, fits, c));
  std::vector<BindingRange> whole = {{4u << 20, 0, 0}};  // 4 MiB
  auto e = unsupported([&] { check_bindings(r, whole, c); });
  EXPECT_EQ(e.capability(), "max_uniform_buffer_range");
  EXPECT_EQ(e.expected(), std::to_string(4u << 20));
}

TEST(CheckRange, SixtyFourBitOverflowSafe) {
  EXPECT_NO_THROW(check_range("read", "offset", 0, 16, 16));
  EXPECT_NO_THROW(check_range("read", "offset", 16, 0, 16));
  EXPECT_THROW(check_range("read", "offset", 17, 0, 16), KernelShapeError);
  EXPECT_THROW(check_range("read", "offset", 8, UINT64_MAX, 16), KernelShapeError);
  EXPECT_THROW(check_range("read", "offset", UINT64_MAX, 2, 16), KernelShapeError);
}

TEST(Grid, LinearGridFoldsIntoRows) {
  EXPECT_EQ(linear_grid(0, 65535).total(), 0u);
  Grid g = linear_grid(65535, 65535);
  EXPECT_EQ(g.x, 65535u);
  EXPECT_EQ(g.y, 1u);
  g = linear_grid(65536, 65535);
  EXPECT_EQ(g.x, 65535u);
  EXPECT_EQ(g.y, 2u);
  g = linear_grid(3'000'000'000ull, 65535);
  EXPECT_GE(g.total(), 3'000'000'000ull);
  EXPECT_LT(g.total() - 3'000'000'000ull, 65535u);
  // Near 2^64 the row count must not wrap around to a small grid.
  EXPECT_THROW(linear_grid(UINT64_MAX, 65535), UnsupportedError);
  EXPECT_THROW(linear_grid(UINT64_MAX, UINT32_MAX), UnsupportedError);
  g = linear_grid(uint64_t(UINT32_MAX) * UINT32_MAX, UINT32_MAX);
  EXPECT_EQ(g.y, UINT32_MAX);
}

TEST(Grid, CheckGridAgainstLimits) {
  auto c = lavapipe_like();
  EXPECT_NO_THROW(check_grid({65535, 65535, 1}, c));
  auto e = unsupported([&] { check_grid({70000, 1, 1}, c); });
  EXPECT_EQ(e.capability(), "max_workgroup_count_x");
}

}  // namespace
}  // namespace onegpu::core

namespace onegpu::core {
namespace {

TEST(PlanKernel, BindingsLiveInSetZero) {
  ShaderReflection r = shader(64);
  r.bindings = {{1, 0, BindingKind::storage_buffer, false, "x"}};
  EXPECT_EQ(unsupported([&] { plan_kernel(r, {}, lavapipe_like()); }).capability(), "descriptor_sets");
}

}  // namespace
}  // namespace onegpu::core
