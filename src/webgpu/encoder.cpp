// Command encoders: one WebGPU compute pass per backend pass (a new pass orders its dispatches
// after the previous pass's, Dawn placing the barriers), copies between passes, push constants
// through the device's ring.
#include <cstring>

#include "onegpu/errors.h"
#include "webgpu/objects.h"

namespace onegpu::webgpu {

namespace {

UnsupportedError no_textures(const char* what) {
  return UnsupportedError(what, "a backend with textures", "webgpu (not yet)");
}

}  // namespace

WebGpuEncoder::WebGpuEncoder(std::shared_ptr<Context> ctx, std::shared_ptr<const AdapterInfo> info,
                             std::shared_ptr<PushRing> ring)
    : ctx_(std::move(ctx)), info_(std::move(info)), ring_(std::move(ring)) {
  owner_ = ctx_.get();
  abi::CommandEncoderDescriptor d;
  std::lock_guard lock(ctx_->api);
  encoder_ = CommandEncoderHandle(ctx_.get(), ctx_->fn.wgpuDeviceCreateCommandEncoder(ctx_->device, &d));
}

WebGpuEncoder::~WebGpuEncoder() {
  pass_.reset();
  for (auto& b : push_blocks_) ring_->give_back(std::move(b));
}

const ComputeCapabilities& WebGpuEncoder::capabilities() const { return info_->compute; }
const TextureCapabilities& WebGpuEncoder::texture_capabilities() const { return info_->texture; }

void WebGpuEncoder::end_pass() {
  if (!pass_) return;
  {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuComputePassEncoderEnd(pass_.get());
  }
  pass_.reset();
}

backend::ComputePassEncoder& WebGpuEncoder::begin_compute_pass() {
  end_pass();
  abi::ComputePassDescriptor d;
  abi::PassTimestampWrites writes;
  if (timing_ != nullptr && next_slot_ + 2 <= 2 * timing_->pass_capacity()) {
    writes.query_set = timing_->query_set();
    writes.beginning_of_pass_write_index = next_slot_;
    writes.end_of_pass_write_index = next_slot_ + 1;
    d.timestamp_writes = &writes;
    next_slot_ += 2;
  }
  std::lock_guard lock(ctx_->api);
  pass_ = ComputePassHandle(ctx_.get(), ctx_->fn.wgpuCommandEncoderBeginComputePass(encoder_.get(), &d));
  return pass_api_;
}

backend::RenderPassEncoder& WebGpuEncoder::begin_render_pass(const RenderPassDescriptor&) {
  throw UnsupportedError("render_passes", "a backend with render passes", "webgpu (not yet)");
}

void WebGpuEncoder::copy_buffer(backend::Buffer& src, uint64_t src_offset, backend::Buffer& dst,
                                uint64_t dst_offset, uint64_t bytes) {
  end_pass();
  keep_.push_back(src.shared_from_this());
  keep_.push_back(dst.shared_from_this());
  std::lock_guard lock(ctx_->api);
  ctx_->fn.wgpuCommandEncoderCopyBufferToBuffer(encoder_.get(), static_cast<WebGpuBuffer&>(src).handle(), src_offset,
                                                static_cast<WebGpuBuffer&>(dst).handle(), dst_offset, bytes);
}

void WebGpuEncoder::copy_buffer_to_texture(backend::Buffer&, const BufferImageCopy&, backend::Texture&) {
  throw no_textures("copy_buffer_to_texture");
}
void WebGpuEncoder::copy_texture_to_buffer(backend::Texture&, const BufferImageCopy&, backend::Buffer&) {
  throw no_textures("copy_texture_to_buffer");
}
void WebGpuEncoder::copy_texture(backend::Texture&, const TextureRegion&, backend::Texture&, const TextureRegion&) {
  throw no_textures("copy_texture");
}
void WebGpuEncoder::generate_mipmaps(backend::Texture&) { throw no_textures("generate_mipmaps"); }
void WebGpuEncoder::begin_pass_timing(backend::TimestampSet& set) {
  end_pass();
  resolve_timing();
  timing_ = &static_cast<WebGpuTimestampSet&>(set);
  next_slot_ = 0;
  timed_sets_.push_back(timing_->shared_from_this());
}

void WebGpuEncoder::resolve_timing() {
  if (timing_ == nullptr) return;
  timing_->slots_written = next_slot_;
  if (next_slot_ != 0) {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuCommandEncoderResolveQuerySet(encoder_.get(), timing_->query_set(), 0, next_slot_,
                                               timing_->resolved(), 0);
  }
  timing_ = nullptr;
}

void WebGpuEncoder::report_work(uint64_t operations) { work_ += operations; }

void WebGpuEncoder::split_submission() {
  end_pass();
  std::lock_guard lock(ctx_->api);
  abi::CommandBufferDescriptor cd;
  finished_.emplace_back(ctx_.get(), ctx_->fn.wgpuCommandEncoderFinish(encoder_.get(), &cd));
  abi::CommandEncoderDescriptor d;
  encoder_ = CommandEncoderHandle(ctx_.get(), ctx_->fn.wgpuDeviceCreateCommandEncoder(ctx_->device, &d));
}

std::pair<abi::BindGroup, uint32_t> WebGpuEncoder::push_slot(std::span<const std::byte> push, WgslPushConstants kind) {
  if (push_blocks_.empty() || push_blocks_.back()->staged.size() == push_blocks_.back()->capacity)
    push_blocks_.push_back(ring_->take());
  PushBlock& b = *push_blocks_.back();
  const auto offset = static_cast<uint32_t>(b.staged.size());
  b.staged.resize(offset + kPushSlotBytes);
  std::memcpy(b.staged.data() + offset, push.data(), push.size());
  return {b.groups[static_cast<size_t>(kind)].get(), offset};
}

std::vector<CommandBufferHandle> WebGpuEncoder::finish() {
  end_pass();
  resolve_timing();
  std::lock_guard lock(ctx_->api);
  // The push constants reach their blocks before the command buffers run: a queue write runs
  // before every submission made after it.
  for (const auto& b : push_blocks_)
    ctx_->fn.wgpuQueueWriteBuffer(ctx_->queue, b->buffer.get(), 0, b->staged.data(), b->staged.size());
  abi::CommandBufferDescriptor cd;
  finished_.emplace_back(ctx_.get(), ctx_->fn.wgpuCommandEncoderFinish(encoder_.get(), &cd));
  encoder_.reset();
  keep_.clear();
  return std::exchange(finished_, {});
}

void WebGpuComputePass::bind(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push) {
  auto& k = static_cast<WebGpuKernel&>(kernel);
  auto& g = static_cast<WebGpuBindGroup&>(group);
  e_.keep_.push_back(k.shared_from_this());
  std::pair<abi::BindGroup, uint32_t> slot{};
  if (k.reflection().push_constant_size != 0) slot = e_.push_slot(push, k.push_kind());
  Context& ctx = *e_.ctx_;
  std::lock_guard lock(ctx.api);
  abi::ComputePassEncoder pass = e_.pass_.get();
  ctx.fn.wgpuComputePassEncoderSetPipeline(pass, k.pipeline());
  for (uint32_t set = 0; set < g.groups().size(); ++set)
    ctx.fn.wgpuComputePassEncoderSetBindGroup(pass, set, g.groups()[set].get(), 0, nullptr);
  if (slot.first != nullptr) ctx.fn.wgpuComputePassEncoderSetBindGroup(pass, k.push_group(), slot.first, 1, &slot.second);
}

void WebGpuComputePass::dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                                 Grid grid) {
  bind(kernel, group, push);
  std::lock_guard lock(e_.ctx_->api);
  e_.ctx_->fn.wgpuComputePassEncoderDispatchWorkgroups(e_.pass_.get(), grid.x, grid.y, grid.z);
}

void WebGpuComputePass::dispatch_indirect(backend::Kernel& kernel, backend::BindGroup& group,
                                          std::span<const std::byte> push, backend::Buffer& args, uint64_t offset) {
  bind(kernel, group, push);
  e_.keep_.push_back(args.shared_from_this());
  std::lock_guard lock(e_.ctx_->api);
  e_.ctx_->fn.wgpuComputePassEncoderDispatchWorkgroupsIndirect(e_.pass_.get(),
                                                               static_cast<WebGpuBuffer&>(args).handle(), offset);
}

void WebGpuComputePass::end() { e_.end_pass(); }

}  // namespace onegpu::webgpu
