#include "core/spirv_structure.h"

#include <optional>
#include <vector>

#include "onegpu/errors.h"

namespace onegpu::core {
namespace {

constexpr uint32_t kMagic = 0x07230203u;
// The specification's universal limit on the id bound.
constexpr uint32_t kMaxBound = 4194303;
constexpr uint32_t kExecModelVertex = 0;
constexpr uint32_t kExecModelFragment = 4;
constexpr uint32_t kExecModelGLCompute = 5;

uint32_t execution_model(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::vertex: return kExecModelVertex;
    case ShaderStage::fragment: return kExecModelFragment;
    case ShaderStage::compute: return kExecModelGLCompute;
  }
  return kExecModelGLCompute;
}

const char* model_name(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::vertex: return "Vertex";
    case ShaderStage::fragment: return "Fragment";
    case ShaderStage::compute: return "GLCompute";
  }
  return "GLCompute";
}

enum Op : uint32_t {
  kOpLine = 8, kOpEntryPoint = 15, kOpFunction = 54, kOpFunctionParameter = 55, kOpFunctionEnd = 56,
  kOpLabel = 248, kOpBranch = 249, kOpBranchConditional = 250, kOpSwitch = 251, kOpKill = 252,
  kOpReturn = 253, kOpReturnValue = 254, kOpUnreachable = 255, kOpNoLine = 317,
  kOpTerminateInvocation = 4416, kOpIgnoreIntersectionKHR = 4448, kOpTerminateRayKHR = 4449,
  kOpEmitMeshTasksEXT = 5294,
};

bool is_terminator(uint32_t op) {
  switch (op) {
    case kOpBranch: case kOpBranchConditional: case kOpSwitch: case kOpKill: case kOpReturn:
    case kOpReturnValue: case kOpUnreachable: case kOpTerminateInvocation: case kOpIgnoreIntersectionKHR:
    case kOpTerminateRayKHR: case kOpEmitMeshTasksEXT:
      return true;
    default:
      return false;
  }
}

// The word (1 or 2) holding the result id of the instructions known here to define one; 0 for the
// others. Only instructions whose layout is certain are listed, so a valid module is never refused.
int result_word(uint32_t op) {
  if (op >= 19 && op <= 38) return 1;  // OpTypeVoid .. OpTypePipe
  if ((op >= 41 && op <= 46) || (op >= 48 && op <= 52) || (op >= 59 && op <= 61) || (op >= 65 && op <= 68) ||
      (op >= 77 && op <= 84) || (op >= 109 && op <= 124) || (op >= 126 && op <= 152) ||
      (op >= 154 && op <= 191) || (op >= 194 && op <= 205) || op == 227 || (op >= 229 && op <= 242) ||
      (op >= 333 && op <= 366))
    return 2;
  switch (op) {
    case 7: case 11: case 73: case kOpLabel: case 4456:  // OpString, OpExtInstImport,
      return 1;                                          // OpDecorationGroup, OpTypeCooperativeMatrixKHR
    case 1: case 12: case kOpFunction: case kOpFunctionParameter: case 57: case 70: case 86: case 245:
    case 4457: case 4459: case 4460:  // OpUndef, OpExtInst, OpFunctionCall, OpInBoundsPtrAccessChain,
      return 2;                       // OpSampledImage, OpPhi, OpCooperativeMatrix{Load,MulAdd,Length}KHR
    default:
      return 0;
  }
}

std::string op_name(uint32_t op) {
  switch (op) {
    case kOpEntryPoint: return "OpEntryPoint";
    case kOpFunction: return "OpFunction";
    case kOpFunctionParameter: return "OpFunctionParameter";
    case kOpFunctionEnd: return "OpFunctionEnd";
    case kOpLabel: return "OpLabel";
    case kOpReturn: return "OpReturn";
    case kOpBranch: return "OpBranch";
    default: return "opcode " + std::to_string(op);
  }
}

class StructureCheck {
 public:
  StructureCheck(std::span<const uint32_t> words, const std::string& entry_point, const std::string& name,
                 ShaderStage stage, const std::string& operation, const std::string& argument)
      : w_(words), entry_point_(entry_point), name_(name), stage_(stage), operation_(operation),
        argument_(argument) {}

  void run() {
    header();
    std::vector<bool> defined(bound_, false);
    std::vector<bool> is_function(bound_, false);
    // Word positions, 0 for none (word 0 is the header, never an instruction).
    size_t function_at = 0;  // the open OpFunction's word
    size_t block_at = 0;     // the open block's OpLabel
    size_t blocks = 0;
    std::optional<uint32_t> entry_function;
    std::optional<size_t> entry_at;
    bool entry_other_model = false;
    for (size_t pos = 5; pos < w_.size();) {
      const uint32_t count = w_[pos] >> 16, op = w_[pos] & 0xffffu;
      if (count == 0) fail(pos, op, "word count 0");
      if (count > w_.size() - pos)
        fail(pos, op, "the instruction's " + std::to_string(count) + " words run past the module's end (" +
                          std::to_string(w_.size()) + " words)");
      if (const int rw = result_word(op); rw != 0) {
        if (count <= static_cast<uint32_t>(rw)) fail(pos, op, "too short to hold its result id");
        const uint32_t id = w_[pos + rw];
        if (id == 0 || id >= bound_)
          fail(pos, op, "result id " + std::to_string(id) + " is outside the bound " + std::to_string(bound_));
        if (defined[id]) fail(pos, op, "result id " + std::to_string(id) + " is defined twice");
        defined[id] = true;
        if (op == kOpFunction) is_function[id] = true;
      }
      if (op == kOpEntryPoint) {
        if (count < 4) fail(pos, op, "too short");
        const std::optional<std::string> name = literal_string(pos + 3, pos + count);
        if (!name) fail(pos, op, "the entry point's name is not terminated inside the instruction");
        if (*name == entry_point_) {
          if (w_[pos + 1] == execution_model(stage_)) {
            if (!entry_function) { entry_function = w_[pos + 2]; entry_at = pos; }
          } else {
            entry_other_model = true;
          }
        }
      }
      if (op == kOpFunction) {
        if (function_at)
          fail(pos, op, "a function begins inside the function at word " + std::to_string(function_at) +
                            " (no OpFunctionEnd before it)");
        if (count != 5) fail(pos, op, "word count " + std::to_string(count) + ", expected 5");
        function_at = pos;
        blocks = 0;
      } else if (op == kOpFunctionEnd) {
        if (!function_at) fail(pos, op, "no function is open");
        if (block_at)
          fail(pos, op, "the block at word " + std::to_string(block_at) + " has no termination instruction");
        if (blocks == 0)
          fail(pos, op, "the function at word " + std::to_string(function_at) + " has no block (OpLabel)");
        function_at = 0;
      } else if (op == kOpLabel) {
        if (!function_at) fail(pos, op, "a block outside any function");
        if (block_at)
          fail(pos, op, "the block at word " + std::to_string(block_at) + " has no termination instruction");
        block_at = pos;
        ++blocks;
      } else if (function_at && op != kOpLine && op != kOpNoLine) {
        if (op == kOpFunctionParameter) {
          if (blocks != 0) fail(pos, op, "a parameter after the function's first block");
        } else if (!block_at) {
          fail(pos, op, blocks == 0 ? "an instruction before the function's first OpLabel"
                                    : "an instruction after a block's termination, outside any block");
        }
        if (is_terminator(op)) block_at = 0;
      }
      pos += count;
    }
    if (function_at)
      fail(w_.size(), 0, "the function at word " + std::to_string(function_at) + " has no OpFunctionEnd");
    if (!entry_function) {
      const std::string why = entry_other_model ? std::string("' is not a ") + model_name(stage_) + " entry point"
                                                : std::string("' is not an entry point of the module");
      fail(w_.size(), 0, "'" + entry_point_ + why);
    }
    if (*entry_function >= bound_ || !is_function[*entry_function])
      fail(*entry_at, kOpEntryPoint,
           "the entry point names %" + std::to_string(*entry_function) + ", which is no function of the module");
  }

 private:
  void header() {
    if (w_.size() < 5) fail(0, 0, "the module has " + std::to_string(w_.size()) + " words, less than a header");
    if (w_[0] != kMagic) fail(0, 0, "bad magic number " + hex(w_[0]));
    const uint32_t version = w_[1];
    if ((version & 0xff0000ffu) != 0 || (version >> 16) != 1 || ((version >> 8) & 0xff) > 6)
      fail(1, 0, "unsupported version " + hex(version) + " (SPIR-V 1.0 to 1.6)");
    bound_ = w_[3];
    if (bound_ == 0 || bound_ > kMaxBound)
      fail(3, 0, "id bound " + std::to_string(bound_) + " is outside 1.." + std::to_string(kMaxBound));
    if (w_[4] != 0) fail(4, 0, "schema word " + std::to_string(w_[4]) + " is not 0");
  }

  // The nul-terminated string from word `from`, or nothing when no nul comes before word `end`.
  std::optional<std::string> literal_string(size_t from, size_t end) const {
    std::string s;
    for (size_t i = from; i < end; ++i)
      for (int b = 0; b < 4; ++b) {
        const char c = static_cast<char>((w_[i] >> (8 * b)) & 0xffu);
        if (c == 0) return s;
        s.push_back(c);
      }
    return std::nullopt;
  }

  static std::string hex(uint32_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    for (int i = 7; i >= 0; --i) s.push_back(digits[(v >> (4 * i)) & 0xf]);
    return s;
  }

  [[noreturn]] void fail(size_t word, uint32_t op, const std::string& what) const {
    std::string where = "SPIR-V word " + std::to_string(word);
    if (word >= 5 && word < w_.size()) where += " (" + op_name(op) + ")";
    throw KernelShapeError(operation_, argument_, (name_.empty() ? "" : name_ + ": ") + where + ": " + what);
  }

  std::span<const uint32_t> w_;
  const std::string& entry_point_;
  const std::string& name_;
  ShaderStage stage_;
  const std::string& operation_;
  const std::string& argument_;
  uint32_t bound_ = 0;
};

}  // namespace

void check_spirv_structure(std::span<const uint32_t> words, const std::string& entry_point,
                           const std::string& shader_name, ShaderStage stage, const std::string& operation,
                           const std::string& argument) {
  StructureCheck(words, entry_point, shader_name, stage, operation, argument).run();
}

}  // namespace onegpu::core
