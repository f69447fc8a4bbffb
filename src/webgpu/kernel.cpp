// Kernels from WGSL (or SPIR-V, where Dawn reads it) with the binding layout the caller's
// reflection gives, and their bind groups.
#include <algorithm>

#include "onegpu/errors.h"
#include "webgpu/objects.h"

namespace onegpu::webgpu {

namespace {

abi::BufferBindingType buffer_type(const ShaderBinding& b) {
  if (b.kind == BindingKind::uniform_buffer) return abi::BufferBindingType::uniform;
  return b.read_only ? abi::BufferBindingType::read_only_storage : abi::BufferBindingType::storage;
}

}  // namespace

WebGpuKernel::WebGpuKernel(std::shared_ptr<Context> ctx, WebGpuDevice& device, const ShaderSource& shader,
                           std::string label)
    : ctx_(std::move(ctx)), reflection_(shader.reflection), label_(std::move(label)) {
  owner_ = ctx_.get();
  const Library& fn = ctx_->fn;
  const char* op = "create_compute_kernel";
  if (shader.wgsl.empty() && shader.spirv.empty())
    throw KernelShapeError(op, "shader", "'" + shader.name + "' has neither WGSL nor SPIR-V");
  // Dawn reads SPIR-V up to 1.3 (Vulkan 1.1 semantics); glslang --target-env vulkan1.1 makes it.
  if (shader.wgsl.empty() && reflection_.spirv_version > 0x00010300u)
    throw UnsupportedError("spirv_version", "1.3 or older (webgpu)",
                           std::to_string(reflection_.spirv_version >> 16) + "." +
                               std::to_string((reflection_.spirv_version >> 8) & 0xff));
  if (reflection_.push_constant_size > kPushSlotBytes)
    throw UnsupportedError("max_push_constants_bytes", std::to_string(reflection_.push_constant_size),
                           std::to_string(kPushSlotBytes));
  // One layout per set up to the highest the reflection names; empty sets get empty layouts.
  uint32_t sets = 0;
  for (const ShaderBinding& b : reflection_.bindings) {
    if (b.kind != BindingKind::storage_buffer && b.kind != BindingKind::uniform_buffer)
      throw UnsupportedError(binding_kind_name(b.kind), "a buffer binding", "webgpu binds buffers only (not yet textures)");
    sets = std::max(sets, b.set + 1);
  }
  ErrorScope scope(*ctx_);
  std::unique_lock lock(ctx_->api);
  for (uint32_t set = 0; set < sets; ++set) {
    std::vector<abi::BindGroupLayoutEntry> entries;
    for (const ShaderBinding& b : reflection_.bindings) {
      if (b.set != set) continue;
      abi::BindGroupLayoutEntry& e = entries.emplace_back();
      e.binding = b.binding;
      e.visibility = abi::kShaderStageCompute;
      e.buffer.type = buffer_type(b);
    }
    abi::BindGroupLayoutDescriptor d;
    d.label = view(label_);
    d.entry_count = entries.size();
    d.entries = entries.data();
    set_layouts_.emplace_back(ctx_.get(), fn.wgpuDeviceCreateBindGroupLayout(ctx_->device, &d));
  }
  std::vector<abi::BindGroupLayout> layouts;
  for (const auto& l : set_layouts_) layouts.push_back(l.get());
  // The SPIR-V path keeps the uniform block: Dawn refuses SPIR-V push constants anyway.
  if (!shader.wgsl.empty()) push_kind_ = shader.wgsl_push_constants;
  if (reflection_.push_constant_size != 0) layouts.push_back(device.push_layout(push_kind_));
  abi::PipelineLayoutDescriptor pl;
  pl.label = view(label_);
  pl.bind_group_layout_count = layouts.size();
  pl.bind_group_layouts = layouts.data();
  layout_ = PipelineLayoutHandle(ctx_.get(), fn.wgpuDeviceCreatePipelineLayout(ctx_->device, &pl));

  abi::ShaderSourceWGSL wgsl;
  abi::ShaderSourceSPIRV spirv;
  abi::ShaderModuleDescriptor md;
  md.label = view(label_);
  if (!shader.wgsl.empty()) {
    wgsl.code = view(shader.wgsl);
    md.next = &wgsl.chain;
  } else {
    spirv.code_size = static_cast<uint32_t>(shader.spirv.size());
    spirv.code = shader.spirv.data();
    md.next = &spirv.chain;
  }
  ShaderModuleHandle module(ctx_.get(), fn.wgpuDeviceCreateShaderModule(ctx_->device, &md));
  abi::ComputePipelineDescriptor cp;
  cp.label = view(label_);
  cp.layout = layout_.get();
  cp.compute.module = module.get();
  cp.compute.entry_point = view(shader.entry_point);
  pipeline_ = ComputePipelineHandle(ctx_.get(), fn.wgpuDeviceCreateComputePipeline(ctx_->device, &cp));
  lock.unlock();  // the scope's pop turns the event loop, which other threads need
  ScopeResult r = scope.pop();
  lock.lock();
  if (r.type == abi::ErrorType::out_of_memory) throw OutOfMemoryError(op, 0);
  if (r.type != abi::ErrorType::no_error) throw KernelShapeError(op, "shader", "'" + label_ + "': " + r.message);
}

WebGpuBindGroup::WebGpuBindGroup(std::shared_ptr<Context> ctx, std::shared_ptr<const WebGpuKernel> kernel,
                                 std::span<const backend::BindingEntry> entries)
    : ctx_(std::move(ctx)), kernel_(std::move(kernel)) {
  owner_ = ctx_.get();
  const std::vector<ShaderBinding>& bindings = kernel_->reflection().bindings;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& range = std::get<backend::BufferRange>(entries[i].resource);
    buffers_.push_back({range.buffer->weak_from_this(), range.buffer->id(), bindings[i].read_only});
  }
  const Library& fn = ctx_->fn;
  ErrorScope scope(*ctx_);
  {
    std::lock_guard lock(ctx_->api);
    for (uint32_t set = 0; set < kernel_->set_layouts().size(); ++set) {
      std::vector<abi::BindGroupEntry> group;
      for (size_t i = 0; i < entries.size(); ++i) {
        if (bindings[i].set != set) continue;
        const auto& range = std::get<backend::BufferRange>(entries[i].resource);
        abi::BindGroupEntry& e = group.emplace_back();
        e.binding = bindings[i].binding;
        e.buffer = static_cast<WebGpuBuffer*>(range.buffer)->handle();
        e.offset = range.offset;
        e.size = range.size;
      }
      abi::BindGroupDescriptor d;
      d.label = view(kernel_->label());
      d.layout = kernel_->set_layouts()[set].get();
      d.entry_count = group.size();
      d.entries = group.data();
      groups_.emplace_back(ctx_.get(), fn.wgpuDeviceCreateBindGroup(ctx_->device, &d));
    }
  }
  ScopeResult r = scope.pop();
  if (r.type == abi::ErrorType::out_of_memory) throw OutOfMemoryError("bind", 0);
  if (r.type != abi::ErrorType::no_error) throw KernelShapeError("bind", "buffers", r.message);
}

}  // namespace onegpu::webgpu
