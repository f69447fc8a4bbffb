// The SPIR-V reader, on modules compiled by the build.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/spirv_structure.h"
#include "onegpu/errors.h"
#include "onegpu/shader.h"
#include "test_big_workgroup.h"
#include "test_fill.h"
#include "test_reflect_sample.h"
#include "test_render_basic_frag.h"
#include "test_render_basic_vert.h"
#include "test_render_io_frag.h"
#include "test_render_io_vert.h"
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
    EXPECT_TRUE(r.bindings[0].combined_sampler);
    EXPECT_FALSE(r.bindings[2].combined_sampler);
    for (int i : {0, 1, 2, 4}) {
      EXPECT_EQ(r.bindings[i].view_dimension, TextureViewDimension::d2) << i;
      EXPECT_EQ(r.bindings[i].texel_kind, TexelKind::float_) << i;
      EXPECT_FALSE(r.bindings[i].multisampled) << i;
    }
    EXPECT_EQ(r.bindings[1].storage_format, TextureFormat::rgba8_unorm);
    EXPECT_EQ(r.bindings[4].storage_format, TextureFormat::r32_float);
    EXPECT_FALSE(r.bindings[0].storage_format.has_value());
    EXPECT_EQ(r.bindings[3].view_dimension, TextureViewDimension::none);
  }
  EXPECT_STREQ(binding_kind_name(BindingKind::storage_texture), "storage_texture");
}

// Malformed modules: random words, counts, truncations and self-references in real modules. The
// reader must answer every one with std::invalid_argument or a reflection, and the structural
// check (what the device runs before the driver) with KernelShapeError or nothing; neither may
// crash or hang. ONEGPU_SPIRV_FUZZ_ROUNDS raises the count.
TEST(SpirvReader, MutatedModulesNeverCrashOrHang) {
  const char* env = std::getenv("ONEGPU_SPIRV_FUZZ_ROUNDS");
  const int rounds = env ? std::atoi(env) : 3000;
  const std::vector<ShaderSource> sources = {shaders::test_reflect_sample::source(), shaders::test_fill::source(),
                                             shaders::test_subgroup_sum::source(), shaders::test_textures::source(),
                                             shaders::test_uses_float64::source(), shaders::test_render_io_vert::source(),
                                             shaders::test_render_io_frag::source()};
  std::mt19937 rng(1234);
  int rejected = 0, refused = 0;
  for (int i = 0; i < rounds; ++i) {
    const ShaderSource& src = sources[i % sources.size()];
    std::vector<uint32_t> w(src.spirv.begin(), src.spirv.end());
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 5 + rng() % (w.size() - 5);
      switch (rng() % 5) {
        case 0: w[at] = rng(); break;                                           // any word
        case 1: w[at] = (w[at] & 0xffffu) | ((rng() % 8) << 16); break;         // a short word count
        case 2: w[at] = rng() % 64; break;                                      // a small id
        case 3: w.resize(at); break;                                            // truncated
        case 4: w[at] ^= 1u << (rng() % 32); break;                             // one bit
      }
      if (w.size() <= 5) break;
    }
    try {
      (void)reflect_spirv(w);
    } catch (const std::invalid_argument&) {
      ++rejected;
    }
    try {
      core::check_spirv_structure(w, src.entry_point, src.name, src.reflection.stage);
    } catch (const KernelShapeError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("SPIR-V word "), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(refused, rejected);  // the structure check is the stricter of the two
}

TEST(SpirvReader, SelfReferentialTypesAreRefused) {
  // A struct whose member is itself, and an array of itself, as workgroup variables.
  const std::vector<uint32_t> base = {
      0x07230203u, 0x00010000u, 0, 20, 0,
      (2u << 16) | 17, 1,                                  // OpCapability Shader
      (3u << 16) | 14, 0, 1,                               // OpMemoryModel
      (5u << 16) | 15, 5, 2, 0x6e69616du, 0,               // OpEntryPoint GLCompute %2 "main"
      (6u << 16) | 16, 2, 17, 1, 1, 1,                     // OpExecutionMode LocalSize 1 1 1
      (3u << 16) | 30, 3, 3,                               // %3 = OpTypeStruct %3
      (4u << 16) | 32, 4, 4, 3,                            // %4 = OpTypePointer Workgroup %3
      (4u << 16) | 59, 4, 5, 4,                            // %5 = OpVariable %4 Workgroup
  };
  EXPECT_THROW(reflect_spirv(base), std::invalid_argument);
  std::vector<uint32_t> array = base;
  ASSERT_EQ(base.size(), 32u);
  array[21] = (3u << 16) | 29;  // %3 = OpTypeRuntimeArray %3, in a storage buffer
  array[26] = 12;               // StorageBuffer pointer
  array[31] = 12;               // StorageBuffer variable
  EXPECT_THROW(reflect_spirv(array), std::invalid_argument);
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

// Both the build's reflection and the run-time one, so the embedder's output is checked too.
std::vector<ShaderReflection> both(const ShaderSource& src) { return {src.reflection, reflect_spirv(src.spirv)}; }

TEST(SpirvReader, VertexInputsOutputsAndBindings) {
  for (const ShaderReflection& r : both(shaders::test_render_io_vert::source())) {
    EXPECT_EQ(r.stage, ShaderStage::vertex);
    // position vec3, cell ivec2, ids uvec4, rotation mat2 (locations 3 and 4), weight float.
    ASSERT_EQ(r.inputs.size(), 6u);
    const struct { uint32_t location; ComponentKind kind; uint32_t components; const char* name; } want[] = {
        {0, ComponentKind::float_, 3, "position"}, {1, ComponentKind::sint, 2, "cell"},
        {2, ComponentKind::uint, 4, "ids"},       {3, ComponentKind::float_, 2, "rotation"},
        {4, ComponentKind::float_, 2, "rotation"}, {5, ComponentKind::float_, 1, "weight"}};
    for (size_t i = 0; i < 6; ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(r.inputs[i].location, want[i].location);
      EXPECT_EQ(r.inputs[i].kind, want[i].kind);
      EXPECT_EQ(r.inputs[i].components, want[i].components);
      EXPECT_EQ(r.inputs[i].bits, 32u);
      EXPECT_EQ(r.inputs[i].name, want[i].name);
      EXPECT_EQ(r.inputs[i].matrix_column, i == 4 ? 1u : 0u);  // the mat2's second column
    }
    // gl_Position and gl_PointSize (the gl_PerVertex block) are built-ins: not listed.
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].location, 0u);
    EXPECT_EQ(r.outputs[0].components, 4u);
    EXPECT_EQ(r.outputs[1].location, 1u);
    EXPECT_EQ(r.outputs[1].kind, ComponentKind::uint);
    ASSERT_EQ(r.bindings.size(), 2u);
    EXPECT_EQ(r.bindings[0].kind, BindingKind::uniform_buffer);
    EXPECT_EQ(r.bindings[1].kind, BindingKind::storage_buffer);
    EXPECT_TRUE(r.bindings[1].read_only);
    EXPECT_EQ(r.push_constant_size, 20u);
    ASSERT_EQ(r.push_constants.size(), 2u);
    EXPECT_EQ(r.push_constants[1].name, "mode");
    EXPECT_EQ(r.push_constants[1].offset, 16u);
  }
  static_assert(shaders::test_render_io_vert::kStage == ShaderStage::vertex);
}

TEST(SpirvReader, FragmentOutputsAndInputs) {
  for (const ShaderReflection& r : both(shaders::test_render_io_frag::source())) {
    EXPECT_EQ(r.stage, ShaderStage::fragment);
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].location, 0u);
    EXPECT_EQ(r.outputs[0].kind, ComponentKind::float_);
    EXPECT_EQ(r.outputs[0].components, 4u);
    EXPECT_EQ(r.outputs[0].name, "color");
    EXPECT_EQ(r.outputs[1].location, 2u);
    EXPECT_EQ(r.outputs[1].kind, ComponentKind::uint);
    EXPECT_EQ(r.outputs[1].components, 1u);
    ASSERT_EQ(r.inputs.size(), 2u);
    EXPECT_EQ(r.inputs[1].kind, ComponentKind::uint);
    ASSERT_EQ(r.bindings.size(), 2u);
    EXPECT_EQ(r.bindings[0].binding, 1u);
    EXPECT_TRUE(r.bindings[0].read_only);
    EXPECT_EQ(r.bindings[1].binding, 2u);
    EXPECT_FALSE(r.bindings[1].read_only);
  }
  for (const ShaderReflection& r : both(shaders::test_render_basic_frag::source())) {
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.push_constant_size, 0u);
    EXPECT_TRUE(r.bindings.empty());
  }
  // Compute modules keep their stage and list no interface.
  const ShaderReflection c = reflect_spirv(shaders::test_fill::source().spirv);
  EXPECT_EQ(c.stage, ShaderStage::compute);
  EXPECT_TRUE(c.inputs.empty() && c.outputs.empty());
  EXPECT_STREQ(shader_stage_name(ShaderStage::fragment), "fragment");
  EXPECT_STREQ(component_kind_name(ComponentKind::sint), "sint");
}

TEST(SpirvReader, GraphicsEntryPointFoundByName) {
  const ShaderSource& v = shaders::test_render_basic_vert::source();
  EXPECT_EQ(reflect_spirv(v.spirv, "main").stage, ShaderStage::vertex);
  EXPECT_THROW(reflect_spirv(v.spirv, "vertex_main"), std::invalid_argument);
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
