// A small SPIR-V reader: enough reflection to build a compute or render pipeline and check it
// against a device. Used at build time by the shader embedder and at run time by reflect_spirv().
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "onegpu/shader.h"

namespace onegpu {
namespace {

enum Op : uint32_t {
  kOpName = 5, kOpMemberName = 6, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17,
  kOpTypeBool = 20, kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23, kOpTypeMatrix = 24,
  kOpTypeImage = 25, kOpTypeSampler = 26, kOpTypeSampledImage = 27, kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29, kOpTypeStruct = 30, kOpTypePointer = 32,
  kOpConstant = 43, kOpSpecConstant = 50, kOpVariable = 59, kOpStore = 62, kOpAccessChain = 65,
  kOpInBoundsAccessChain = 66, kOpDecorate = 71,
  kOpMemberDecorate = 72, kOpExecutionModeId = 331,
};
enum Decoration : uint32_t {
  kBlock = 2, kBufferBlock = 3, kArrayStride = 6, kMatrixStride = 7, kNonWritable = 24,
  kBuiltIn = 11, kLocation = 30, kBinding = 33, kDescriptorSet = 34, kOffset = 35,
};
enum StorageClass : uint32_t {
  kUniformConstant = 0, kInput = 1, kUniform = 2, kOutput = 3, kWorkgroup = 4, kPushConstant = 9,
  kStorageBuffer = 12,
};
constexpr uint32_t kBuiltInPointSize = 1;
constexpr uint32_t kExecModelVertex = 0;
constexpr uint32_t kExecModelFragment = 4;
constexpr uint32_t kExecModelGLCompute = 5;
// Locations a stage can use; more only in a malformed module.
constexpr uint32_t kMaxLocations = 64;

std::optional<ShaderStage> stage_of(uint32_t model) {
  switch (model) {
    case kExecModelVertex: return ShaderStage::vertex;
    case kExecModelFragment: return ShaderStage::fragment;
    case kExecModelGLCompute: return ShaderStage::compute;
    default: return std::nullopt;
  }
}
constexpr uint32_t kDim2D = 1, kDim3D = 2, kDimCube = 3;
constexpr uint32_t kModeLocalSize = 17;
constexpr uint32_t kModeLocalSizeId = 38;

struct Type {
  uint32_t op = 0;
  std::vector<uint32_t> operands;  // words after the result id
  uint32_t operand(size_t i) const {
    if (i >= operands.size()) throw std::invalid_argument("SPIR-V: type instruction too short");
    return operands[i];
  }
};

// Types nest deeper than this only in malformed (self-referential) modules.
constexpr int kMaxTypeDepth = 64;

std::string read_string(std::span<const uint32_t> words, size_t& consumed) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((words[i] >> (8 * b)) & 0xff);
      if (c == 0) { consumed = i + 1; return s; }
      s.push_back(c);
    }
  }
  throw std::invalid_argument("SPIR-V: unterminated string");
}

FeatureSet capability_features(uint32_t cap) {
  using F = ShaderFeature;
  switch (cap) {
    case 9: return F::float16;
    case 10: return F::float64;
    case 11: return F::int64;
    case 22: return F::int16;
    case 39: return F::int8;
    case 4433: case 4434: return F::storage_buffer_16bit;
    case 4448: case 4449: return F::storage_buffer_8bit;
    case 61: return F::subgroup_basic;
    case 62: return F::subgroup_vote;
    case 63: return F::subgroup_arithmetic;
    case 64: return F::subgroup_ballot;
    case 65: return F::subgroup_shuffle;
    case 66: return F::subgroup_shuffle_relative;
    case 67: return F::subgroup_clustered;
    case 68: return F::subgroup_quad;
    case 6016: case 6017: case 6018: case 6019: return F::integer_dot_product;
    case 6022: return FeatureSet(F::cooperative_matrix) | F::full_subgroups;
    case 5430: case 5431: case 5432: case 5433: case 5434: case 5439: return F::cooperative_matrix2;
    case 5116: case 5117: case 5118: return F::bfloat16;
    default: return {};
  }
}

class Reader {
 public:
  explicit Reader(std::span<const uint32_t> w) : words_(w) {}

  ShaderReflection run(const std::string& entry_point) {
    if (words_.size() < 5 || words_[0] != 0x07230203u)
      throw std::invalid_argument("SPIR-V: not a SPIR-V module (bad magic number)");
    ShaderReflection r;
    r.spirv_version = words_[1];
    std::optional<uint32_t> entry_id;
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> modes;  // (entry, operands)
    std::vector<uint32_t> mode_ids;                                 // LocalSizeId operands
    for (size_t pos = 5; pos < words_.size();) {
      uint32_t head = words_[pos];
      uint32_t count = head >> 16, op = head & 0xffff;
      if (count == 0 || pos + count > words_.size())
        throw std::invalid_argument("SPIR-V: truncated instruction");
      const std::span<const uint32_t> a = words_.subspan(pos + 1, count - 1);
      // Operand i, or an error for an instruction too short to have it.
      auto at = [&a](size_t i) {
        if (i >= a.size()) throw std::invalid_argument("SPIR-V: instruction too short");
        return a[i];
      };
      auto rest = [&a, &at](size_t i) { at(i); return a.subspan(i); };
      switch (op) {
        case kOpCapability: r.features |= capability_features(at(0)); break;
        case kOpEntryPoint: {
          size_t n = 0;
          std::string name = read_string(rest(2), n);
          const std::optional<ShaderStage> stage = stage_of(at(0));
          if (stage && name == entry_point && !entry_id) {
            entry_id = at(1);
            r.stage = *stage;
            const std::span<const uint32_t> ids = a.subspan(2 + n);
            interface_.assign(ids.begin(), ids.end());
          }
          break;
        }
        case kOpExecutionMode:
          if (at(1) == kModeLocalSize) modes.push_back({at(0), {at(2), at(3), at(4)}});
          break;
        case kOpExecutionModeId:
          if (at(1) == kModeLocalSizeId) modes.push_back({at(0) | 0x80000000u, {at(2), at(3), at(4)}});
          break;
        case kOpName: { size_t n = 0; names_[at(0)] = read_string(rest(1), n); break; }
        case kOpMemberName: {
          size_t n = 0;
          member_names_[{at(0), at(1)}] = read_string(rest(2), n);
          break;
        }
        case kOpDecorate:
          decorations_[at(0)][at(1)] = a.size() > 2 ? at(2) : 1;
          break;
        case kOpMemberDecorate:
          member_decorations_[{at(0), at(1)}][at(2)] = a.size() > 3 ? at(3) : 1;
          break;
        case kOpTypeBool: case kOpTypeInt: case kOpTypeFloat: case kOpTypeVector:
        case kOpTypeMatrix: case kOpTypeArray: case kOpTypeRuntimeArray: case kOpTypeStruct:
        case kOpTypePointer: case kOpTypeImage: case kOpTypeSampler: case kOpTypeSampledImage:
          types_[at(0)] = Type{op, std::vector<uint32_t>(rest(0).begin() + 1, a.end())};
          break;
        case kOpConstant: case kOpSpecConstant:
          if (a.size() >= 3) constants_[at(1)] = at(2);
          break;
        case kOpVariable: variables_.push_back({at(1), at(0), at(2)}); break;
        case kOpAccessChain: case kOpInBoundsAccessChain:
          if (a.size() >= 4) chains_[at(1)] = {at(2), at(3)};
          break;
        case kOpStore: stores_.push_back(at(0)); break;
        default: break;
      }
      pos += count;
    }
    if (!entry_id)
      throw std::invalid_argument("SPIR-V: no compute, vertex or fragment entry point named '" + entry_point + "'");
    for (auto& [id, ops] : modes) {
      if ((id & 0x7fffffffu) != *entry_id) continue;
      for (int i = 0; i < 3; ++i)
        r.local_size[i] = (id & 0x80000000u) ? constant(ops[i]) : ops[i];
    }
    collect_variables(r);
    if (r.stage != ShaderStage::compute) collect_interface(r);
    if (r.stage == ShaderStage::vertex) r.writes_point_size = stores_point_size();
    return r;
  }

 private:
  struct Variable { uint32_t id, pointer_type, storage; };

  uint32_t constant(uint32_t id) const {
    auto it = constants_.find(id);
    if (it == constants_.end()) throw std::invalid_argument("SPIR-V: unknown constant");
    return it->second;
  }
  std::optional<uint32_t> decoration(uint32_t id, uint32_t d) const {
    auto it = decorations_.find(id);
    if (it == decorations_.end()) return std::nullopt;
    auto jt = it->second.find(d);
    if (jt == it->second.end()) return std::nullopt;
    return jt->second;
  }
  std::optional<uint32_t> member_decoration(uint32_t type, uint32_t m, uint32_t d) const {
    auto it = member_decorations_.find({type, m});
    if (it == member_decorations_.end()) return std::nullopt;
    auto jt = it->second.find(d);
    if (jt == it->second.end()) return std::nullopt;
    return jt->second;
  }
  const Type& type(uint32_t id) const {
    auto it = types_.find(id);
    if (it == types_.end()) throw std::invalid_argument("SPIR-V: unknown type");
    return it->second;
  }

  // Size in bytes of a type as laid out (explicit offsets and strides where decorated).
  // Memoized: a malformed module can share one type many times at every level.
  uint64_t size_of(uint32_t id, int depth = 0) const {
    if (depth > kMaxTypeDepth) throw std::invalid_argument("SPIR-V: types nest too deep (a cycle?)");
    if (auto it = sizes_.find(id); it != sizes_.end()) return it->second;
    const uint64_t size = compute_size(id, depth);
    sizes_[id] = size;
    return size;
  }
  uint64_t compute_size(uint32_t id, int depth) const {
    const Type& t = type(id);
    switch (t.op) {
      case kOpTypeBool: return 4;
      case kOpTypeInt: case kOpTypeFloat: return t.operand(0) / 8;
      case kOpTypeVector: return size_of(t.operand(0), depth + 1) * t.operand(1);
      case kOpTypeMatrix: return size_of(t.operand(0), depth + 1) * t.operand(1);
      case kOpTypeArray: {
        uint64_t stride = decoration(id, kArrayStride).value_or(
            static_cast<uint32_t>(size_of(t.operand(0), depth + 1)));
        return stride * constant(t.operand(1));
      }
      case kOpTypeRuntimeArray: return 0;
      case kOpTypeStruct: {
        uint64_t end = 0, running = 0;
        for (uint32_t m = 0; m < t.operands.size(); ++m) {
          uint64_t sz = size_of(t.operands[m], depth + 1);
          uint64_t off = member_decoration(id, m, kOffset).value_or(static_cast<uint32_t>(running));
          running = off + sz;
          end = std::max(end, off + sz);
        }
        return end;
      }
      default: return 0;
    }
  }

  // The entry point's user-defined Input and Output variables, one entry per location.
  void collect_interface(ShaderReflection& r) const {
    const std::unordered_set<uint32_t> listed(interface_.begin(), interface_.end());
    for (const Variable& v : variables_) {
      if ((v.storage != kInput && v.storage != kOutput) || !listed.count(v.id)) continue;
      if (decoration(v.id, kBuiltIn)) continue;
      const uint32_t pointee = type(v.pointer_type).operand(1);
      if (is_builtin_block(pointee)) continue;
      auto it = names_.find(v.id);
      const std::string name = it != names_.end() ? it->second : std::string();
      uint32_t location = decoration(v.id, kLocation).value_or(0);
      flatten(pointee, location, name, v.storage == kInput ? r.inputs : r.outputs, 0);
    }
    for (auto* list : {&r.inputs, &r.outputs})
      std::sort(list->begin(), list->end(),
                [](const StageVariable& x, const StageVariable& y) { return x.location < y.location; });
  }

  // A store to a variable decorated PointSize, or through an access chain to the PointSize member
  // of an output block (gl_PerVertex, declared whether or not the shader writes it).
  bool stores_point_size() const {
    std::unordered_map<uint32_t, uint32_t> pointee_of;  // Output variables
    for (const Variable& v : variables_)
      if (v.storage == kOutput) pointee_of[v.id] = type(v.pointer_type).operand(1);
    for (uint32_t target : stores_) {
      if (decoration(target, kBuiltIn) == kBuiltInPointSize && pointee_of.count(target)) return true;
      auto chain = chains_.find(target);
      if (chain == chains_.end()) continue;
      auto var = pointee_of.find(chain->second.first);
      if (var == pointee_of.end()) continue;
      auto member = constants_.find(chain->second.second);
      if (member != constants_.end() &&
          member_decoration(var->second, member->second, kBuiltIn) == kBuiltInPointSize)
        return true;
    }
    return false;
  }

  bool is_builtin_block(uint32_t id) const {
    for (int depth = 0; type(id).op == kOpTypeArray || type(id).op == kOpTypeRuntimeArray; ++depth) {
      if (depth > kMaxTypeDepth) throw std::invalid_argument("SPIR-V: arrays nest too deep (a cycle?)");
      id = type(id).operand(0);
    }
    const Type& t = type(id);
    if (t.op != kOpTypeStruct) return false;
    for (uint32_t m = 0; m < t.operands.size(); ++m)
      if (member_decoration(id, m, kBuiltIn)) return true;
    return false;
  }

  // Appends the locations a variable of type `id` takes, from `location` on.
  void flatten(uint32_t id, uint32_t& location, const std::string& name, std::vector<StageVariable>& out,
               int depth) const {
    if (depth > kMaxTypeDepth) throw std::invalid_argument("SPIR-V: types nest too deep (a cycle?)");
    if (location >= kMaxLocations)
      throw std::invalid_argument("SPIR-V: interface location " + std::to_string(location) + " is past " +
                                  std::to_string(kMaxLocations));
    const Type& t = type(id);
    switch (t.op) {
      case kOpTypeInt: case kOpTypeFloat: case kOpTypeVector: {
        const Type& scalar = t.op == kOpTypeVector ? type(t.operand(0)) : t;
        StageVariable s;
        s.location = location++;
        s.components = t.op == kOpTypeVector ? t.operand(1) : 1;
        s.bits = scalar.operand(0);
        if (scalar.op == kOpTypeFloat) s.kind = ComponentKind::float_;
        else if (scalar.op == kOpTypeInt) s.kind = scalar.operand(1) ? ComponentKind::sint : ComponentKind::uint;
        else throw std::invalid_argument("SPIR-V: an interface vector of neither integers nor floats");
        s.name = name;
        out.push_back(s);
        return;
      }
      case kOpTypeMatrix: case kOpTypeArray: {
        const uint64_t n = t.op == kOpTypeMatrix ? t.operand(1) : constant(t.operand(1));
        if (n > kMaxLocations) throw std::invalid_argument("SPIR-V: interface array too long");
        for (uint64_t i = 0; i < n; ++i) {
          flatten(t.operand(0), location, name, out, depth + 1);
          if (t.op == kOpTypeMatrix) out.back().matrix_column = static_cast<uint32_t>(i);  // a column is a vector
        }
        return;
      }
      case kOpTypeStruct:
        for (uint32_t m = 0; m < t.operands.size(); ++m) {
          if (auto l = member_decoration(id, m, kLocation)) location = *l;
          auto it = member_names_.find({id, m});
          flatten(t.operands[m], location, it != member_names_.end() ? it->second : name, out, depth + 1);
        }
        return;
      default:
        throw std::invalid_argument("SPIR-V: an interface variable of an unsupported type");
    }
  }

  // View dimension, sample count, texel kind and storage format of an OpTypeImage.
  void describe_image(const Type& image, ShaderBinding& b) const {
    if (image.op != kOpTypeImage) throw std::invalid_argument("SPIR-V: sampled image of a non-image type");
    const uint32_t dim = image.operand(1), depth = image.operand(2), arrayed = image.operand(3);
    using V = TextureViewDimension;
    if (dim == kDim2D) b.view_dimension = arrayed == 1 ? V::d2_array : V::d2;
    else if (dim == kDimCube) b.view_dimension = arrayed == 1 ? V::other : V::cube;
    else if (dim == kDim3D) b.view_dimension = arrayed == 1 ? V::other : V::d3;
    else b.view_dimension = V::other;
    b.multisampled = image.operand(4) == 1;
    const Type& sampled = type(image.operand(0));
    if (depth == 1) b.texel_kind = TexelKind::depth;
    else if (sampled.op == kOpTypeInt) b.texel_kind = sampled.operand(1) == 1 ? TexelKind::sint_ : TexelKind::uint_;
    else b.texel_kind = TexelKind::float_;
    if (image.operand(5) == 2) b.storage_format = storage_format(image.operand(6));
  }

  // SPIR-V Image Format codes the library has a TextureFormat for.
  static std::optional<TextureFormat> storage_format(uint32_t code) {
    switch (code) {
      case 1: return TextureFormat::rgba32_float;   // Rgba32f
      case 2: return TextureFormat::rgba16_float;   // Rgba16f
      case 3: return TextureFormat::r32_float;      // R32f
      case 4: return TextureFormat::rgba8_unorm;    // Rgba8
      case 9: return TextureFormat::r16_float;      // R16f
      case 13: return TextureFormat::rg8_unorm;     // Rg8
      case 15: return TextureFormat::r8_unorm;      // R8
      case 33: return TextureFormat::r32_uint;      // R32ui
      default: return std::nullopt;
    }
  }

  void collect_variables(ShaderReflection& r) const {
    for (const Variable& v : variables_) {
      const Type& ptr = type(v.pointer_type);
      uint32_t pointee = ptr.operand(1);
      if (v.storage == kWorkgroup) {
        r.workgroup_memory_bytes += static_cast<uint32_t>(size_of(pointee));
      } else if (v.storage == kPushConstant) {
        r.push_constant_size = static_cast<uint32_t>(size_of(pointee));
        const Type& st = type(pointee);
        for (uint32_t m = 0; m < st.operands.size(); ++m) {
          PushConstantMember pm;
          auto it = member_names_.find({pointee, m});
          pm.name = it != member_names_.end() ? it->second : "m" + std::to_string(m);
          pm.offset = member_decoration(pointee, m, kOffset).value_or(0);
          pm.size = static_cast<uint32_t>(size_of(st.operands[m]));
          r.push_constants.push_back(pm);
        }
      } else if (v.storage == kStorageBuffer || v.storage == kUniform) {
        ShaderBinding b;
        b.set = decoration(v.id, kDescriptorSet).value_or(0);
        b.binding = decoration(v.id, kBinding).value_or(0);
        uint32_t block = pointee;
        for (int depth = 0; type(block).op == kOpTypeArray || type(block).op == kOpTypeRuntimeArray; ++depth) {
          if (depth > kMaxTypeDepth) throw std::invalid_argument("SPIR-V: arrays nest too deep (a cycle?)");
          block = type(block).operand(0);
        }
        bool buffer_block = decoration(block, kBufferBlock).has_value();
        b.kind = (v.storage == kStorageBuffer || buffer_block) ? BindingKind::storage_buffer
                                                                : BindingKind::uniform_buffer;
        bool ro = decoration(v.id, kNonWritable).has_value();
        if (!ro) {
          const Type& st = type(block);
          ro = st.op == kOpTypeStruct && !st.operands.empty();
          for (uint32_t m = 0; ro && m < st.operands.size(); ++m)
            ro = member_decoration(block, m, kNonWritable).has_value();
        }
        b.read_only = ro || b.kind == BindingKind::uniform_buffer;
        auto it = names_.find(v.id);
        b.name = it != names_.end() ? it->second : std::string();
        r.bindings.push_back(b);
      } else if (v.storage == kUniformConstant) {
        uint32_t t = pointee;
        for (int depth = 0; type(t).op == kOpTypeArray || type(t).op == kOpTypeRuntimeArray; ++depth) {
          if (depth > kMaxTypeDepth) throw std::invalid_argument("SPIR-V: arrays nest too deep (a cycle?)");
          t = type(t).operand(0);
        }
        const Type& ty = type(t);
        ShaderBinding b;
        b.set = decoration(v.id, kDescriptorSet).value_or(0);
        b.binding = decoration(v.id, kBinding).value_or(0);
        if (ty.op == kOpTypeSampler) {
          b.kind = BindingKind::sampler;
        } else if (ty.op == kOpTypeSampledImage) {
          b.kind = BindingKind::sampled_texture;
          b.combined_sampler = true;
          describe_image(type(ty.operand(0)), b);
        } else if (ty.op == kOpTypeImage) {
          // Operands: sampled type, Dim, Depth, Arrayed, MS, Sampled (1: sampled, 2: storage).
          b.kind = ty.operand(5) == 2 ? BindingKind::storage_texture : BindingKind::sampled_texture;
          describe_image(ty, b);
        } else {
          continue;  // not a resource (acceleration structures and the like are not read)
        }
        b.read_only = b.kind != BindingKind::storage_texture || decoration(v.id, kNonWritable).has_value();
        auto it = names_.find(v.id);
        b.name = it != names_.end() ? it->second : std::string();
        r.bindings.push_back(b);
      }
    }
    std::sort(r.bindings.begin(), r.bindings.end(), [](const ShaderBinding& x, const ShaderBinding& y) {
      return std::pair(x.set, x.binding) < std::pair(y.set, y.binding);
    });
    // Several blocks may alias one binding (different views of the same buffer): one entry,
    // read-only only if every view is.
    std::vector<ShaderBinding> merged;
    for (ShaderBinding& b : r.bindings) {
      if (!merged.empty() && merged.back().set == b.set && merged.back().binding == b.binding) {
        merged.back().read_only = merged.back().read_only && b.read_only;
        continue;
      }
      merged.push_back(std::move(b));
    }
    r.bindings = std::move(merged);
  }

  std::span<const uint32_t> words_;
  std::unordered_map<uint32_t, std::string> names_;
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names_;
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, uint32_t>> decorations_;
  std::map<std::pair<uint32_t, uint32_t>, std::unordered_map<uint32_t, uint32_t>> member_decorations_;
  std::unordered_map<uint32_t, Type> types_;
  std::unordered_map<uint32_t, uint32_t> constants_;
  mutable std::unordered_map<uint32_t, uint64_t> sizes_;  // size_of results
  std::vector<Variable> variables_;
  std::vector<uint32_t> interface_;  // the entry point's interface ids
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> chains_;  // access chain: (base, first index)
  std::vector<uint32_t> stores_;  // pointers stored to
};

}  // namespace

ShaderReflection reflect_spirv(std::span<const uint32_t> words, const std::string& entry_point) {
  return Reader(words).run(entry_point);
}

const char* shader_stage_name(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::compute: return "compute";
    case ShaderStage::vertex: return "vertex";
    case ShaderStage::fragment: return "fragment";
  }
  return "compute";
}

const char* component_kind_name(ComponentKind kind) {
  switch (kind) {
    case ComponentKind::float_: return "float";
    case ComponentKind::sint: return "sint";
    case ComponentKind::uint: return "uint";
  }
  return "float";
}

const char* binding_kind_name(BindingKind kind) {
  switch (kind) {
    case BindingKind::storage_buffer: return "storage_buffer";
    case BindingKind::uniform_buffer: return "uniform_buffer";
    case BindingKind::sampled_texture: return "sampled_texture";
    case BindingKind::storage_texture: return "storage_texture";
    case BindingKind::sampler: return "sampler";
  }
  return "storage_buffer";
}

const char* view_dimension_name(TextureViewDimension d) {
  switch (d) {
    case TextureViewDimension::none: return "none";
    case TextureViewDimension::d2: return "d2";
    case TextureViewDimension::d2_array: return "d2_array";
    case TextureViewDimension::cube: return "cube";
    case TextureViewDimension::d3: return "d3";
    case TextureViewDimension::other: return "other";
  }
  return "other";
}

const char* feature_name(ShaderFeature f) {
  switch (f) {
    case ShaderFeature::float16: return "float16";
    case ShaderFeature::float64: return "float64";
    case ShaderFeature::int8: return "int8";
    case ShaderFeature::int16: return "int16";
    case ShaderFeature::int64: return "int64";
    case ShaderFeature::storage_buffer_8bit: return "storage_buffer_8bit";
    case ShaderFeature::storage_buffer_16bit: return "storage_buffer_16bit";
    case ShaderFeature::integer_dot_product: return "integer_dot_product";
    case ShaderFeature::bfloat16: return "bfloat16";
    case ShaderFeature::cooperative_matrix: return "cooperative_matrix";
    case ShaderFeature::full_subgroups: return "full_subgroups";
    case ShaderFeature::subgroup_basic: return "subgroup_basic";
    case ShaderFeature::subgroup_vote: return "subgroup_vote";
    case ShaderFeature::subgroup_arithmetic: return "subgroup_arithmetic";
    case ShaderFeature::subgroup_ballot: return "subgroup_ballot";
    case ShaderFeature::subgroup_shuffle: return "subgroup_shuffle";
    case ShaderFeature::subgroup_shuffle_relative: return "subgroup_shuffle_relative";
    case ShaderFeature::subgroup_clustered: return "subgroup_clustered";
    case ShaderFeature::subgroup_quad: return "subgroup_quad";
    case ShaderFeature::cooperative_matrix2: return "cooperative_matrix2";
  }
  return "unknown";
}

std::string FeatureSet::to_string() const {
  std::string s;
  for (uint32_t bit = 1; bit != 0 && bit <= bits_; bit <<= 1) {
    if (!(bits_ & bit)) continue;
    if (!s.empty()) s += ", ";
    s += feature_name(static_cast<ShaderFeature>(bit));
  }
  return s.empty() ? "none" : s;
}

}  // namespace onegpu
