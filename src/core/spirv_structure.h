// The structure of a SPIR-V module, checked before any module reaches the driver: a driver handed
// a malformed module may crash or hang rather than fail cleanly.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "onegpu/shader.h"

namespace onegpu::core {

// Checks, in one pass over the words:
// - the header: the magic number, a version 1.0 to 1.6, an id bound above 0, schema 0;
// - every instruction's word count is at least 1 and ends inside the module;
// - every result id of the instructions that define one is below the bound, and defined once;
// - an OpEntryPoint named `entry_point` exists, uses the execution model of `stage` (GLCompute,
//   Vertex or Fragment) and names a function the module defines;
// - functions do not nest: each OpFunction has its OpFunctionEnd before the next OpFunction;
// - each function has at least one block, and every block ends with a termination instruction
//   (OpReturn, OpReturnValue, OpBranch, OpBranchConditional, OpSwitch, OpKill, OpUnreachable,
//   OpTerminateInvocation, ...) before the next OpLabel or OpFunctionEnd.
// This is no full validator (types, dominance and decorations are the driver's concern); it
// refuses what a driver's parser cannot be trusted with. Throws KernelShapeError with `operation`
// and `argument` ("create_compute_kernel" and "shader" by default; a render pipeline passes
// "create_render_pipeline" and "vertex" or "fragment"), the message naming the rule and the word
// offset: "create_compute_kernel: shader: fill: SPIR-V word 83 (OpLabel): ...".
void check_spirv_structure(std::span<const uint32_t> words, const std::string& entry_point,
                           const std::string& shader_name = {}, ShaderStage stage = ShaderStage::compute,
                           const std::string& operation = "create_compute_kernel",
                           const std::string& argument = "shader");

}  // namespace onegpu::core
