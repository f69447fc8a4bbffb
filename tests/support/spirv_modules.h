// Small hand-assembled SPIR-V compute modules, and broken variants of them, one per structural
// rule the device checks before a module reaches the driver.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onegpu::testing {

inline uint32_t spirv_instruction(uint32_t words, uint32_t op) { return (words << 16) | op; }

// A valid module: `main`, GLCompute, LocalSize 1 1 1, one function of one block that returns.
// Ids: %1 main, %2 void, %3 function type, %4 the block.
inline std::vector<uint32_t> minimal_compute_module() {
  return {
      0x07230203u, 0x00010000u, 0, 5, 0,
      spirv_instruction(2, 17), 1,                          // OpCapability Shader
      spirv_instruction(3, 14), 0, 1,                       // OpMemoryModel Logical GLSL450
      spirv_instruction(5, 15), 5, 1, 0x6e69616du, 0,       // OpEntryPoint GLCompute %1 "main"
      spirv_instruction(6, 16), 1, 17, 1, 1, 1,             // OpExecutionMode %1 LocalSize 1 1 1
      spirv_instruction(2, 19), 2,                          // %2 = OpTypeVoid
      spirv_instruction(3, 33), 3, 2,                       // %3 = OpTypeFunction %2
      spirv_instruction(5, 54), 2, 1, 0, 3,                 // %1 = OpFunction %2 None %3
      spirv_instruction(2, 248), 4,                         // %4 = OpLabel
      spirv_instruction(1, 253),                            // OpReturn
      spirv_instruction(1, 56),                             // OpFunctionEnd
  };
}

// Word offsets in minimal_compute_module().
constexpr size_t kEntryPointWord = 10;
constexpr size_t kFunctionWord = 26;
constexpr size_t kLabelWord = 31;
constexpr size_t kReturnWord = 33;
constexpr size_t kFunctionEndWord = 34;

struct BrokenModule {
  std::string rule;        // what is wrong
  std::vector<uint32_t> words;
  std::string message;     // a part of the error message
};

// One module per structural rule, each failing only that rule.
inline std::vector<BrokenModule> broken_compute_modules() {
  const std::vector<uint32_t> ok = minimal_compute_module();
  std::vector<BrokenModule> out;
  auto edit = [&](std::string rule, std::string message, auto change) {
    std::vector<uint32_t> w = ok;
    change(w);
    out.push_back({std::move(rule), std::move(w), std::move(message)});
  };
  edit("empty", "less than a header", [](auto& w) { w.clear(); });
  edit("magic", "bad magic number", [](auto& w) { w[0] = 0x03022307u; });
  edit("version", "unsupported version", [](auto& w) { w[1] = 0x00020000u; });
  edit("bound zero", "id bound 0", [](auto& w) { w[3] = 0; });
  edit("bound huge", "id bound 4294967295", [](auto& w) { w[3] = 0xffffffffu; });
  edit("schema", "schema word", [](auto& w) { w[4] = 7; });
  edit("word count zero", "word count 0", [](auto& w) { w[kReturnWord] = spirv_instruction(0, 253); });
  edit("word count past the end", "run past the module's end",
       [](auto& w) { w[kFunctionEndWord] = spirv_instruction(9, 56); });
  edit("result id at the bound", "outside the bound", [](auto& w) { w[kLabelWord + 1] = 5; });
  edit("result id defined twice", "defined twice", [](auto& w) { w[kLabelWord + 1] = 3; });
  edit("no entry point of that name", "is not an entry point",
       [](auto& w) { w[kEntryPointWord + 3] = 0x6e69616eu; });  // "nain"
  edit("entry point not GLCompute", "is not a GLCompute entry point",
       [](auto& w) { w[kEntryPointWord + 1] = 0; });  // Vertex
  edit("entry point names no function", "no function of the module",
       [](auto& w) { w[kEntryPointWord + 2] = 3; });
  edit("entry point name unterminated", "not terminated",
       [](auto& w) {
         w[kEntryPointWord] = spirv_instruction(4, 15);  // the name's nul word becomes an OpNop
         w[kEntryPointWord + 4] = spirv_instruction(1, 0);
       });
  edit("nested function", "a function begins inside the function", [](auto& w) {
    // A second function inserted before the first one's OpFunctionEnd.
    const std::vector<uint32_t> inner = {spirv_instruction(5, 54), 2, 5, 0, 3, spirv_instruction(2, 248), 6,
                                         spirv_instruction(1, 253), spirv_instruction(1, 56)};
    w.insert(w.begin() + kFunctionEndWord, inner.begin(), inner.end());
    w[3] = 7;
  });
  edit("no OpFunctionEnd", "has no OpFunctionEnd", [](auto& w) { w.pop_back(); });
  edit("OpFunctionEnd outside a function", "no function is open",
       [](auto& w) { w.push_back(spirv_instruction(1, 56)); });
  edit("function without a block", "has no block", [](auto& w) {
    w.erase(w.begin() + kLabelWord, w.begin() + kFunctionEndWord);
  });
  edit("block without a terminator", "has no termination instruction",
       [](auto& w) { w[kReturnWord] = spirv_instruction(1, 0); });  // OpNop
  edit("block after a block without a terminator", "has no termination instruction", [](auto& w) {
    w[kReturnWord] = spirv_instruction(1, 0);
    const std::vector<uint32_t> next = {spirv_instruction(2, 248), 5, spirv_instruction(1, 253)};
    w.insert(w.begin() + kFunctionEndWord, next.begin(), next.end());
    w[3] = 6;
  });
  edit("instruction after the terminator", "outside any block",
       [](auto& w) { w.insert(w.begin() + kFunctionEndWord, spirv_instruction(1, 0)); });
  edit("block outside a function", "a block outside any function",
       [](auto& w) { w.insert(w.end(), {spirv_instruction(2, 248), 5, spirv_instruction(1, 253)}); w[3] = 6; });
  return out;
}

}  // namespace onegpu::testing
