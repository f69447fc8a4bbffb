#include "core/render_checks.h"

#include <algorithm>
#include <map>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::core {
namespace {

constexpr const char* kOp = "create_render_pipeline";

std::string str(uint64_t v) { return std::to_string(v); }

[[noreturn]] void shape(const std::string& argument, const std::string& detail) {
  throw KernelShapeError(kOp, argument, detail);
}

std::string input_name(const StageVariable& v) {
  return "location " + str(v.location) + (v.name.empty() ? "" : " (" + v.name + ")");
}

std::string type_name(ComponentKind kind, uint32_t bits, uint32_t components) {
  std::string s = std::string(component_kind_name(kind)) + str(bits);
  return components > 1 ? s + "x" + str(components) : s;
}

void check_stage(const ShaderSource* s, ShaderStage expected, const char* argument) {
  if (s == nullptr) shape(argument, "no shader given");
  if (s->reflection.stage != expected)
    shape(argument, s->name + ": a " + shader_stage_name(s->reflection.stage) + " shader, not a " +
                        shader_stage_name(expected) + " shader");
}

void check_features(const ShaderSource& s, const RenderLimits& l) {
  const FeatureSet missing = (s.reflection.features - ShaderFeature::full_subgroups) - l.features;
  for (uint32_t bit = 1; bit != 0; bit <<= 1)
    if (missing.bits() & bit)
      throw UnsupportedError(feature_name(static_cast<ShaderFeature>(bit)), "supported", "not supported");
}

void check_stores(const ShaderSource& s, bool allowed, const char* capability) {
  if (allowed) return;
  for (const ShaderBinding& b : s.reflection.bindings)
    if (!b.read_only)
      throw UnsupportedError(capability, "binding " + str(b.binding) + " written by " + s.name, "not supported");
}

void check_vertex_inputs(const RenderPipelineDescriptor& d, const RenderLimits& l) {
  if (d.buffers.size() > l.max_vertex_buffers)
    throw UnsupportedError("max_vertex_buffers", str(d.buffers.size()), str(l.max_vertex_buffers));
  struct Fed { size_t buffer, attribute; VertexFormat format; };
  std::map<uint32_t, Fed> by_location;
  uint64_t attributes = 0;
  for (size_t i = 0; i < d.buffers.size(); ++i) {
    const VertexBufferLayout& b = d.buffers[i];
    const std::string arg = "buffers[" + str(i) + "]";
    if (b.stride % 4 != 0) shape(arg + ".stride", str(b.stride) + " is not a multiple of 4");
    if (b.stride > l.max_vertex_stride)
      throw UnsupportedError("max_vertex_stride", str(b.stride), str(l.max_vertex_stride));
    if (static_cast<uint32_t>(b.step_mode) > 1) shape(arg + ".step_mode", "not a VertexStepMode");
    const uint64_t extent = b.stride != 0 ? b.stride : l.max_vertex_stride;
    for (size_t j = 0; j < b.attributes.size(); ++j) {
      const VertexAttribute& a = b.attributes[j];
      const std::string aarg = arg + ".attributes[" + str(j) + "]";
      if (static_cast<uint32_t>(a.format) >= kVertexFormatCount)
        shape(aarg + ".format", str(static_cast<uint32_t>(a.format)) + " is not a VertexFormat");
      const VertexFormatInfo f = vertex_format_info(a.format);
      const uint64_t align = std::min<uint64_t>(4, f.bytes);
      if (a.offset % align != 0)
        shape(aarg + ".offset", str(a.offset) + " is not a multiple of " + str(align) + " (" + f.name + ")");
      if (a.offset > extent || f.bytes > extent - a.offset)
        shape(aarg + ".offset", std::string(f.name) + " at offset " + str(a.offset) + " ends past the " +
                                    (b.stride != 0 ? "stride " : "largest stride ") + str(extent));
      if (a.location >= l.max_vertex_attributes)
        throw UnsupportedError("max_vertex_attributes", "location " + str(a.location), str(l.max_vertex_attributes));
      auto [it, fresh] = by_location.try_emplace(a.location, Fed{i, j, a.format});
      if (!fresh)
        shape(aarg + ".location", "location " + str(a.location) + " is also fed by buffers[" + str(it->second.buffer) +
                                      "].attributes[" + str(it->second.attribute) + "]");
      ++attributes;
    }
  }
  if (attributes > l.max_vertex_attributes)
    throw UnsupportedError("max_vertex_attributes", str(attributes), str(l.max_vertex_attributes));

  for (const StageVariable& in : d.vertex->reflection.inputs) {
    if (in.bits != 32)
      throw UnsupportedError("vertex_input_width", "32-bit vertex inputs", str(in.bits) + "-bit " + input_name(in));
    auto it = by_location.find(in.location);
    if (it == by_location.end())
      shape("buffers", "the vertex shader's input " + input_name(in) + " (" + type_name(in.kind, in.bits, in.components) +
                           ") is fed by no attribute");
    const VertexFormatInfo f = vertex_format_info(it->second.format);
    const std::string aarg = "buffers[" + str(it->second.buffer) + "].attributes[" + str(it->second.attribute) + "]";
    if (f.kind != in.kind)
      shape(aarg + ".format", std::string(f.name) + " gives " + component_kind_name(f.kind) + " components, input " +
                                  input_name(in) + " reads " + type_name(in.kind, in.bits, in.components));
    if (f.components < in.components)
      shape(aarg + ".format", std::string(f.name) + " has " + str(f.components) + " components, input " +
                                  input_name(in) + " reads " + str(in.components));
  }
}

void check_targets(const RenderPipelineDescriptor& d, const RenderLimits& l) {
  if (d.targets.size() > l.max_color_attachments)
    throw UnsupportedError("max_color_attachments", str(d.targets.size()), str(l.max_color_attachments));
  const uint32_t samples = d.multisample.count;
  for (size_t i = 0; i < d.targets.size(); ++i) {
    const ColorTargetState& t = d.targets[i];
    const std::string arg = "targets[" + str(i) + "]";
    if (static_cast<uint32_t>(t.format) >= kTextureFormatCount) shape(arg + ".format", "not a TextureFormat");
    const FormatInfo info = format_info(t.format);
    if (info.has_depth) shape(arg + ".format", std::string(info.name) + " is a depth format, not a colour format");
    const RenderFormatSupport& s = l.formats[static_cast<uint32_t>(t.format)];
    if (!s.color_attachment) throw UnsupportedError("color_attachment", std::string(info.name), "not supported");
    if ((s.sample_counts & samples) == 0)
      throw UnsupportedError("sample_count", std::string(info.name) + " with " + str(samples) + " samples",
                             "not supported");
    if (t.write_mask > kColorWriteAll) shape(arg + ".write_mask", str(t.write_mask) + " has bits above 0xF");
    if (t.blend) {
      for (const BlendComponent* c : {&t.blend->color, &t.blend->alpha})
        if (static_cast<uint32_t>(c->operation) > static_cast<uint32_t>(BlendOperation::max) ||
            static_cast<uint32_t>(c->src_factor) > static_cast<uint32_t>(BlendFactor::one_minus_constant) ||
            static_cast<uint32_t>(c->dst_factor) > static_cast<uint32_t>(BlendFactor::one_minus_constant))
          shape(arg + ".blend", "not a BlendOperation or BlendFactor");
      if (info.kind != TexelKind::float_) shape(arg + ".blend", std::string(info.name) + " is an integer format: no blending");
      if (!s.blendable) throw UnsupportedError("blendable", std::string(info.name), "not supported");
    }
  }
  for (size_t i = 1; i < d.targets.size() && !l.independent_blend; ++i) {
    const ColorTargetState& a = d.targets[0];
    const ColorTargetState& b = d.targets[i];
    const auto same = [](const BlendComponent& x, const BlendComponent& y) {
      return x.operation == y.operation && x.src_factor == y.src_factor && x.dst_factor == y.dst_factor;
    };
    const bool equal = a.write_mask == b.write_mask && a.blend.has_value() == b.blend.has_value() &&
                       (!a.blend || (same(a.blend->color, b.blend->color) && same(a.blend->alpha, b.blend->alpha)));
    if (!equal)
      throw UnsupportedError("independent_blend", "targets[" + str(i) + "] blended or masked unlike targets[0]",
                             "not supported");
  }
  if (d.fragment == nullptr) return;
  std::vector<bool> written(d.targets.size(), false);
  for (const StageVariable& out : d.fragment->reflection.outputs) {
    if (out.location >= d.targets.size())
      shape("targets", "the fragment shader's output " + input_name(out) + " has no target (" + str(d.targets.size()) +
                           " targets)");
    written[out.location] = true;
    const std::string arg = "targets[" + str(out.location) + "]";
    const FormatInfo info = format_info(d.targets[out.location].format);
    const ComponentKind want = info.kind == TexelKind::uint_ ? ComponentKind::uint : ComponentKind::float_;
    if (out.kind != want)
      shape(arg + ".format", std::string(info.name) + " takes " + component_kind_name(want) + " values, output " +
                                 input_name(out) + " is " + type_name(out.kind, out.bits, out.components));
    if (out.components < info.components)
      shape(arg + ".format", std::string(info.name) + " has " + str(info.components) + " components, output " +
                                 input_name(out) + " writes " + str(out.components));
  }
  for (size_t i = 0; i < d.targets.size(); ++i)
    if (!written[i] && d.targets[i].write_mask != 0)
      shape("targets[" + str(i) + "].write_mask",
            "the fragment shader writes no output at location " + str(i) + ": the write mask must be 0, not " +
                str(d.targets[i].write_mask));
}

void check_depth(const RenderPipelineDescriptor& d, const RenderLimits& l) {
  if (!d.depth_stencil) return;
  const DepthStencilState& ds = *d.depth_stencil;
  if (static_cast<uint32_t>(ds.format) >= kTextureFormatCount) shape("depth_stencil.format", "not a TextureFormat");
  const FormatInfo info = format_info(ds.format);
  if (!info.has_depth) shape("depth_stencil.format", std::string(info.name) + " is not a depth format");
  if (static_cast<uint32_t>(ds.depth_compare) > static_cast<uint32_t>(CompareFunction::always))
    shape("depth_stencil.depth_compare", "not a CompareFunction");
  const RenderFormatSupport& s = l.formats[static_cast<uint32_t>(ds.format)];
  if (!s.depth_attachment) throw UnsupportedError("depth_attachment", std::string(info.name), "not supported");
  if ((s.sample_counts & d.multisample.count) == 0)
    throw UnsupportedError("sample_count", std::string(info.name) + " with " + str(d.multisample.count) + " samples",
                           "not supported");
}

// The vertex shader must write every input the fragment shader reads, with its kind and at least
// its components.
void check_stage_link(const RenderPipelineDescriptor& d) {
  if (d.fragment == nullptr) return;
  for (const StageVariable& in : d.fragment->reflection.inputs) {
    auto it = std::find_if(d.vertex->reflection.outputs.begin(), d.vertex->reflection.outputs.end(),
                           [&](const StageVariable& o) { return o.location == in.location; });
    if (it == d.vertex->reflection.outputs.end())
      shape("fragment", "input " + input_name(in) + " is not written by the vertex shader");
    if (it->kind != in.kind || it->bits != in.bits || it->components < in.components)
      shape("fragment", "input " + input_name(in) + " reads " + type_name(in.kind, in.bits, in.components) +
                            ", the vertex shader writes " + type_name(it->kind, it->bits, it->components));
  }
}

ShaderReflection merge(const ShaderSource& vertex, const ShaderSource* fragment, const RenderLimits& l) {
  ShaderReflection r;
  r.stage = ShaderStage::vertex;
  r.spirv_version = vertex.reflection.spirv_version;
  r.inputs = vertex.reflection.inputs;
  r.bindings = vertex.reflection.bindings;
  r.push_constant_size = vertex.reflection.push_constant_size;
  r.push_constants = vertex.reflection.push_constants;
  r.features = vertex.reflection.features;
  if (fragment != nullptr) {
    const ShaderReflection& f = fragment->reflection;
    r.outputs = f.outputs;
    r.features |= f.features;
    for (const ShaderBinding& b : f.bindings) {
      auto it = std::find_if(r.bindings.begin(), r.bindings.end(),
                             [&](const ShaderBinding& x) { return x.set == b.set && x.binding == b.binding; });
      if (it == r.bindings.end()) {
        r.bindings.push_back(b);
        continue;
      }
      if (it->kind != b.kind || it->view_dimension != b.view_dimension || it->texel_kind != b.texel_kind ||
          it->combined_sampler != b.combined_sampler || it->storage_format != b.storage_format)
        shape("fragment", "binding " + str(b.binding) + " (set " + str(b.set) + ") is a " + binding_kind_name(b.kind) +
                              " (" + view_dimension_name(b.view_dimension) + ") in the fragment shader and a " +
                              binding_kind_name(it->kind) + " (" + view_dimension_name(it->view_dimension) +
                              ") in the vertex shader; texel kind, storage format and sampler must agree too");
      it->read_only = it->read_only && b.read_only;
    }
    std::sort(r.bindings.begin(), r.bindings.end(), [](const ShaderBinding& x, const ShaderBinding& y) {
      return std::pair(x.set, x.binding) < std::pair(y.set, y.binding);
    });
    for (const PushConstantMember& m : f.push_constants) {
      bool same = false;
      for (const PushConstantMember& v : vertex.reflection.push_constants) {
        const bool overlap = m.offset < uint64_t(v.offset) + v.size && v.offset < uint64_t(m.offset) + m.size;
        if (!overlap) continue;
        if (m.offset != v.offset || m.size != v.size)
          shape("push_constants", "the fragment shader's member " + m.name + " [" + str(m.offset) + ", " +
                                      str(uint64_t(m.offset) + m.size) + ") overlaps the vertex shader's " + v.name +
                                      " [" + str(v.offset) + ", " + str(uint64_t(v.offset) + v.size) + ")");
        same = true;
      }
      if (!same) r.push_constants.push_back(m);
    }
    std::sort(r.push_constants.begin(), r.push_constants.end(),
              [](const PushConstantMember& x, const PushConstantMember& y) { return x.offset < y.offset; });
    r.push_constant_size = std::max(r.push_constant_size, f.push_constant_size);
  }
  if (r.push_constant_size > l.max_push_constants_bytes)
    throw UnsupportedError("max_push_constants_bytes", str(r.push_constant_size), str(l.max_push_constants_bytes));
  for (const ShaderBinding& b : r.bindings)
    if (b.set != 0) throw UnsupportedError("descriptor_sets", "bindings in set 0", "set " + str(b.set));
  return r;
}

}  // namespace

RenderPipelinePlan plan_render_pipeline(const RenderPipelineDescriptor& d, const RenderLimits& l) {
  if (!l.graphics) throw UnsupportedError("graphics", "a queue that runs graphics work", "compute only");
  check_stage(d.vertex, ShaderStage::vertex, "vertex");
  if (d.fragment != nullptr) check_stage(d.fragment, ShaderStage::fragment, "fragment");
  check_features(*d.vertex, l);
  check_stores(*d.vertex, l.vertex_stores, "vertex_stores_and_atomics");
  if (d.fragment != nullptr) {
    check_features(*d.fragment, l);
    check_stores(*d.fragment, l.fragment_stores, "fragment_stores_and_atomics");
  }
  if (d.fragment == nullptr) {
    if (!d.targets.empty())
      shape("targets", str(d.targets.size()) + " colour targets without a fragment shader");
    if (!d.depth_stencil) shape("depth_stencil", "a pipeline without a fragment shader needs a depth attachment");
  }
  if (static_cast<uint32_t>(d.primitive.topology) > static_cast<uint32_t>(PrimitiveTopology::triangle_strip))
    shape("primitive.topology", "not a PrimitiveTopology");
  if (static_cast<uint32_t>(d.primitive.cull_mode) > static_cast<uint32_t>(CullMode::back))
    shape("primitive.cull_mode", "not a CullMode");
  if (static_cast<uint32_t>(d.primitive.front_face) > static_cast<uint32_t>(FrontFace::cw))
    shape("primitive.front_face", "not a FrontFace");
  if (d.primitive.topology == PrimitiveTopology::point_list && !d.vertex->reflection.writes_point_size)
    shape("primitive.topology", "a point list needs a vertex shader that writes gl_PointSize; " + d.vertex->name +
                                    " does not");
  if (d.multisample.count != 1 && d.multisample.count != 4)
    throw UnsupportedError("sample_count", "1 or 4", str(d.multisample.count));
  check_vertex_inputs(d, l);
  check_targets(d, l);
  check_depth(d, l);
  check_stage_link(d);
  return {merge(*d.vertex, d.fragment, l)};
}

}  // namespace onegpu::core
