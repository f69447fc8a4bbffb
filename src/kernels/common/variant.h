// A kernel family's variant table, generated from the family's one declaration
// (onegpu_variant() in its CMake file, see cmake/OnegpuShaders.cmake). A row names a variant the
// way a user reads it ("gemm.coopmat2.f16.128x256x32.b_nk.act"): the same string variant(),
// the benchmark rows and the docs print. Rows of variants the shader compiler could not build
// are present with no source, so selection can be unit-tested on every declared variant.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "onegpu/shader.h"

namespace onegpu::kernels {

// One integer configuration value of a variant, read from its defines (BM=128, ORIENT=1u, ACT).
struct VariantParam {
  std::string_view key;
  int64_t value;
};

struct VariantRow {
  std::string_view name;
  bool built;                       // false: the shader compiler lacks `requires_features`
  const ShaderSource& (*source)();  // nullptr when not built
  std::string_view defines;
  std::string_view requires_features;  // compiler features the declaration asked for ("COOPMAT2")
  uint32_t first_param, param_count;   // into the table's parameter list
  // From the compiled module's reflection (zero when not built).
  uint32_t shader_feature_bits;
  std::array<uint32_t, 3> local_size;
  uint32_t workgroup_memory_bytes;
  uint32_t push_constant_size;
  // The variant's WGSL is embedded beside its SPIR-V (declared WGSL and the build had naga).
  // False for a variant that cannot be expressed in WGSL: the WebGPU backend cannot run it.
  bool wgsl;
};

class VariantTable;

// A row together with its table (for its parameters).
class Variant {
 public:
  constexpr Variant(const VariantRow& row, std::span<const VariantParam> params) : row_(&row), params_(params) {}
  constexpr std::string_view name() const { return row_->name; }
  constexpr bool built() const { return row_->built; }
  const ShaderSource& source() const;  // throws UnsupportedError("shader_compiler") when not built
  constexpr std::string_view defines() const { return row_->defines; }
  constexpr FeatureSet shader_features() const { return FeatureSet::from_bits(row_->shader_feature_bits); }
  constexpr std::array<uint32_t, 3> local_size() const { return row_->local_size; }
  constexpr uint32_t invocations() const { return row_->local_size[0] * row_->local_size[1] * row_->local_size[2]; }
  constexpr uint32_t workgroup_memory_bytes() const { return row_->workgroup_memory_bytes; }
  constexpr uint32_t push_constant_size() const { return row_->push_constant_size; }
  constexpr bool has_wgsl() const { return row_->wgsl; }
  // The integer value of define `key`, or `fallback` when the variant does not define it.
  constexpr int64_t param(std::string_view key, int64_t fallback = -1) const {
    for (uint32_t i = 0; i < row_->param_count; ++i)
      if (params_[row_->first_param + i].key == key) return params_[row_->first_param + i].value;
    return fallback;
  }

 private:
  const VariantRow* row_;
  std::span<const VariantParam> params_;
};

class VariantTable {
 public:
  template <size_t R, size_t P>
  constexpr VariantTable(const VariantRow (&rows)[R], const VariantParam (&params)[P]) : rows_(rows), params_(params) {}

  constexpr size_t size() const { return rows_.size(); }
  constexpr Variant operator[](size_t i) const { return Variant(rows_[i], params_); }
  // Whether the family declares a variant called `name`, and whether it was built.
  constexpr bool has(std::string_view name) const { return index_of(name) < rows_.size(); }
  constexpr bool built(std::string_view name) const { return has(name) && rows_[index_of(name)].built; }
  // The variant called `name`; throws std::logic_error when the family declared no such variant
  // (a constant-evaluated call with a wrong name fails to compile).
  constexpr Variant at(std::string_view name) const {
    const size_t i = index_of(name);
    if (i >= rows_.size()) throw_unknown(name);
    return (*this)[i];
  }
  // Whether every built variant whose name starts with `prefix` declares a push-constant block of
  // `bytes` (for static_assert against the host's struct).
  constexpr bool push_constants_are(std::string_view prefix, uint32_t bytes) const {
    for (const VariantRow& r : rows_)
      if (r.name.starts_with(prefix) && r.built && r.push_constant_size != bytes) return false;
    return true;
  }

 private:
  constexpr size_t index_of(std::string_view name) const {
    for (size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i].name == name) return i;
    return rows_.size();
  }
  [[noreturn]] static void throw_unknown(std::string_view name);

  std::span<const VariantRow> rows_;
  std::span<const VariantParam> params_;
};

}  // namespace onegpu::kernels
