// Creating and destroying the Vulkan device; submission, readback and statistics.
#include <cstring>
#include <iostream>

#include "core/env.h"
#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/objects.h"
#include "vulkan/surface.h"

namespace onegpu::vulkan {
namespace {

const Instance& choose_instance(const DeviceOptions& options) {
  bool want = options.validation.value_or(core::env_flag("ONEGPU_VALIDATION"));
  if (!want) return instance(false);
  if (!loader_available()) return instance(false);  // throws the missing-loader error
  if (!validation_layer_available()) {
    if (!core::env_flag("ONEGPU_VALIDATION_OPTIONAL"))
      throw UnsupportedError("validation layer", "VK_LAYER_KHRONOS_validation", "not installed");
    std::cerr << "onegpu: notice: the Khronos validation layer is not installed; running without it\n";
    return instance(false);
  }
  return instance(true);
}

VkDevice create_vk_device(const Instance& inst, const PhysicalAdapter& a, bool kernel_statistics) {
  const ComputeCapabilities& c = a.info.compute;
  using F = ShaderFeature;
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceShaderBfloat16FeaturesKHR fbf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV fcm2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
  feats.pNext = &f11;
  f11.pNext = &f12;
  f12.pNext = &f13;
  {
    // Render pipelines whose shaders write buffers (render_checks.h's vertex and fragment stores).
    VkPhysicalDeviceFeatures2 offered{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    inst.fn.vkGetPhysicalDeviceFeatures2(a.handle, &offered);
    feats.features.vertexPipelineStoresAndAtomics = offered.features.vertexPipelineStoresAndAtomics;
    feats.features.fragmentStoresAndAtomics = offered.features.fragmentStoresAndAtomics;
    feats.features.independentBlend = offered.features.independentBlend;
    // Indirect draws whose arguments name a first instance other than 0 (encoder.h).
    feats.features.drawIndirectFirstInstance = offered.features.drawIndirectFirstInstance;
  }
  feats.features.shaderFloat64 = c.features.has(F::float64);
  feats.features.shaderInt16 = c.features.has(F::int16);
  feats.features.shaderInt64 = c.features.has(F::int64);
  feats.features.samplerAnisotropy = a.info.texture.max_sampler_anisotropy > 1;
  f11.storageBuffer16BitAccess = c.features.has(F::storage_buffer_16bit);
  f12.shaderFloat16 = c.features.has(F::float16);
  f12.shaderInt8 = c.features.has(F::int8);
  f12.storageBuffer8BitAccess = c.features.has(F::storage_buffer_8bit);
  f12.timelineSemaphore = VK_TRUE;
  f12.vulkanMemoryModel = a.vulkan_memory_model;
  f12.vulkanMemoryModelDeviceScope = a.vulkan_memory_model_device_scope;
  f12.shaderSubgroupExtendedTypes = a.subgroup_extended_types;
  f13.subgroupSizeControl = c.subgroup_size_control;
  f13.computeFullSubgroups = c.full_subgroups;
  f13.shaderIntegerDotProduct = c.features.has(F::integer_dot_product);
  f13.maintenance4 = a.maintenance4;
  f13.synchronization2 = a.synchronization2;
  f13.dynamicRendering = VK_TRUE;  // required of every Vulkan 1.3 device: render passes
  std::vector<const char*> exts;
  void** tail = &f13.pNext;
  if (a.has_cooperative_matrix_ext && c.features.has(F::cooperative_matrix)) {
    exts.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    fcm.cooperativeMatrix = VK_TRUE;
    *tail = &fcm;
    tail = &fcm.pNext;
  }
  if (fcm.cooperativeMatrix && c.features.has(F::cooperative_matrix2)) {
    exts.push_back(VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
    fcm2 = a.cooperative_matrix2;  // every reported feature
    fcm2.pNext = nullptr;
    *tail = &fcm2;
    tail = &fcm2.pNext;
  }
  if (a.has_bfloat16_ext && c.features.has(F::bfloat16)) {
    exts.push_back(VK_KHR_SHADER_BFLOAT16_EXTENSION_NAME);
    fbf.shaderBFloat16Type = VK_TRUE;
    fbf.shaderBFloat16CooperativeMatrix = a.bfloat16_cooperative_matrix && fcm.cooperativeMatrix;
    *tail = &fbf;
    tail = &fbf.pNext;
  }
  if (a.info.surface_support) exts.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (kernel_statistics) {
    exts.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    fpe.pipelineExecutableInfo = VK_TRUE;
    *tail = &fpe;
    tail = &fpe.pNext;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = a.queue_family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &feats;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &qi;
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  VkDevice device = VK_NULL_HANDLE;
  call_checked("vkCreateDevice", 0, [&] { return inst.fn.vkCreateDevice(a.handle, &ci, nullptr, &device); });
  return device;
}

}  // namespace

}  // namespace onegpu::vulkan

namespace onegpu::backend {

std::vector<AdapterInfo> enumerate_vulkan_adapters() {
  using namespace onegpu::vulkan;
  std::vector<AdapterInfo> out;
  if (!loader_available()) return out;
  for (auto& a : physical_adapters(instance(false))) out.push_back(a.info);
  return out;
}

std::shared_ptr<Device> create_vulkan_device(const DeviceOptions& options) {
  using namespace onegpu::vulkan;
  const Instance& inst = choose_instance(options);
  std::vector<PhysicalAdapter> adapters = physical_adapters(inst);
  std::vector<AdapterInfo> infos;
  for (auto& a : adapters) infos.push_back(a.info);
  std::string query = core::env("ONEGPU_ADAPTER").value_or(options.adapter);
  const PhysicalAdapter& a = adapters[select_adapter(infos, query)];
  if (a.info.api_version < ApiVersion{1, 3, 0})
    throw UnsupportedError("vulkan version", "1.3", a.info.api_version.to_string());
  if (!a.timeline_semaphore) throw UnsupportedError("timeline semaphores", "supported", "not supported");
  if (a.queue_family == UINT32_MAX) throw UnsupportedError("compute queue", "one", "none");

  const bool print_statistics = core::env_flag("ONEGPU_KERNEL_STATISTICS");
  const bool statistics = (options.kernel_statistics || print_statistics) && a.info.compute.kernel_statistics;
  auto log = std::make_shared<ValidationLog>();
  uint32_t id = validation::add_device(log);
  VkDevice vk = VK_NULL_HANDLE;
  try {
    validation::ScopedCurrentDevice scope(id);
    vk = create_vk_device(inst, a, statistics);
  } catch (...) {
    validation::remove_device(id);
    throw;
  }
  auto ctx = std::make_shared<Context>(inst, a, vk, id, log);
  ctx->fn.load(inst.fn, vk);
  if (statistics) {
    ctx->fn.load_pipeline_statistics(inst.fn, vk);
    ctx->kernel_statistics = true;
    ctx->print_kernel_statistics = print_statistics;
  }
  if (a.info.surface_support) ctx->fn.load_swapchain(inst.fn, vk);
  ctx->work_budget =
      options.submission_work_budget != 0 ? options.submission_work_budget : a.info.compute.submission_work_budget;
  validation::track(vk, id);
  ctx->fn.vkGetDeviceQueue(vk, a.queue_family, 0, &ctx->queue);
  validation::track(ctx->queue, id);
  VkPhysicalDeviceMemoryProperties mem{};
  inst.fn.vkGetPhysicalDeviceMemoryProperties(a.handle, &mem);
  ctx->allocator = std::make_unique<Allocator>(ctx->fn, vk, mem, a.info.compute.max_memory_allocation_size, id);
  try {
    VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    si.pNext = &ti;
    call_checked("vkCreateSemaphore", 0, [&] { return ctx->fn.vkCreateSemaphore(vk, &si, nullptr, &ctx->timeline); });
    validation::track(ctx->timeline, id);
    ctx->timeline_owner = UniqueHandle<VkSemaphore>(*ctx, ctx->timeline);
  } catch (...) {
    validation::ScopedCurrentDevice scope(id);
    ctx->fn.vkDestroyDevice(vk, nullptr);
    validation::remove_device(id);
    throw;
  }
  return std::make_shared<VulkanDevice>(ctx);
}

}  // namespace onegpu::backend

namespace onegpu::vulkan {

VulkanDevice::VulkanDevice(std::shared_ptr<Context> ctx)
    : ctx_(std::move(ctx)), readback_(std::make_unique<ReadbackThread>(ctx_)),
      render_limits_(read_render_limits(ctx_->instance, ctx_->adapter)) {
  ctx_->graphics = render_limits_.graphics;
}

VulkanDevice::~VulkanDevice() { close(); }

bool VulkanDevice::closed() const { return closed_; }

namespace {

// Everything close() does once the readbacks are finished: waits for the GPU and destroys the
// device with what it still owns.
void release_device(Context& c) {
  std::vector<std::shared_ptr<const void>> orphaned;  // held by encoders never submitted
  {
    std::lock_guard lock(c.mu);
    for (VulkanEncoder* e : c.live_encoders)
      for (auto& held : e->orphan_locked()) orphaned.push_back(std::move(held));
    c.live_encoders.clear();
  }
  orphaned.clear();
  std::lock_guard lock(c.mu);
  c.fn.vkDeviceWaitIdle(c.device);
  c.destroy_owned_locked();
  c.alive = false;
  {
    validation::ScopedCurrentDevice scope(c.id);
    c.fn.vkDestroyDevice(c.device, nullptr);
  }
  validation::remove_device(c.id);
}

}  // namespace

void VulkanDevice::close() {
  if (closed_) return;
  closed_ = true;
  ctx_->closing = true;  // no new readback from here on: this object may go before the release
  if (readback_->on_this_thread()) {
    // From a completion of this device (or the last handle released on its readback thread):
    // the thread cannot wait for itself, so it finishes the queue after the completion returns,
    // then releases the device.
    readback_->stop([ctx = ctx_] { release_device(*ctx); });
    return;
  }
  readback_->stop();  // finishes pending readbacks first
  release_device(*ctx_);
}

std::shared_ptr<backend::Buffer> VulkanDevice::create_buffer(uint64_t bytes) {
  std::lock_guard lock(ctx_->mu);
  ctx_->collect_locked();
  UniqueBuffer b = ctx_->create_buffer_locked(
      bytes,
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
          VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
          VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
      MemoryUsage::device);
  b.count_as_user_buffer(bytes);
  return std::make_shared<VulkanBuffer>(ctx_, this, std::move(b), bytes);
}

std::shared_ptr<backend::Texture> VulkanDevice::create_texture(const TextureDescriptor& descriptor) {
  return std::make_shared<VulkanTexture>(ctx_, this, descriptor);
}

std::shared_ptr<backend::Sampler> VulkanDevice::create_sampler(const SamplerDescriptor& descriptor) {
  return std::make_shared<VulkanSampler>(ctx_, descriptor);
}

std::shared_ptr<backend::Kernel> VulkanDevice::create_kernel(const ShaderSource& shader, const std::string& label,
                                                             const KernelOptions& options) {
  core::KernelPlan plan = core::plan_kernel(shader.reflection, options, adapter().compute);
  return std::make_shared<VulkanKernel>(ctx_, shader, label, plan);
}

std::shared_ptr<backend::RenderPipeline> VulkanDevice::create_render_pipeline(
    const RenderPipelineDescriptor& descriptor, core::RenderPipelinePlan plan, const std::string& label) {
  return std::make_shared<VulkanRenderPipeline>(ctx_, descriptor, std::move(plan), label);
}

std::shared_ptr<backend::BindGroup> VulkanDevice::create_bind_group(backend::Kernel& kernel,
                                                                    std::span<const backend::BindingEntry> entries) {
  auto k = static_cast<VulkanKernel&>(kernel).shared_from_this();
  return std::make_shared<VulkanBindGroup>(ctx_, k, k->label(), k->set_layout(), k->reflection().bindings, entries);
}

std::shared_ptr<backend::BindGroup> VulkanDevice::create_bind_group(backend::RenderPipeline& pipeline,
                                                                    std::span<const backend::BindingEntry> entries) {
  auto p = static_cast<VulkanRenderPipeline&>(pipeline).shared_from_this();
  return std::make_shared<VulkanBindGroup>(ctx_, p, p->label(), p->set_layout(), p->reflection().bindings, entries);
}

std::shared_ptr<backend::TimestampSet> VulkanDevice::create_timestamp_set(uint32_t passes) {
  return std::make_shared<VulkanTimestampSet>(ctx_, passes);
}

std::shared_ptr<backend::Surface> VulkanDevice::create_surface(const XcbWindow& window) {
  return std::make_shared<VulkanSurface>(ctx_, this, window);
}

std::unique_ptr<backend::Encoder> VulkanDevice::begin_commands() { return std::make_unique<VulkanEncoder>(ctx_); }

void VulkanDevice::submit(std::unique_ptr<backend::Encoder> encoder) {
  auto& e = static_cast<VulkanEncoder&>(*encoder);
  ctx_->throw_if_failed("submit");
  std::vector<VkCommandBuffer> cbs = e.finish();
  uint64_t serial;
  {
    std::lock_guard lock(ctx_->mu);
    ctx_->collect_locked();
    serial = ctx_->submit_locked(cbs);
  }
  e.submitted(serial);
}

void VulkanDevice::wait_idle() {
  ctx_->throw_if_failed("wait_idle");
  uint64_t serial;
  {
    std::lock_guard lock(ctx_->mu);
    serial = ctx_->submit_locked(VK_NULL_HANDLE);  // pending uploads
  }
  ctx_->wait_serial(serial);
  std::lock_guard lock(ctx_->mu);
  ctx_->collect_locked();
}

MemoryStats VulkanDevice::memory_stats() const {
  std::lock_guard lock(ctx_->mu);
  ctx_->collect_locked();
  MemoryStats s;
  s.blocks = ctx_->allocator->block_count();
  s.block_bytes = ctx_->allocator->block_bytes();
  s.live_buffers = ctx_->live_buffers;
  s.live_bytes = ctx_->live_bytes;
  s.pending_release_bytes = ctx_->pending_release_bytes;
  s.staging_bytes = ctx_->staging_bytes_locked();
  s.command_pools = ctx_->command_pools_locked();
  s.live_textures = ctx_->live_textures;
  s.texture_bytes = ctx_->texture_bytes;
  return s;
}

void VulkanDevice::read_async(VkBuffer buffer, uint64_t offset, std::span<std::byte> out,
                              std::function<void(std::exception_ptr)> done) {
  // Copies move whole 32-bit words; buffers are padded to whole words, so widening stays inside.
  const uint64_t first = offset / 4 * 4;
  const uint64_t bytes = std::max<uint64_t>((offset + out.size() + 3) / 4 * 4 - first, 4);
  const bool empty = out.empty();
  read_async_recorded(
      bytes, offset - first, out,
      [this, buffer, first, bytes, empty](VkCommandBuffer cb, VkBuffer staging) {
        if (empty) return;
        VkBufferCopy region{first, 0, bytes};
        ctx_->fn.vkCmdCopyBuffer(cb, buffer, staging, 1, &region);
      },
      std::move(done));
}

void VulkanDevice::read_async_recorded(uint64_t bytes, uint64_t skip, std::span<std::byte> out,
                                       const std::function<void(VkCommandBuffer, VkBuffer)>& record,
                                       std::function<void(std::exception_ptr)> done) {
  ReadbackThread::Job job;
  job.destination = out;
  job.done = std::move(done);
  bytes = std::max<uint64_t>((bytes + 3) / 4 * 4, 4);
  job.skip = skip;
  {
    std::lock_guard lock(ctx_->mu);
    if (!ctx_->alive) throw UsageError("read", "the device is closed");
    ctx_->throw_if_failed("read");
    ctx_->collect_locked();
    job.staging = ctx_->create_buffer_locked(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::readback);
    CommandPool pool = ctx_->acquire_pool_locked();
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(ctx_->fn.vkBeginCommandBuffer(pool.cb, &bi), "vkBeginCommandBuffer");
    ctx_->full_barrier(pool.cb);
    record(pool.cb, job.staging.get());
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    ctx_->fn.vkCmdPipelineBarrier(pool.cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                  nullptr, 0, nullptr);
    try {
      check(ctx_->fn.vkEndCommandBuffer(pool.cb), "vkEndCommandBuffer");
      job.serial = ctx_->submit_locked(pool.cb);
    } catch (...) {
      ctx_->recycle_pool_locked(pool);
      throw;  // the staging buffer's owner releases it
    }
    ctx_->retire_pool_locked(pool, job.serial);
    ctx_->readback_bytes += job.staging.memory().size;
  }
  readback_->push(std::move(job));
}

// ---- VulkanBuffer ----

VulkanBuffer::VulkanBuffer(std::shared_ptr<Context> ctx, VulkanDevice* device, UniqueBuffer b, uint64_t bytes)
    : ctx_(std::move(ctx)), device_(device), b_(std::move(b)), bytes_(bytes) {
  owner_ = ctx_.get();
}

void VulkanBuffer::write(uint64_t offset, std::span<const std::byte> data) {
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("write", "the device is closed");
  ctx_->throw_if_failed("write");
  b_.hold_until(ctx_->next_serial_locked());  // a destroyed buffer outlives its queued upload
  // vkCmdCopyBuffer needs 4-byte offsets and sizes; buffers are whole words, so widen the range
  // and keep the bytes around it.
  // and keep the bytes around it. A tail that ends in the buffer's padding is padded with zeros.
  if (offset % 4 == 0 && data.size() % 4 == 0) {
    ctx_->queue_upload_locked(b_.get(), offset, data);
    return;
  }
  if (offset % 4 == 0 && (offset + data.size() + 3) / 4 * 4 == bytes_) {
    std::vector<std::byte> padded(data.begin(), data.end());
    padded.resize((data.size() + 3) / 4 * 4);
    ctx_->queue_upload_locked(b_.get(), offset, padded);
    return;
  }
  throw KernelShapeError("write", "offset", "a write of " + std::to_string(data.size()) + " bytes at byte " +
                                                std::to_string(offset) +
                                                " does not start and end on 32-bit words");
}

void VulkanBuffer::read(uint64_t offset, std::span<std::byte> out) {
  if (in_readback_completion())
    throw UsageError("read", "a blocking read from a readback completion would wait for itself; use read_async");
  // Shared: the waiting thread may return while the completion is still inside set_value().
  auto p = std::make_shared<std::promise<void>>();
  auto f = p->get_future();
  read_async(offset, out, [p](std::exception_ptr e) {
    if (e) p->set_exception(e);
    else p->set_value();
  });
  f.get();
}

void VulkanBuffer::read_async(uint64_t offset, std::span<std::byte> out, std::function<void(std::exception_ptr)> done) {
  {
    std::lock_guard lock(ctx_->mu);
    if (!ctx_->alive || ctx_->closing) throw UsageError("read", "the device is closed");
  }
  device_->read_async(b_.get(), offset, out, std::move(done));
}

}  // namespace onegpu::vulkan
