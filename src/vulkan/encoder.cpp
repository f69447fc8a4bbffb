// Recording passes, dispatches, copies and pass timings into one command buffer.
#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/objects.h"

namespace onegpu::vulkan {

VulkanEncoder::VulkanEncoder(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {
  owner_ = ctx_.get();
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("begin_commands", "the device is closed");
  work_budget_ = ctx_->work_budget;
  retained_.reserve(256);  // recording a typical encoder then allocates nothing
  accesses_.reserve(16);
  pools_.reserve(4);
  open_ = true;
  ctx_->live_encoders.insert(this);
  try {
    begin_command_buffer();
  } catch (...) {
    ctx_->live_encoders.erase(this);
    for (const CommandPool& p : pools_) ctx_->recycle_pool_locked(p);
    throw;
  }
}

VulkanEncoder::~VulkanEncoder() {
  std::vector<std::shared_ptr<const void>> retained;
  {
    std::lock_guard lock(ctx_->mu);
    ctx_->live_encoders.erase(this);
    if (open_ && ctx_->alive)
      for (const CommandPool& p : pools_) ctx_->recycle_pool_locked(p);
    retained.swap(retained_);
  }
  // `retained` goes here, outside the lock: its destructors take it.
}

// Called with the lock held (constructor) or by the recording thread (splits), which takes it.
void VulkanEncoder::begin_command_buffer() {
  CommandPool pool = ctx_->acquire_pool_locked();
  pools_.push_back(pool);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(ctx_->fn.vkBeginCommandBuffer(pool.cb, &bi), "vkBeginCommandBuffer");
  // Order this command buffer behind everything submitted before it.
  ctx_->full_barrier(pool.cb);
  hazards_.reset();
  cb_has_work_ = false;
}

std::vector<std::shared_ptr<const void>> VulkanEncoder::orphan_locked() {
  open_ = false;
  timing_ = nullptr;
  timed_sets_.clear();
  return std::move(retained_);
}

void VulkanEncoder::ensure_open() const {
  if (!open_) throw UsageError("encoder", "its device was closed");
}

void VulkanEncoder::place(core::BarrierKind kind) {
  if (kind == core::BarrierKind::memory) ctx_->full_barrier(cb());
  else if (kind == core::BarrierKind::execution) ctx_->execution_barrier(cb());
}

void VulkanEncoder::start_timed_pass() {
  if (!start_stamp_due_) return;
  // Bottom of pipe: written once everything before has finished. A top-of-pipe stamp can be
  // written while the previous pass still runs, which would charge its tail to this pass.
  ctx_->fn.vkCmdWriteTimestamp(cb(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timing_->pool(), next_slot_);
  start_stamp_due_ = false;
}

void VulkanEncoder::end_timed_pass() {
  if (!timed_pass_open_) return;
  start_timed_pass();  // a pass that recorded nothing still fills both of its slots
  ctx_->fn.vkCmdWriteTimestamp(cb(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timing_->pool(), next_slot_ + 1);
  next_slot_ += 2;
  timed_pass_open_ = false;
}

void VulkanEncoder::end_pass() {
  if (!in_pass_) return;
  if (in_render_pass_) end_render_pass();
  end_timed_pass();
  hazards_.end_scope();
  in_pass_ = false;
}

void VulkanEncoder::split_if_due() {
  const bool due = split_requested_ || (work_budget_ != 0 && work_ > work_budget_);
  if (!due || !cb_has_work_) return;
  check(ctx_->fn.vkEndCommandBuffer(cb()), "vkEndCommandBuffer");
  {
    std::lock_guard lock(ctx_->mu);
    if (!ctx_->alive) throw UsageError("encoder", "its device was closed");
    begin_command_buffer();
  }
  work_ = 0;
  split_requested_ = false;
}

void VulkanEncoder::report_work(uint64_t operations) {
  ensure_open();
  work_ = operations > UINT64_MAX - work_ ? UINT64_MAX : work_ + operations;
}

void VulkanEncoder::split_submission() {
  ensure_open();
  split_requested_ = true;
}

backend::ComputePassEncoder& VulkanEncoder::begin_compute_pass() {
  ensure_open();
  end_pass();
  split_if_due();
  in_render_pass_ = false;
  if (timing_ != nullptr && next_slot_ + 2 <= 2 * timing_->pass_capacity()) {
    // The start stamp waits for the pass's first dispatch, behind the barrier that dispatch needs,
    // so a pass's time is its own work and not the wait for the work before it.
    start_stamp_due_ = true;
    timed_pass_open_ = true;
  }
  in_pass_ = true;
  cb_has_work_ = true;
  return pass_;
}

void VulkanEncoder::record_dispatch(backend::Kernel& kernel, backend::BindGroup& group,
                                    std::span<const std::byte> push, VulkanBuffer* args, uint64_t offset,
                                    Grid grid) {
  ensure_open();
  auto& k = static_cast<VulkanKernel&>(kernel);
  auto& g = static_cast<VulkanBindGroup&>(group);
  accesses_.clear();
  for (const auto& b : g.buffers()) accesses_.push_back({b.id, !b.read_only});
  for (const auto& t : g.textures()) accesses_.push_back({t.id, !t.read_only});
  if (args != nullptr) accesses_.push_back({args->id(), false});
  place(hazards_.access(accesses_));
  start_timed_pass();

  const DeviceFunctions& fn = ctx_->fn;
  const VkDescriptorSet set = g.set();
  fn.vkCmdBindPipeline(cb(), VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline());
  fn.vkCmdBindDescriptorSets(cb(), VK_PIPELINE_BIND_POINT_COMPUTE, k.layout(), 0, 1, &set, 0, nullptr);
  if (!push.empty())
    fn.vkCmdPushConstants(cb(), k.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(push.size()),
                          push.data());
  if (args != nullptr) fn.vkCmdDispatchIndirect(cb(), args->handle(), offset);
  else fn.vkCmdDispatch(cb(), grid.x, grid.y, grid.z);

  // Everything the dispatch uses stays alive until the submission has finished.
  if (last_kernel_ != &k) {
    retained_.push_back(k.shared_from_this());
    last_kernel_ = &k;
  }
  if (last_group_ != &g) {
    retained_.push_back(g.shared_from_this());
    for (const auto& b : g.buffers()) retained_.push_back(b.buffer.lock());
    for (const auto& t : g.textures()) retained_.push_back(t.texture.lock());
    last_group_ = &g;
  }
  if (args != nullptr) retained_.push_back(args->shared_from_this());
}

void VulkanComputePass::dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                                 Grid grid) {
  encoder_.record_dispatch(kernel, group, push, nullptr, 0, grid);
}

void VulkanComputePass::dispatch_indirect(backend::Kernel& kernel, backend::BindGroup& group,
                                          std::span<const std::byte> push, backend::Buffer& args, uint64_t offset) {
  encoder_.record_dispatch(kernel, group, push, &static_cast<VulkanBuffer&>(args), offset, {});
}

void VulkanComputePass::end() { encoder_.end_pass(); }

void VulkanEncoder::copy_buffer(backend::Buffer& src, uint64_t src_offset, backend::Buffer& dst, uint64_t dst_offset,
                                uint64_t bytes) {
  ensure_open();
  end_pass();
  split_if_due();
  cb_has_work_ = true;
  const core::BufferAccess accesses[2] = {{src.id(), false}, {dst.id(), true}};
  place(hazards_.access(accesses));
  VkBufferCopy region{src_offset, dst_offset, bytes};
  ctx_->fn.vkCmdCopyBuffer(cb(), static_cast<VulkanBuffer&>(src).handle(), static_cast<VulkanBuffer&>(dst).handle(),
                           1, &region);
  hazards_.end_scope();
  retained_.push_back(src.shared_from_this());
  retained_.push_back(dst.shared_from_this());
}

void VulkanEncoder::begin_copy(std::span<const core::BufferAccess> accesses) {
  ensure_open();
  end_pass();
  split_if_due();
  cb_has_work_ = true;
  place(hazards_.access(accesses));
}

namespace {

// The one region of a buffer <-> texture copy, rows given in texels as Vulkan counts them.
VkBufferImageCopy buffer_image_copy(const VulkanTexture& t, const backend::Encoder::BufferImageCopy& copy) {
  const TextureFormat f = t.descriptor().format;
  VkBufferImageCopy c{};
  c.bufferOffset = copy.offset;
  c.bufferRowLength = static_cast<uint32_t>(copy.bytes_per_row / format_info(f).bytes_per_texel);
  c.bufferImageHeight = static_cast<uint32_t>(copy.rows_per_image);
  c.imageSubresource = subresource_of(f, copy.region);
  c.imageOffset = offset_of(t.descriptor(), copy.region);
  c.imageExtent = extent_of(t.descriptor(), copy.region);
  return c;
}

}  // namespace

void VulkanEncoder::copy_buffer_to_texture(backend::Buffer& src, const BufferImageCopy& copy, backend::Texture& dst) {
  const core::BufferAccess accesses[2] = {{src.id(), false}, {dst.id(), true}};
  begin_copy(accesses);
  auto& t = static_cast<VulkanTexture&>(dst);
  const VkBufferImageCopy c = buffer_image_copy(t, copy);
  ctx_->fn.vkCmdCopyBufferToImage(cb(), static_cast<VulkanBuffer&>(src).handle(), t.handle(), VK_IMAGE_LAYOUT_GENERAL,
                                  1, &c);
  hazards_.end_scope();
  retained_.push_back(src.shared_from_this());
  retained_.push_back(dst.shared_from_this());
}

void VulkanEncoder::copy_texture_to_buffer(backend::Texture& src, const BufferImageCopy& copy, backend::Buffer& dst) {
  const core::BufferAccess accesses[2] = {{src.id(), false}, {dst.id(), true}};
  begin_copy(accesses);
  auto& t = static_cast<VulkanTexture&>(src);
  const VkBufferImageCopy c = buffer_image_copy(t, copy);
  ctx_->fn.vkCmdCopyImageToBuffer(cb(), t.handle(), VK_IMAGE_LAYOUT_GENERAL, static_cast<VulkanBuffer&>(dst).handle(),
                                  1, &c);
  hazards_.end_scope();
  retained_.push_back(src.shared_from_this());
  retained_.push_back(dst.shared_from_this());
}

void VulkanEncoder::copy_texture(backend::Texture& src, const TextureRegion& s, backend::Texture& dst,
                                 const TextureRegion& d) {
  const core::BufferAccess accesses[2] = {{src.id(), false}, {dst.id(), true}};
  begin_copy(accesses);
  auto& st = static_cast<VulkanTexture&>(src);
  auto& dt = static_cast<VulkanTexture&>(dst);
  const TextureFormat f = st.descriptor().format;
  VkImageCopy c{};
  c.srcSubresource = subresource_of(f, s);
  c.srcOffset = offset_of(st.descriptor(), s);
  c.dstSubresource = subresource_of(f, d);
  c.dstOffset = offset_of(dt.descriptor(), d);
  // The extent is the source's; a d3 <-> layered copy trades depth for layers (Vulkan 1.1 rules).
  c.extent = {s.width, s.height, st.descriptor().dimension == TextureDimension::d3 ? s.depth : 1u};
  if (st.descriptor().dimension != TextureDimension::d3 && dt.descriptor().dimension == TextureDimension::d3) {
    c.extent.depth = s.layers;
    c.dstSubresource.layerCount = 1;
  }
  if (st.descriptor().dimension == TextureDimension::d3 && dt.descriptor().dimension != TextureDimension::d3)
    c.srcSubresource.layerCount = 1;
  ctx_->fn.vkCmdCopyImage(cb(), st.handle(), VK_IMAGE_LAYOUT_GENERAL, dt.handle(), VK_IMAGE_LAYOUT_GENERAL, 1, &c);
  hazards_.end_scope();
  retained_.push_back(src.shared_from_this());
  retained_.push_back(dst.shared_from_this());
}

void VulkanEncoder::generate_mipmaps(backend::Texture& texture) {
  const core::BufferAccess accesses[1] = {{texture.id(), true}};
  begin_copy(accesses);
  auto& t = static_cast<VulkanTexture&>(texture);
  const TextureDescriptor& d = t.descriptor();
  const uint32_t layers = d.dimension == TextureDimension::d3 ? 1u : d.depth_or_layers;
  const bool d3 = d.dimension == TextureDimension::d3;
  for (uint32_t mip = 1; mip < d.mip_levels; ++mip) {
    // Each level reads the one the previous blit wrote.
    if (mip > 1) {
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
      ctx_->fn.vkCmdPipelineBarrier(cb(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                                    nullptr, 0, nullptr);
    }
    const auto extent = [&](uint32_t m) {
      return VkOffset3D{static_cast<int32_t>(std::max(1u, d.width >> m)), static_cast<int32_t>(std::max(1u, d.height >> m)),
                        d3 ? static_cast<int32_t>(std::max(1u, d.depth_or_layers >> m)) : 1};
    };
    VkImageBlit b{};
    b.srcSubresource = {copy_aspect_of(d.format), mip - 1, 0, layers};
    b.srcOffsets[1] = extent(mip - 1);
    b.dstSubresource = {copy_aspect_of(d.format), mip, 0, layers};
    b.dstOffsets[1] = extent(mip);
    ctx_->fn.vkCmdBlitImage(cb(), t.handle(), VK_IMAGE_LAYOUT_GENERAL, t.handle(), VK_IMAGE_LAYOUT_GENERAL, 1, &b,
                            VK_FILTER_LINEAR);
  }
  hazards_.end_scope();
  retained_.push_back(texture.shared_from_this());
}

void VulkanEncoder::begin_pass_timing(backend::TimestampSet& set) {
  ensure_open();
  end_timed_pass();
  timing_ = &static_cast<VulkanTimestampSet&>(set);
  ctx_->fn.vkCmdResetQueryPool(cb(), timing_->pool(), 0, 2 * timing_->pass_capacity());
  next_slot_ = 0;
  timed_sets_.push_back(timing_);
  retained_.push_back(timing_->shared_from_this());
}

std::vector<VkCommandBuffer> VulkanEncoder::finish() {
  ensure_open();
  end_pass();
  if (timing_ != nullptr) timing_->slots_written = next_slot_;
  check(ctx_->fn.vkEndCommandBuffer(cb()), "vkEndCommandBuffer");
  std::vector<VkCommandBuffer> cbs;
  for (const CommandPool& p : pools_) cbs.push_back(p.cb);
  return cbs;
}

void VulkanEncoder::submitted(uint64_t serial) {
  {
    std::lock_guard lock(ctx_->mu);
    for (const CommandPool& p : pools_) ctx_->retire_pool_locked(p, serial);
    ctx_->live_encoders.erase(this);
    open_ = false;
    for (VulkanTimestampSet* s : timed_sets_) s->serial = serial;
  }
  retained_.clear();  // destroyed after this submission, through the deferred queue
}

// ---- VulkanTimestampSet ----

VulkanTimestampSet::VulkanTimestampSet(std::shared_ptr<Context> ctx, uint32_t passes)
    : ctx_(std::move(ctx)), passes_(passes) {
  owner_ = ctx_.get();
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw UsageError("create_timestamp_set", "the device is closed");
  VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  ci.queryCount = 2 * passes;
  VkQueryPool handle = VK_NULL_HANDLE;
  call_checked("vkCreateQueryPool", 0, [&] { return ctx_->fn.vkCreateQueryPool(ctx_->device, &ci, nullptr, &handle); });
  validation::track(handle, ctx_->id);
  pool_ = UniqueHandle<VkQueryPool>(*ctx_, handle);
}

std::vector<uint64_t> VulkanTimestampSet::read_slots() {
  std::vector<uint64_t> ticks(slots_written);
  if (slots_written == 0) return ticks;
  check(ctx_->fn.vkGetQueryPoolResults(ctx_->device, pool(), 0, slots_written, ticks.size() * 8, ticks.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  const uint32_t bits = ctx_->adapter.timestamp_valid_bits;
  const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  const double period = ctx_->adapter.info.compute.timestamp_period_ns;
  for (auto& t : ticks) t = static_cast<uint64_t>(static_cast<double>(t & mask) * period);
  return ticks;
}

std::optional<std::vector<uint64_t>> VulkanTimestampSet::try_read() {
  if (serial == 0 || slots_written == 0 || ctx_->completed() < serial) return std::nullopt;
  return read_slots();
}

std::vector<uint64_t> VulkanTimestampSet::wait_read() {
  if (serial == 0) return {};
  ctx_->wait_serial(serial);
  return read_slots();
}

}  // namespace onegpu::vulkan
