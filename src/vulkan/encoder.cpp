// Recording passes, dispatches, copies and pass timings into one command buffer.
#include "onegpu/errors.h"
#include "vulkan/check.h"
#include "vulkan/objects.h"

namespace onegpu::vulkan {

VulkanEncoder::VulkanEncoder(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw Error("begin_commands: the device is closed");
  pool_ = ctx_->acquire_pool_locked();
  open_ = true;
  ctx_->live_encoders.insert(this);
  retained_.reserve(256);  // recording a typical encoder then allocates nothing
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(ctx_->fn.vkBeginCommandBuffer(pool_.cb, &bi), "vkBeginCommandBuffer");
  // Order this recording behind everything submitted before it.
  ctx_->full_barrier(pool_.cb);
}

VulkanEncoder::~VulkanEncoder() {
  std::vector<std::shared_ptr<const void>> retained;
  {
    std::lock_guard lock(ctx_->mu);
    ctx_->live_encoders.erase(this);
    if (open_ && ctx_->alive) ctx_->recycle_pool_locked(pool_);
    retained.swap(retained_);
  }
  // `retained` goes here, outside the lock: its destructors take it.
}

std::vector<std::shared_ptr<const void>> VulkanEncoder::orphan_locked() {
  open_ = false;
  timing_ = nullptr;
  timed_sets_.clear();
  return std::move(retained_);
}

void VulkanEncoder::ensure_open() const {
  if (!open_) throw Error("encoder: its device was closed");
}

void VulkanEncoder::barrier_if_needed() {
  if (needs_barrier_) ctx_->full_barrier(pool_.cb);
  needs_barrier_ = false;
}

void VulkanEncoder::end_timed_pass() {
  if (!timed_pass_open_) return;
  ctx_->fn.vkCmdWriteTimestamp(pool_.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timing_->pool, next_slot_ + 1);
  next_slot_ += 2;
  timed_pass_open_ = false;
}

void VulkanEncoder::begin_compute_pass() {
  ensure_open();
  end_timed_pass();
  barrier_if_needed();
  if (timing_ != nullptr && next_slot_ + 2 <= 2 * timing_->pass_capacity()) {
    // Bottom of pipe: written once everything before has finished. A top-of-pipe stamp can be
    // written while the previous pass still runs, which would charge its tail to this pass.
    ctx_->fn.vkCmdWriteTimestamp(pool_.cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timing_->pool, next_slot_);
    timed_pass_open_ = true;
  }
}

void VulkanEncoder::bind(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push) {
  auto& k = static_cast<VulkanKernel&>(kernel);
  auto& g = static_cast<VulkanBindGroup&>(group);
  const DeviceFunctions& fn = ctx_->fn;
  fn.vkCmdBindPipeline(pool_.cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  fn.vkCmdBindDescriptorSets(pool_.cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &g.set, 0, nullptr);
  if (!push.empty())
    fn.vkCmdPushConstants(pool_.cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(push.size()),
                          push.data());
  retained_.push_back(k.shared_from_this());
  retained_.push_back(g.shared_from_this());
  any_work_ = true;
  needs_barrier_ = true;
}

void VulkanEncoder::dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                             Grid grid) {
  ensure_open();
  bind(kernel, group, push);
  ctx_->fn.vkCmdDispatch(pool_.cb, grid.x, grid.y, grid.z);
}

void VulkanEncoder::dispatch_indirect(backend::Kernel& kernel, backend::BindGroup& group,
                                      std::span<const std::byte> push, backend::Buffer& args, uint64_t offset) {
  ensure_open();
  bind(kernel, group, push);
  ctx_->fn.vkCmdDispatchIndirect(pool_.cb, static_cast<VulkanBuffer&>(args).handle(), offset);
}

void VulkanEncoder::copy_buffer(backend::Buffer& src, uint64_t src_offset, backend::Buffer& dst, uint64_t dst_offset,
                                uint64_t bytes) {
  ensure_open();
  end_timed_pass();
  barrier_if_needed();
  VkBufferCopy region{src_offset, dst_offset, bytes};
  ctx_->fn.vkCmdCopyBuffer(pool_.cb, static_cast<VulkanBuffer&>(src).handle(),
                           static_cast<VulkanBuffer&>(dst).handle(), 1, &region);
  any_work_ = true;
  needs_barrier_ = true;
}

void VulkanEncoder::begin_pass_timing(backend::TimestampSet& set) {
  ensure_open();
  end_timed_pass();
  timing_ = &static_cast<VulkanTimestampSet&>(set);
  ctx_->fn.vkCmdResetQueryPool(pool_.cb, timing_->pool, 0, 2 * timing_->pass_capacity());
  next_slot_ = 0;
  timed_sets_.push_back(timing_);
  retained_.push_back(timing_->shared_from_this());
}

VkCommandBuffer VulkanEncoder::finish() {
  ensure_open();
  end_timed_pass();
  if (timing_ != nullptr) timing_->slots_written = next_slot_;
  check(ctx_->fn.vkEndCommandBuffer(pool_.cb), "vkEndCommandBuffer");
  return pool_.cb;
}

void VulkanEncoder::submitted(uint64_t serial) {
  {
    std::lock_guard lock(ctx_->mu);
    ctx_->retire_pool_locked(pool_, serial);
    ctx_->live_encoders.erase(this);
    open_ = false;
    for (VulkanTimestampSet* s : timed_sets_) s->serial = serial;
  }
  retained_.clear();  // destroyed after this submission, through the deferred queue
}

// ---- VulkanTimestampSet ----

VulkanTimestampSet::VulkanTimestampSet(std::shared_ptr<Context> ctx, uint32_t passes)
    : ctx_(std::move(ctx)), passes_(passes) {
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) throw Error("create_timestamp_set: the device is closed");
  VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  ci.queryCount = 2 * passes;
  call_checked("vkCreateQueryPool", 0, [&] { return ctx_->fn.vkCreateQueryPool(ctx_->device, &ci, nullptr, &pool); });
  validation::track(pool, ctx_->id);
}

VulkanTimestampSet::~VulkanTimestampSet() {
  std::lock_guard lock(ctx_->mu);
  if (!ctx_->alive) return;
  Context* ctx = ctx_.get();
  VkQueryPool p = pool;
  ctx_->defer_locked([ctx, p] {
    validation::untrack(p);
    ctx->fn.vkDestroyQueryPool(ctx->device, p, nullptr);
  });
}

std::vector<uint64_t> VulkanTimestampSet::read_slots() {
  std::vector<uint64_t> ticks(slots_written);
  if (slots_written == 0) return ticks;
  check(ctx_->fn.vkGetQueryPoolResults(ctx_->device, pool, 0, slots_written, ticks.size() * 8, ticks.data(), 8,
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
