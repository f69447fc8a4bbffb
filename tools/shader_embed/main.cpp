// onegpu-shader-embed: turns one SPIR-V module into a C++ source and header.
//
//   onegpu-shader-embed <in.spv> <identifier> <out.cpp> <out.h> [label [--wgsl <in.wgsl> <webgpu.spv>]]
//
// With --wgsl, the WGSL text (translated from webgpu.spv, the same source compiled in the WebGPU
// dialect) is embedded as ShaderSource::wgsl once the two reflections agree: the same bindings,
// local size and workgroup memory, and the push-constant block a read-only storage buffer at
// binding 0 of the set after the highest one, as large as the SPIR-V's block.
//
// The header declares onegpu::shaders::<identifier>::source() and constexpr constants taken from
// the module's reflection (push-constant size and member offsets, local size, binding numbers),
// so host code can static_assert its own structs against what the shader really declares.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "onegpu/shader.h"

namespace {

std::string ident(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::vector<uint32_t> read_words(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0) return {};
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

// Why the WebGPU dialect's reflection `w` does not describe the same kernel as `r`; empty when it does.
std::string dialect_mismatch(const onegpu::ShaderReflection& r, const onegpu::ShaderReflection& w) {
  if (w.push_constant_size != 0) return "the WebGPU module still has push constants";
  if (w.local_size != r.local_size) return "the local sizes differ";
  if (w.workgroup_memory_bytes != r.workgroup_memory_bytes) return "the workgroup memory differs";
  uint32_t sets = 0;
  for (const auto& b : r.bindings) sets = std::max(sets, b.set + 1);
  size_t matched = 0;
  for (const auto& b : w.bindings) {
    if (r.push_constant_size != 0 && b.set == sets && b.binding == 0) {
      if (b.kind != onegpu::BindingKind::storage_buffer || !b.read_only)
        return "the push-constant block is not a read-only storage buffer";
      ++matched;
      continue;
    }
    bool found = false;
    for (const auto& a : r.bindings)
      found = found || (a.set == b.set && a.binding == b.binding && a.kind == b.kind && a.read_only == b.read_only);
    if (!found) return "binding " + std::to_string(b.set) + "." + std::to_string(b.binding) + " differs";
    ++matched;
  }
  const size_t expected = r.bindings.size() + (r.push_constant_size != 0 ? 1 : 0);
  if (matched != expected) return "the binding counts differ";
  return {};
}

std::string raw_literal(const std::string& text) {
  // A raw string literal, split so that no piece exceeds what compilers take in one literal.
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4096)
    out += "R\"ogwgsl(" + text.substr(i, 4096) + ")ogwgsl\"\n";
  return out.empty() ? "\"\"" : out;
}

bool write_if_changed(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::stringstream old;
    old << in.rdbuf();
    if (old.str() == text) return true;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6 && !(argc == 9 && std::strcmp(argv[6], "--wgsl") == 0)) {
    std::cerr << "usage: onegpu-shader-embed <in.spv> <identifier> <out.cpp> <out.h> [label [--wgsl <in.wgsl> <webgpu.spv>]]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4 != 0) {
    std::cerr << argv[1] << ": not a SPIR-V module\n";
    return 1;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  onegpu::ShaderReflection r;
  try {
    r = onegpu::reflect_spirv(words);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  const std::string id = argv[2];
  const std::string label = argc >= 6 ? argv[5] : id;  // the name kernels built from it carry
  std::string wgsl;
  if (argc == 9) {
    std::ifstream t(argv[7], std::ios::binary);
    std::stringstream ss;
    ss << t.rdbuf();
    wgsl = ss.str();
    const std::vector<uint32_t> web = read_words(argv[8]);
    std::string why = wgsl.empty() ? std::string(argv[7]) + " is empty" : web.empty() ? "not a SPIR-V module" : "";
    if (why.empty()) {
      try {
        why = dialect_mismatch(r, onegpu::reflect_spirv(web));
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    if (!why.empty()) {
      std::cerr << argv[8] << ": the WebGPU dialect's module does not match " << argv[1] << ": " << why << "\n";
      return 1;
    }
  }

  std::ostringstream h;
  h << "// Generated by onegpu-shader-embed from " << argv[1] << ". Do not edit.\n#pragma once\n"
    << "#include <cstdint>\n#include \"onegpu/shader.h\"\n\nnamespace onegpu::shaders::" << id
    << " {\n\nconst ShaderSource& source();\n\n"
    << "inline constexpr uint32_t kPushConstantSize = " << r.push_constant_size << ";\n"
    << "inline constexpr uint32_t kLocalSizeX = " << r.local_size[0] << ";\n"
    << "inline constexpr uint32_t kLocalSizeY = " << r.local_size[1] << ";\n"
    << "inline constexpr uint32_t kLocalSizeZ = " << r.local_size[2] << ";\n"
    << "inline constexpr uint32_t kBindingCount = " << r.bindings.size() << ";\n"
    << "inline constexpr uint32_t kWorkgroupMemoryBytes = " << r.workgroup_memory_bytes << ";\n"
    << "inline constexpr uint32_t kFeatureBits = " << r.features.bits() << "u;\n"
    << "inline constexpr bool kHasWgsl = " << (wgsl.empty() ? "false" : "true") << ";\n"
    << "inline constexpr ShaderStage kStage = ShaderStage::" << onegpu::shader_stage_name(r.stage) << ";\n";
  for (const auto& m : r.push_constants)
    h << "inline constexpr uint32_t kPushOffset_" << ident(m.name) << " = " << m.offset << ";\n";
  for (const auto& b : r.bindings)
    if (!b.name.empty())
      h << "inline constexpr uint32_t kBinding_" << ident(b.name) << " = " << b.binding << ";\n";
  h << "\n}  // namespace onegpu::shaders::" << id << "\n";

  std::ostringstream c;
  c << "// Generated by onegpu-shader-embed from " << argv[1] << ". Do not edit.\n"
    << "#include \"" << id << ".h\"\n\nnamespace onegpu::shaders::" << id << " {\nnamespace {\n"
    << "alignas(4) const uint32_t kWords[" << words.size() << "] = {";
  for (size_t i = 0; i < words.size(); ++i) {
    if (i % 8 == 0) c << "\n   ";
    char buf[16];
    std::snprintf(buf, sizeof buf, " 0x%08x,", words[i]);
    c << buf;
  }
  c << "\n};\n}  // namespace\n\nconst ShaderSource& source() {\n"
    << "  static const ShaderSource s = [] {\n    ShaderSource src;\n"
    << "    src.name = " << quoted(label) << ";\n    src.spirv = kWords;\n";
  if (!wgsl.empty())
    c << "    src.wgsl = " << raw_literal(wgsl) << ";\n"
      << "    src.wgsl_push_constants = WgslPushConstants::read_only_storage;\n";
  c
    << "    ShaderReflection& r = src.reflection;\n"
    << "    r.push_constant_size = " << r.push_constant_size << ";\n"
    << "    r.local_size = {" << r.local_size[0] << ", " << r.local_size[1] << ", "
    << r.local_size[2] << "};\n"
    << "    r.workgroup_memory_bytes = " << r.workgroup_memory_bytes << ";\n"
    << "    r.features = FeatureSet::from_bits(" << r.features.bits() << "u);\n"
    << "    r.spirv_version = " << r.spirv_version << "u;\n"
    << "    r.stage = ShaderStage::" << onegpu::shader_stage_name(r.stage) << ";\n"
    << "    r.writes_point_size = " << (r.writes_point_size ? "true" : "false") << ";\n";
  for (const auto* list : {&r.inputs, &r.outputs})
    for (const auto& v : *list)
      c << "    r." << (list == &r.inputs ? "inputs" : "outputs") << ".push_back({" << v.location
        << ", ComponentKind::" << (v.kind == onegpu::ComponentKind::float_ ? "float_" : onegpu::component_kind_name(v.kind))
        << ", " << v.bits << ", " << v.components << ", " << quoted(v.name) << ", " << v.matrix_column << "});\n";
  static const char* kTexel[] = {"float_", "uint_", "depth", "sint_"};
  for (const auto& b : r.bindings) {
    c << "    r.bindings.push_back({" << b.set << ", " << b.binding << ", "
      << "BindingKind::" << onegpu::binding_kind_name(b.kind)
      << ", " << (b.read_only ? "true" : "false") << ", " << quoted(b.name) << ", "
      << "TextureViewDimension::" << onegpu::view_dimension_name(b.view_dimension) << ", "
      << (b.multisampled ? "true" : "false") << ", TexelKind::" << kTexel[static_cast<int>(b.texel_kind)] << ", ";
    if (b.storage_format) c << "TextureFormat::" << onegpu::format_name(*b.storage_format);
    else c << "std::nullopt";
    c << ", " << (b.combined_sampler ? "true" : "false") << "});\n";
  }
  for (const auto& m : r.push_constants)
    c << "    r.push_constants.push_back({" << quoted(m.name) << ", " << m.offset << ", " << m.size
      << "});\n";
  c << "    return src;\n  }();\n  return s;\n}\n\n}  // namespace onegpu::shaders::" << id << "\n";

  if (!write_if_changed(argv[3], c.str()) || !write_if_changed(argv[4], h.str())) {
    std::cerr << "cannot write outputs\n";
    return 1;
  }
  return 0;
}
