// The SPIR-V reader, on modules compiled by the build.
#include <gtest/gtest.h>

#include "onegpu/shader.h"
#include "test_big_workgroup.h"
#include "test_fill.h"
#include "test_reflect_sample.h"
#include "test_subgroup_sum.h"
#include "test_textures.h"
#include "test_uses_float64.h"

namespace onegpu {
namespace {

TEST(SpirvReader, BindingsSortedWithKindsAndAccess) {
  const ShaderReflection& r = shaders::test_reflect_sample::source().reflection;
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.bindings[0].binding, 0u);
  EXPECT_EQ(r.bindings[0].kind, BindingKind::storage_buffer);
  EXPECT_TRUE(r.bindings[0].read_only);
  EXPECT_EQ(r.bindings[0].name, "in_buf");
  EXPECT_EQ(r.bindings[1].binding, 2u);
  EXPECT_EQ(r.bindings[1].kind, BindingKind::uniform_buffer);
  EXPECT_EQ(r.bindings[2].binding, 3u);
  EXPECT_FALSE(r.bindings[2].read_only);
}

TEST(SpirvReader, TextureAndSamplerBindings) {
  const ShaderSource& src = shaders::test_textures::source();
  for (const ShaderReflection& r : {src.reflection, reflect_spirv(src.spirv)}) {
    ASSERT_EQ(r.bindings.size(), 6u);
    EXPECT_EQ(r.bindings[0].kind, BindingKind::sampled_texture);  // sampler2D
    EXPECT_TRUE(r.bindings[0].read_only);
    EXPECT_EQ(r.bindings[1].kind, BindingKind::storage_texture);  // writeonly image2D
    EXPECT_FALSE(r.bindings[1].read_only);
    EXPECT_EQ(r.bindings[2].kind, BindingKind::sampled_texture);  // texture2D
    EXPECT_EQ(r.bindings[3].kind, BindingKind::sampler);
    EXPECT_EQ(r.bindings[4].kind, BindingKind::storage_texture);  // readonly image2D
    EXPECT_TRUE(r.bindings[4].read_only);
    EXPECT_EQ(r.bindings[5].kind, BindingKind::storage_buffer);
  }
  EXPECT_STREQ(binding_kind_name(BindingKind::storage_texture), "storage_texture");
}

TEST(SpirvReader, PushConstantBlockLayout) {
  const ShaderReflection& r = shaders::test_reflect_sample::source().reflection;
  EXPECT_EQ(r.push_constant_size, 20u);
  ASSERT_EQ(r.push_constants.size(), 4u);
  EXPECT_EQ(r.push_constants[0].name, "n");
  EXPECT_EQ(r.push_constants[1].offset, 4u);
  EXPECT_EQ(r.push_constants[2].name, "stride");
  EXPECT_EQ(r.push_constants[2].offset, 8u);
  EXPECT_EQ(r.push_constants[2].size, 8u);
  EXPECT_EQ(r.push_constants[3].offset, 16u);
  // The generated constants carry the same numbers, so host structs can static_assert on them.
  static_assert(shaders::test_reflect_sample::kPushConstantSize == 20);
  static_assert(shaders::test_reflect_sample::kPushOffset_stride == 8);
  static_assert(shaders::test_reflect_sample::kBinding_out_buf == 3);
}

TEST(SpirvReader, LocalSizeSharedMemoryAndFeatures) {
  const ShaderReflection& r = shaders::test_reflect_sample::source().reflection;
  EXPECT_EQ(r.local_size, (std::array<uint32_t, 3>{32, 2, 1}));
  EXPECT_EQ(r.workgroup_memory_bytes, 32u * 33u * 4u);
  EXPECT_TRUE(r.features.has(ShaderFeature::storage_buffer_16bit));
  EXPECT_TRUE(r.features.has(ShaderFeature::int16));
  EXPECT_FALSE(r.features.has(ShaderFeature::float64));
  EXPECT_EQ(r.spirv_version, 0x00010600u);

  EXPECT_TRUE(shaders::test_uses_float64::source().reflection.features.has(ShaderFeature::float64));
  const ShaderReflection& s = shaders::test_subgroup_sum::source().reflection;
  EXPECT_TRUE(s.features.has(ShaderFeature::subgroup_arithmetic));
  EXPECT_TRUE(s.features.has(ShaderFeature::subgroup_basic));
  EXPECT_EQ(s.workgroup_memory_bytes, 64u * 4u);
  EXPECT_EQ(shaders::test_big_workgroup::source().reflection.local_size[1], 1024u);
  EXPECT_TRUE(shaders::test_fill::source().reflection.features.empty());
}

TEST(SpirvReader, RunTimeReflectionMatchesTheBuild) {
  const ShaderSource& src = shaders::test_reflect_sample::source();
  ShaderReflection r = reflect_spirv(src.spirv);
  EXPECT_EQ(r.push_constant_size, src.reflection.push_constant_size);
  EXPECT_EQ(r.local_size, src.reflection.local_size);
  EXPECT_EQ(r.features, src.reflection.features);
  EXPECT_EQ(r.bindings.size(), src.reflection.bindings.size());
}

TEST(SpirvReader, RejectsWhatIsNotAComputeModule) {
  std::vector<uint32_t> junk = {1, 2, 3, 4, 5, 6};
  EXPECT_THROW(reflect_spirv(junk), std::invalid_argument);
  const ShaderSource& src = shaders::test_fill::source();
  EXPECT_THROW(reflect_spirv(src.spirv, "not_main"), std::invalid_argument);
  std::vector<uint32_t> truncated(src.spirv.begin(), src.spirv.begin() + 40);
  truncated.push_back(0xffff0011u);  // an instruction claiming 65535 words
  EXPECT_THROW(reflect_spirv(truncated), std::invalid_argument);
}

TEST(FeatureSet, NamesAndSetAlgebra) {
  FeatureSet a = FeatureSet(ShaderFeature::float16) | ShaderFeature::int8;
  EXPECT_EQ(a.to_string(), "float16, int8");
  EXPECT_TRUE(a.contains(ShaderFeature::int8));
  EXPECT_EQ((a - ShaderFeature::int8), FeatureSet(ShaderFeature::float16));
  EXPECT_EQ(FeatureSet().to_string(), "none");
}

}  // namespace
}  // namespace onegpu
