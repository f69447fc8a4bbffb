// The public Texture and Sampler handles, Device::create_texture / create_sampler /
// create_bind_group over Binding, and the encoder's texture copies: checks, then the backend.
#include <memory>
#include <string>

#include "backend/backend.h"
#include "core/checks.h"
#include "core/texture_checks.h"
#include "onegpu/device.h"
#include "onegpu/errors.h"

namespace onegpu {

const char* texture_dimension_name(TextureDimension d) {
  switch (d) {
    case TextureDimension::d2: return "d2";
    case TextureDimension::d2_array: return "d2_array";
    case TextureDimension::cube: return "cube";
    case TextureDimension::d3: return "d3";
  }
  return "unknown";
}

std::string texture_usage_names(TextureUsage usage) {
  static const char* kNames[] = {"copy_src", "copy_dst", "sampled", "storage", "render_target"};
  std::string s;
  for (uint32_t i = 0; i < 5; ++i) {
    if (!(static_cast<uint32_t>(usage) & (1u << i))) continue;
    if (!s.empty()) s += "|";
    s += kNames[i];
  }
  return s.empty() ? "none" : s;
}

// ---- Texture ----

Texture::Texture(std::shared_ptr<backend::Texture> impl) : impl_(std::move(impl)) {}
Texture::~Texture() = default;

backend::Texture& Texture::impl() const {
  if (!impl_) throw UsageError("texture", "the texture is empty (destroyed or moved from)");
  return *impl_;
}
const TextureDescriptor& Texture::descriptor() const { return impl().descriptor(); }
uint64_t Texture::id() const { return impl_ ? impl_->id() : 0; }

Extent3 Texture::mip_extent(uint32_t mip) const {
  const TextureDescriptor& d = descriptor();
  if (mip >= d.mip_levels)
    throw KernelShapeError("mip_extent", "mip", std::to_string(mip) + " is past the texture's " +
                                                    std::to_string(d.mip_levels) + " mips");
  return core::mip_extent(d, mip);
}

uint64_t Texture::region_bytes(const TextureRegion& region) const {
  const TextureDescriptor& d = descriptor();
  return core::packed_bytes(d, core::resolve_region(d, region, "region_bytes", "region"));
}

namespace {

TextureRegion to_region(const core::ResolvedRegion& r) {
  return {r.mip, r.layer, r.layers, r.x, r.y, r.z, r.width, r.height, r.depth};
}

// Checks a transfer of `bytes` for `region` and returns the region resolved.
TextureRegion check_transfer(const TextureDescriptor& d, const TextureRegion& region, size_t bytes,
                             TextureUsage usage, const char* op) {
  core::check_copyable(d, usage, op, "texture");
  const core::ResolvedRegion r = core::resolve_region(d, region, op, "region");
  const uint64_t want = core::packed_bytes(d, r);
  if (bytes != want)
    throw KernelShapeError(op, "data", std::to_string(bytes) + " bytes given, the region holds " + std::to_string(want));
  return to_region(r);
}

}  // namespace

void Texture::write(const TextureRegion& region, std::span<const std::byte> data) {
  const TextureRegion r = check_transfer(descriptor(), region, data.size(), TextureUsage::copy_dst, "write");
  impl().write(r, data);
}

void Texture::read_async(const TextureRegion& region, std::span<std::byte> out,
                         std::function<void(std::exception_ptr)> done) const {
  const TextureRegion r = check_transfer(descriptor(), region, out.size(), TextureUsage::copy_src, "read_async");
  impl().read_async(r, out, std::move(done));
}

std::future<void> Texture::read_async(const TextureRegion& region, std::span<std::byte> out) const {
  auto promise = std::make_shared<std::promise<void>>();
  auto future = promise->get_future();
  read_async(region, out, [promise](std::exception_ptr error) {
    if (error) promise->set_exception(error);
    else promise->set_value();
  });
  return future;
}

void Texture::read(const TextureRegion& region, std::span<std::byte> out) const {
  const TextureRegion r = check_transfer(descriptor(), region, out.size(), TextureUsage::copy_src, "read");
  impl().read(r, out);
}

// ---- Sampler ----

Sampler::Sampler(std::shared_ptr<backend::Sampler> impl) : impl_(std::move(impl)) {}
Sampler::~Sampler() = default;
backend::Sampler& Sampler::impl() const {
  if (!impl_) throw UsageError("sampler", "the sampler is empty (destroyed or moved from)");
  return *impl_;
}
const SamplerDescriptor& Sampler::descriptor() const { return impl().descriptor(); }

// ---- Device ----

Texture Device::create_texture(const TextureDescriptor& descriptor) {
  backend::Device& d = live();
  core::check_texture_descriptor(descriptor, texture_capabilities());
  return Texture(d.create_texture(descriptor));
}

Sampler Device::create_sampler(const SamplerDescriptor& descriptor) {
  backend::Device& d = live();
  core::check_sampler_descriptor(descriptor, texture_capabilities());
  return Sampler(d.create_sampler(descriptor));
}

// The checked entries of a group for the bindings of `r` (a kernel's or a render pipeline's,
// `owner` naming which in messages).
std::vector<backend::BindingEntry> Device::binding_entries(const ShaderReflection& r, const char* owner,
                                                           std::span<const Binding> bindings) {
  backend::Device& d = live();
  if (bindings.size() != r.bindings.size())
    throw KernelShapeError("bind", "bindings",
                           std::to_string(bindings.size()) + " bindings given, the " + owner + " has " +
                               std::to_string(r.bindings.size()));
  // Buffers first, through the buffer checks (ranges, alignment, limits) of the buffer bindings.
  ShaderReflection buffer_only;
  std::vector<core::BindingRange> ranges;
  std::vector<backend::BindingEntry> entries(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    const ShaderBinding& sb = r.bindings[i];
    const Binding& b = bindings[i];
    const std::string arg = "binding " + std::to_string(sb.binding);
    entries[i].binding = sb.binding;
    const bool wants_buffer = sb.kind == BindingKind::storage_buffer || sb.kind == BindingKind::uniform_buffer;
    const bool wants_texture = sb.kind == BindingKind::sampled_texture || sb.kind == BindingKind::storage_texture;
    static const char* kGiven[] = {"a buffer", "a texture", "a sampler"};
    const char* given = kGiven[static_cast<int>(b.kind)];
    if ((wants_buffer && b.kind != Binding::Kind::buffer) || (wants_texture && b.kind != Binding::Kind::texture) ||
        (sb.kind == BindingKind::sampler && b.kind != Binding::Kind::sampler))
      throw KernelShapeError("bind", arg, std::string("the ") + owner + "'s binding is a " + binding_kind_name(sb.kind) +
                                              ", " + given + " was given");
    if (wants_buffer) {
      const RawBuffer* buffer = b.buffer.buffer;
      if (buffer == nullptr || !*buffer) throw KernelShapeError("bind", arg, "the buffer is empty");
      if (buffer->impl().owner() != d.token()) throw UsageError("bind", arg + ": the buffer belongs to another device");
      buffer_only.bindings.push_back(sb);
      ranges.push_back({buffer->size_bytes(), b.buffer.offset_bytes, b.buffer.size_bytes});
    } else if (wants_texture) {
      const TextureBinding& tb = b.texture;
      if (tb.texture == nullptr || !*tb.texture)
        throw UsageError("bind", arg + ": the texture is empty (destroyed or moved from)");
      if (tb.texture->impl().owner() != d.token()) throw UsageError("bind", arg + ": the texture belongs to another device");
      const SamplerDescriptor* sampler = nullptr;
      if (tb.sampler != nullptr) {
        if (!*tb.sampler) throw UsageError("bind", arg + ": the sampler is empty (destroyed or moved from)");
        if (tb.sampler->impl().owner() != d.token())
          throw UsageError("bind", arg + ": the sampler belongs to another device");
        sampler = &tb.sampler->descriptor();
      }
      const core::ResolvedView v = core::check_texture_binding(sb, arg, tb.texture->descriptor(), tb, sampler,
                                                               texture_capabilities());
      entries[i].resource = backend::TextureView{&tb.texture->impl(), v.dimension, v.base_mip, v.mip_count,
                                                 v.base_layer, v.layer_count,
                                                 tb.sampler != nullptr ? &tb.sampler->impl() : nullptr};
    } else {
      if (b.sampler == nullptr || !*b.sampler) throw UsageError("bind", arg + ": the sampler is empty (destroyed or moved from)");
      if (b.sampler->impl().owner() != d.token()) throw UsageError("bind", arg + ": the sampler belongs to another device");
      entries[i].resource = backend::SamplerEntry{&b.sampler->impl()};
    }
  }
  core::check_bindings(buffer_only, ranges, capabilities());
  for (size_t i = 0, k = 0; i < bindings.size(); ++i) {
    if (bindings[i].kind != Binding::Kind::buffer) continue;
    entries[i].resource = backend::BufferRange{&bindings[i].buffer.buffer->impl(), ranges[k].offset, ranges[k].size};
    ++k;
  }
  return entries;
}

BindGroup Device::create_bind_group(const ComputeKernel& kernel, std::span<const Binding> bindings) {
  backend::Device& d = live();
  if (!kernel) throw KernelShapeError("bind", "kernel", "the kernel is empty");
  if (kernel.impl().owner() != d.token()) throw UsageError("bind", "the kernel belongs to another device");
  const std::vector<backend::BindingEntry> entries = binding_entries(kernel.reflection(), "kernel", bindings);
  return BindGroup(d.create_bind_group(kernel.impl(), entries));
}

BindGroup Device::create_bind_group(const RenderPipeline& pipeline, std::span<const Binding> bindings) {
  backend::Device& d = live();
  if (!pipeline) throw KernelShapeError("bind", "pipeline", "the pipeline is empty");
  if (pipeline.impl().owner() != d.token()) throw UsageError("bind", "the pipeline belongs to another device");
  const std::vector<backend::BindingEntry> entries = binding_entries(pipeline.reflection(), "pipeline", bindings);
  return BindGroup(d.create_bind_group(pipeline.impl(), entries));
}

}  // namespace onegpu
