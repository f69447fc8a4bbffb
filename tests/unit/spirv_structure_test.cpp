// The structural checks a module passes before it reaches the driver.
#include <gtest/gtest.h>

#include <vector>

#include "core/spirv_structure.h"
#include "onegpu/errors.h"
#include "support/spirv_modules.h"
#include "test_big_workgroup.h"
#include "test_fill.h"
#include "test_reflect_sample.h"
#include "test_render_basic_frag.h"
#include "test_render_basic_vert.h"
#include "test_subgroup_sum.h"
#include "test_textures.h"
#include "test_transpose.h"
#include "test_uses_float64.h"

namespace onegpu {
namespace {

using testing::broken_compute_modules;
using testing::minimal_compute_module;
using testing::spirv_instruction;

// The error for `words`, or an empty message when the module passes.
std::string structure_error(const std::vector<uint32_t>& words, const std::string& entry = "main") {
  try {
    core::check_spirv_structure(words, entry, "probe");
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "create_compute_kernel");
    EXPECT_EQ(e.argument(), "shader");
    return e.what();
  }
  return {};
}

TEST(SpirvStructure, ModulesTheBuildCompiledPass) {
  for (const ShaderSource* s : {&shaders::test_fill::source(), &shaders::test_transpose::source(),
                                &shaders::test_reflect_sample::source(), &shaders::test_subgroup_sum::source(),
                                &shaders::test_textures::source(), &shaders::test_uses_float64::source(),
                                &shaders::test_big_workgroup::source()}) {
    EXPECT_NO_THROW(core::check_spirv_structure(s->spirv, s->entry_point, s->name)) << s->name;
  }
  EXPECT_EQ(structure_error(minimal_compute_module()), "");
}

TEST(SpirvStructure, EachRuleRefusesItsBrokenModule) {
  for (const testing::BrokenModule& m : broken_compute_modules()) {
    const std::string error = structure_error(m.words);
    EXPECT_NE(error.find(m.message), std::string::npos) << m.rule << ": " << error;
    EXPECT_EQ(error.rfind("create_compute_kernel: shader: probe: SPIR-V word ", 0), 0u) << m.rule << ": " << error;
  }
}

TEST(SpirvStructure, MessagesGiveTheWordOffset) {
  std::vector<uint32_t> w = minimal_compute_module();
  w[testing::kReturnWord] = spirv_instruction(1, 0);  // OpNop: the block has no terminator
  EXPECT_EQ(structure_error(w),
            "create_compute_kernel: shader: probe: SPIR-V word 34 (OpFunctionEnd): the block at word 31 has no "
            "termination instruction");
  w = minimal_compute_module();
  w[testing::kLabelWord + 1] = 9;
  EXPECT_EQ(structure_error(w),
            "create_compute_kernel: shader: probe: SPIR-V word 31 (OpLabel): result id 9 is outside the bound 5");
}

TEST(SpirvStructure, EntryPointIsLookedUpByName) {
  EXPECT_NE(structure_error(minimal_compute_module(), "other").find("'other' is not an entry point"),
            std::string::npos);
  const ShaderSource& fill = shaders::test_fill::source();
  EXPECT_THROW(core::check_spirv_structure(fill.spirv, "not_main"), KernelShapeError);
}

TEST(SpirvStructure, EveryTerminatorEndsABlock) {
  // OpReturn, OpKill, OpUnreachable, OpTerminateInvocation: one word each.
  for (uint32_t op : {253u, 252u, 255u, 4416u}) {
    std::vector<uint32_t> w = minimal_compute_module();
    w[testing::kReturnWord] = spirv_instruction(1, op);
    EXPECT_EQ(structure_error(w), "") << op;
  }
  // OpBranch %5 to a second block that returns.
  std::vector<uint32_t> w = minimal_compute_module();
  w[3] = 6;
  w[testing::kReturnWord] = spirv_instruction(2, 249);
  w.insert(w.begin() + testing::kReturnWord + 1, {5, spirv_instruction(2, 248), 5, spirv_instruction(1, 253)});
  EXPECT_EQ(structure_error(w), "");
}

TEST(SpirvStructure, SpirvVersionsOneZeroToOneSix) {
  std::vector<uint32_t> w = minimal_compute_module();
  for (uint32_t minor = 0; minor <= 6; ++minor) {
    w[1] = 0x00010000u | (minor << 8);
    EXPECT_EQ(structure_error(w), "") << minor;
  }
  w[1] = 0x00010700u;
  EXPECT_NE(structure_error(w).find("unsupported version 0x00010700"), std::string::npos);
}

TEST(SpirvStructure, GraphicsStagesPassForTheirStageOnly) {
  const ShaderSource& v = shaders::test_render_basic_vert::source();
  const ShaderSource& f = shaders::test_render_basic_frag::source();
  EXPECT_NO_THROW(core::check_spirv_structure(v.spirv, "main", v.name, ShaderStage::vertex));
  EXPECT_NO_THROW(core::check_spirv_structure(f.spirv, "main", f.name, ShaderStage::fragment));
  // A vertex module is no compute kernel, and a fragment module no vertex stage.
  EXPECT_NE(structure_error(std::vector<uint32_t>(v.spirv.begin(), v.spirv.end())).find("is not a GLCompute entry point"),
            std::string::npos);
  try {
    core::check_spirv_structure(f.spirv, "main", f.name, ShaderStage::vertex, "create_render_pipeline", "vertex");
    ADD_FAILURE() << "a fragment module passed as a vertex stage";
  } catch (const KernelShapeError& e) {
    EXPECT_EQ(e.operation(), "create_render_pipeline");
    EXPECT_EQ(e.argument(), "vertex");
    EXPECT_NE(std::string(e.what()).find("is not a Vertex entry point"), std::string::npos) << e.what();
  }
  // A truncated vertex module is refused before any driver sees it.
  std::vector<uint32_t> cut(v.spirv.begin(), v.spirv.end() - 3);
  EXPECT_THROW(core::check_spirv_structure(cut, "main", v.name, ShaderStage::vertex), KernelShapeError);
}

}  // namespace
}  // namespace onegpu
