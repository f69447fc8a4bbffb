// Compute pipelines from shader reflection, and descriptor sets for them.
#include <cstring>
#include <functional>
#include <type_traits>
#include <iostream>
#include <sstream>

#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/objects.h"

namespace onegpu::vulkan {
namespace {

std::string text(const char* chars, size_t capacity) { return std::string(chars, strnlen(chars, capacity)); }

double number(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? 1.0 : 0.0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return static_cast<double>(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return static_cast<double>(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return s.value.f64;
    default: return 0;
  }
}

// Vulkan's two-call enumeration: the count, then the items (each starting as `blank`).
template <class T, class Get>
std::vector<T> enumerate(const char* call, T blank, Get get) {
  uint32_t n = 0;
  call_checked(call, 0, [&] { return get(&n, static_cast<T*>(nullptr)); });
  std::vector<T> items(n, blank);
  call_checked(call, 0, [&] { return get(&n, items.data()); });
  items.resize(n);
  return items;
}

std::vector<KernelStatistic> read_statistics(const DeviceFunctions& fn, VkDevice d, VkPipeline pipeline) {
  std::vector<KernelStatistic> out;
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  const auto executables = enumerate(
      "vkGetPipelineExecutablePropertiesKHR",
      VkPipelineExecutablePropertiesKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR},
      [&](uint32_t* n, VkPipelineExecutablePropertiesKHR* p) { return fn.vkGetPipelineExecutablePropertiesKHR(d, &info, n, p); });
  for (uint32_t e = 0; e < executables.size(); ++e) {
    VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = pipeline;
    ei.executableIndex = e;
    const auto stats = enumerate(
        "vkGetPipelineExecutableStatisticsKHR",
        VkPipelineExecutableStatisticKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR},
        [&](uint32_t* n, VkPipelineExecutableStatisticKHR* p) { return fn.vkGetPipelineExecutableStatisticsKHR(d, &ei, n, p); });
    const std::string exe = text(executables[e].name, VK_MAX_DESCRIPTION_SIZE);
    for (const auto& st : stats)
      out.push_back({exe, text(st.name, VK_MAX_DESCRIPTION_SIZE), text(st.description, VK_MAX_DESCRIPTION_SIZE),
                     number(st)});
  }
  return out;
}

// Each handle goes into its owner as soon as it exists, so a later failure releases it.
template <class Handle, class Make>
UniqueHandle<Handle> create(Context& c, const char* call, Make make) {
  Handle h = VK_NULL_HANDLE;
  call_checked(call, 0, [&] { return make(&h); });
  validation::track(h, c.id);
  return UniqueHandle<Handle>(c, h);
}

VkDescriptorType descriptor_type(const ShaderBinding& b) {
  switch (b.kind) {
    case BindingKind::uniform_buffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case BindingKind::storage_buffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case BindingKind::sampled_texture:
      return b.combined_sampler ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case BindingKind::storage_texture: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case BindingKind::sampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

void print_statistics(const std::string& label, const std::vector<KernelStatistic>& stats) {
  std::ostringstream s;
  s << "onegpu: kernel " << (label.empty() ? "(unnamed)" : label) << ":";
  for (const KernelStatistic& k : stats) s << " " << k.name << "=" << k.value << ";";
  std::cerr << s.str() << "\n";
}

}  // namespace

VulkanKernel::VulkanKernel(std::shared_ptr<Context> ctx, const ShaderSource& shader, std::string label,
                           const core::KernelPlan& plan)
    : ctx_(std::move(ctx)), reflection_(shader.reflection), label_(std::move(label)) {
  owner_ = ctx_.get();
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("create_compute_kernel", "the device is closed");
  Context& c = *ctx_;
  const DeviceFunctions& fn = c.fn;
  VkDevice d = c.device;

  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = shader.spirv.size() * 4;
  mi.pCode = shader.spirv.data();
  // Released when the constructor ends: the pipeline does not need it.
  UniqueHandle<VkShaderModule> module = create<VkShaderModule>(c, "vkCreateShaderModule", [&](VkShaderModule* h) {
    validation::ScopedBfloat16Module bfloat16(reflection_.features.has(ShaderFeature::bfloat16));
    return fn.vkCreateShaderModule(d, &mi, nullptr, h);
  });

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const ShaderBinding& b : reflection_.bindings) {
    VkDescriptorSetLayoutBinding lb{};
    lb.binding = b.binding;
    lb.descriptorType = descriptor_type(b);
    lb.descriptorCount = 1;
    lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(lb);
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = static_cast<uint32_t>(bindings.size());
  li.pBindings = bindings.data();
  set_layout_ = create<VkDescriptorSetLayout>(c, "vkCreateDescriptorSetLayout", [&](VkDescriptorSetLayout* h) {
                         return fn.vkCreateDescriptorSetLayout(d, &li, nullptr, h);
                       });

  const VkDescriptorSetLayout set_layout = set_layout_.get();
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, reflection_.push_constant_size};
  VkPipelineLayoutCreateInfo pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pi.setLayoutCount = 1;
  pi.pSetLayouts = &set_layout;
  pi.pushConstantRangeCount = reflection_.push_constant_size ? 1 : 0;
  pi.pPushConstantRanges = &range;
  layout_ = create<VkPipelineLayout>(c, "vkCreatePipelineLayout", [&](VkPipelineLayout* h) {
                     return fn.vkCreatePipelineLayout(d, &pi, nullptr, h);
                   });

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  rs.requiredSubgroupSize = plan.pinned_subgroup_size;
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module.get();
  ci.stage.pName = shader.entry_point.c_str();
  if (plan.full_subgroups) ci.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  if (plan.pinned_subgroup_size) ci.stage.pNext = &rs;
  if (c.kernel_statistics) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  ci.layout = layout_.get();
  pipeline_ = create<VkPipeline>(c, "vkCreateComputePipelines", [&](VkPipeline* h) {
                       return fn.vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, nullptr, h);
                     });
  if (c.kernel_statistics) {
    statistics_ = read_statistics(fn, d, pipeline_.get());
    if (c.print_kernel_statistics) print_statistics(label_, statistics_);
  }
}

VulkanBindGroup::VulkanBindGroup(std::shared_ptr<Context> ctx, std::shared_ptr<const backend::DeviceObject> owner,
                                 const std::string& owner_label, VkDescriptorSetLayout set_layout,
                                 const std::vector<ShaderBinding>& bindings,
                                 std::span<const backend::BindingEntry> entries)
    : ctx_(std::move(ctx)), layout_(std::move(owner)), layout_label_(owner_label) {
  owner_ = ctx_.get();
  std::vector<VkDescriptorBufferInfo> infos(entries.size());
  std::vector<VkDescriptorImageInfo> images(entries.size());
  std::vector<VkWriteDescriptorSet> writes(entries.size());
  buffers_.reserve(entries.size());
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("create_bind_group", "the device is closed");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ShaderBinding& b = bindings[i];
    VkWriteDescriptorSet& w = writes[i];
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstBinding = entries[i].binding;
    w.descriptorCount = 1;
    w.descriptorType = descriptor_type(b);
    if (const auto* range = std::get_if<backend::BufferRange>(&entries[i].resource)) {
      infos[i] = {static_cast<VulkanBuffer*>(range->buffer)->handle(), range->offset, range->size};
      w.pBufferInfo = &infos[i];
      buffers_.push_back({range->buffer->shared_from_this(), range->buffer->id(),
                          b.read_only || b.kind == BindingKind::uniform_buffer});
    } else if (const auto* view = std::get_if<backend::TextureView>(&entries[i].resource)) {
      auto* t = static_cast<VulkanTexture*>(view->texture);
      images[i].imageView =
          t->view_locked(view->dimension, view->base_mip, view->mip_count, view->base_layer, view->layer_count);
      images[i].imageLayout = VK_IMAGE_LAYOUT_GENERAL;
      if (view->sampler != nullptr) {
        images[i].sampler = static_cast<VulkanSampler*>(view->sampler)->handle();
        samplers_.push_back(view->sampler->shared_from_this());
      }
      w.pImageInfo = &images[i];
      textures_.push_back({t->shared_from_this(), t->id(), b.read_only});
    } else {
      const auto& entry = std::get<backend::SamplerEntry>(entries[i].resource);
      images[i].sampler = static_cast<VulkanSampler*>(entry.sampler)->handle();
      w.pImageInfo = &images[i];
      samplers_.push_back(entry.sampler->shared_from_this());
    }
  }
  set_ = ctx_->allocate_set_locked(set_layout);
  for (VkWriteDescriptorSet& w : writes) w.dstSet = set_.get();
  ctx_->fn.vkUpdateDescriptorSets(ctx_->device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

}  // namespace onegpu::vulkan
