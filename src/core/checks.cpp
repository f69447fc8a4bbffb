#include "core/checks.h"

#include <bit>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::core {
namespace {

std::string str(uint64_t v) { return std::to_string(v); }

}  // namespace

KernelPlan plan_kernel(const ShaderReflection& r, const KernelOptions& o, const ComputeCapabilities& c) {
  static const char* kAxis[3] = {"max_workgroup_size_x", "max_workgroup_size_y", "max_workgroup_size_z"};
  if (r.stage != ShaderStage::compute)
    throw KernelShapeError("create_compute_kernel", "shader",
                           std::string("a ") + shader_stage_name(r.stage) + " shader, not a compute shader");
  uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    if (r.local_size[i] == 0 || r.local_size[i] > c.max_workgroup_size[i])
      throw UnsupportedError(kAxis[i], str(r.local_size[i]), str(c.max_workgroup_size[i]));
    invocations *= r.local_size[i];
  }
  if (invocations > c.max_workgroup_invocations)
    throw UnsupportedError("max_workgroup_invocations", str(invocations), str(c.max_workgroup_invocations));
  if (r.workgroup_memory_bytes > c.max_workgroup_memory_bytes)
    throw UnsupportedError("max_workgroup_memory_bytes", str(r.workgroup_memory_bytes),
                           str(c.max_workgroup_memory_bytes));
  if (r.push_constant_size > c.max_push_constants_bytes)
    throw UnsupportedError("max_push_constants_bytes", str(r.push_constant_size), str(c.max_push_constants_bytes));

  for (const ShaderBinding& b : r.bindings) {
    if (b.set != 0) throw UnsupportedError("descriptor_sets", "bindings in set 0", "set " + str(b.set));
    if (b.kind == BindingKind::sampled_texture || b.kind == BindingKind::storage_texture) {
      if (b.view_dimension == TextureViewDimension::none || b.view_dimension == TextureViewDimension::other)
        throw UnsupportedError("texture_view_dimension", "binding " + str(b.binding) + ": d2, d2_array, cube or d3",
                               view_dimension_name(b.view_dimension));
      if (b.kind == BindingKind::storage_texture && !b.storage_format)
        throw UnsupportedError("storage_texture_format",
                               "binding " + str(b.binding) + ": rgba8, rgba16f, rgba32f, r32f, r16f, r8, rg8 or r32ui",
                               "another format (or none)");
      if (b.texel_kind == TexelKind::sint_)
        throw UnsupportedError("texture_texel_kind", "binding " + str(b.binding) + ": float, uint or depth", "sint");
    }
  }

  FeatureSet needed = r.features - ShaderFeature::full_subgroups;
  FeatureSet missing = needed - c.features;
  if (!missing.empty()) {
    for (uint32_t bit = 1; bit != 0; bit <<= 1)
      if (missing.bits() & bit)
        throw UnsupportedError(feature_name(static_cast<ShaderFeature>(bit)), "supported", "not supported");
  }

  KernelPlan plan;
  plan.full_subgroups = o.require_full_subgroups || r.features.has(ShaderFeature::full_subgroups);
  const uint32_t s = o.required_subgroup_size;
  if (s != 0) {
    bool fixed = c.min_subgroup_size == c.max_subgroup_size;
    std::string offered = fixed ? "fixed " + str(c.max_subgroup_size)
                                : str(c.min_subgroup_size) + ".." + str(c.max_subgroup_size);
    if (!std::has_single_bit(s))
      throw UnsupportedError("required_subgroup_size", str(s), offered);
    if (fixed) {
      if (s != c.max_subgroup_size) throw UnsupportedError("required_subgroup_size", str(s), offered);
    } else {
      if (!c.subgroup_size_control)
        throw UnsupportedError("required_subgroup_size", str(s), "no subgroup size control");
      if (s < c.min_subgroup_size || s > c.max_subgroup_size)
        throw UnsupportedError("required_subgroup_size", str(s), offered);
      if (invocations > uint64_t(s) * c.max_workgroup_subgroups)
        throw UnsupportedError("max_workgroup_subgroups", str((invocations + s - 1) / s),
                               str(c.max_workgroup_subgroups));
      plan.pinned_subgroup_size = s;
    }
  }
  if (plan.full_subgroups) {
    if (!c.full_subgroups) throw UnsupportedError("full_subgroups", "supported", "not supported");
    uint32_t width = s != 0 ? s : c.max_subgroup_size;
    if (width == 0 || r.local_size[0] % width != 0)
      throw UnsupportedError("full_subgroups", "workgroup width a multiple of " + str(width),
                             str(r.local_size[0]));
  }
  return plan;
}

void check_range(const char* operation, const char* argument, uint64_t offset, uint64_t bytes, uint64_t size) {
  if (offset > size || bytes > size - offset)
    throw KernelShapeError(operation, argument,
                           "range [" + str(offset) + ", " + str(offset) + " + " + str(bytes) +
                               ") is outside the buffer of " + str(size) + " bytes");
}

void check_bindings(const ShaderReflection& r, std::span<BindingRange> ranges, const ComputeCapabilities& c) {
  if (ranges.size() != r.bindings.size())
    throw KernelShapeError("bind", "buffers",
                           str(ranges.size()) + " buffers given, the kernel has " + str(r.bindings.size()) +
                               " bindings");
  for (size_t i = 0; i < ranges.size(); ++i) {
    BindingRange& b = ranges[i];
    std::string arg = "binding " + str(r.bindings[i].binding);
    if (b.offset > b.buffer_bytes)
      throw KernelShapeError("bind", arg, "offset " + str(b.offset) + " is past the end of the buffer (" +
                                              str(b.buffer_bytes) + " bytes)");
    if (b.size == 0) b.size = b.buffer_bytes - b.offset;
    check_range("bind", arg.c_str(), b.offset, b.size, b.buffer_bytes);
    if (b.size == 0) throw KernelShapeError("bind", arg, "the range is empty");
    uint64_t align = c.min_storage_buffer_offset_alignment ? c.min_storage_buffer_offset_alignment : 4;
    if (b.offset % align != 0)
      throw KernelShapeError("bind", arg, "offset " + str(b.offset) + " is not a multiple of " + str(align));
    if (r.bindings[i].kind == BindingKind::uniform_buffer) {
      if (c.max_uniform_buffer_range != 0 && b.size > c.max_uniform_buffer_range)
        throw UnsupportedError("max_uniform_buffer_range", str(b.size), str(c.max_uniform_buffer_range));
    } else if (b.size > c.max_storage_buffer_range) {
      throw UnsupportedError("max_storage_buffer_range", str(b.size), str(c.max_storage_buffer_range));
    }
  }
}

void check_grid(const Grid& g, const ComputeCapabilities& c) {
  const uint32_t dims[3] = {g.x, g.y, g.z};
  static const char* kName[3] = {"max_workgroup_count_x", "max_workgroup_count_y", "max_workgroup_count_z"};
  for (int i = 0; i < 3; ++i)
    if (dims[i] > c.max_workgroup_count[i]) throw UnsupportedError(kName[i], str(dims[i]), str(c.max_workgroup_count[i]));
}

}  // namespace onegpu::core
