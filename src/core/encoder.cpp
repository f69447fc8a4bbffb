#include <cstdlib>

#include "backend/backend.h"
#include "core/checks.h"
#include "core/env.h"
#include "core/texture_checks.h"
#include "onegpu/encoder.h"
#include "onegpu/errors.h"
#include "onegpu/timestamps.h"

namespace onegpu {

namespace detail {

// What a CommandEncoder and its passes share; the passes hold it too, so a pass outliving its
// encoder (or used after submission) finds `impl` gone instead of a dangling pointer.
struct EncoderState {
  std::unique_ptr<backend::Encoder> impl;
  backend::ComputePassEncoder* pass = nullptr;  // the open pass, if any
  uint32_t open_pass = 0;                       // its number (from 1); 0 when none is open
  uint32_t passes = 0;
  uint32_t dispatches = 0;

  void end_pass() {
    if (pass != nullptr) pass->end();
    pass = nullptr;
    open_pass = 0;
  }
};

}  // namespace detail

namespace {

void check_same_device(const char* operation, const char* what, const backend::DeviceObject& object,
                       const backend::Encoder& encoder) {
  if (object.owner() != encoder.owner())
    throw UsageError(operation, std::string(what) + " belongs to another device than the encoder");
}

void check_dispatch(const char* operation, const backend::Encoder& encoder, const ComputeKernel& kernel,
                    const BindGroup& group, std::span<const std::byte> push) {
  if (!kernel) throw KernelShapeError(operation, "kernel", "the kernel is empty");
  if (!group) throw KernelShapeError(operation, "group", "the bind group is empty");
  check_same_device(operation, "the kernel", kernel.impl(), encoder);
  if (&group.impl().kernel() != &kernel.impl())
    throw KernelShapeError(operation, "group", "the bind group was made for kernel '" +
                                                   group.impl().kernel().label() + "', not '" +
                                                   kernel.label() + "'");
  uint32_t want = kernel.reflection().push_constant_size;
  if (push.size() != want)
    throw KernelShapeError(operation, "push_constants",
                           std::to_string(push.size()) + " bytes given, kernel '" + kernel.label() +
                               "' declares " + std::to_string(want));
  const auto& bound = group.impl().buffers();
  for (size_t i = 0; i < bound.size(); ++i)
    if (bound[i].buffer.expired())
      throw UsageError(operation, "binding " + std::to_string(i) + " of kernel '" + kernel.label() +
                                      "': its buffer (id " + std::to_string(bound[i].id) +
                                      ") was destroyed");
  for (const auto& t : group.impl().textures())
    if (t.texture.expired())
      throw UsageError(operation, "kernel '" + kernel.label() + "': a texture of the group (id " +
                                      std::to_string(t.id) + ") was destroyed");
}

}  // namespace

namespace {
// ONEGPU_GRID_FOLD_WIDTH: fold linear grids at this many workgroups instead of the device's limit,
// so tests reach the folded path (gl_WorkGroupID.y > 0) with small shapes. Read once.
uint32_t grid_fold_width() {
  static const uint32_t width = [] {
    const auto v = core::env("ONEGPU_GRID_FOLD_WIDTH");
    if (!v) return 0u;
    const unsigned long n = std::strtoul(v->c_str(), nullptr, 10);
    return n > 0 && n <= UINT32_MAX ? uint32_t(n) : 0u;
  }();
  return width;
}
}  // namespace

Grid linear_grid(uint64_t workgroups, uint32_t max_x) {
  if (max_x == 0) max_x = 1;
  if (workgroups <= max_x) return {static_cast<uint32_t>(workgroups), 1, 1};
  const uint64_t rows = workgroups / max_x + (workgroups % max_x != 0);  // no overflow near 2^64
  if (rows > UINT32_MAX)
    throw UnsupportedError("max_workgroup_count", std::to_string(workgroups) + " workgroups",
                           std::to_string(max_x) + " x " + std::to_string(UINT32_MAX));
  return {max_x, static_cast<uint32_t>(rows), 1};
}

// ---- ComputePass ----

ComputePass::ComputePass() = default;
ComputePass::ComputePass(std::shared_ptr<detail::EncoderState> state, uint32_t index)
    : state_(std::move(state)), index_(index) {}
ComputePass::ComputePass(ComputePass&&) noexcept = default;
ComputePass& ComputePass::operator=(ComputePass&&) noexcept = default;
ComputePass::~ComputePass() = default;

bool ComputePass::ended() const {
  return !state_ || !state_->impl || state_->open_pass != index_ || index_ == 0;
}

detail::EncoderState& ComputePass::open(const char* operation) const {
  if (!state_) throw UsageError(operation, "the pass is empty");
  if (!state_->impl) throw UsageError(operation, "the pass's encoder was submitted or destroyed");
  if (state_->open_pass != index_)
    throw UsageError(operation, "compute pass " + std::to_string(index_) + " has ended");
  return *state_;
}

void ComputePass::dispatch(const ComputeKernel& kernel, const BindGroup& group, std::span<const std::byte> push,
                           Grid grid) {
  detail::EncoderState& s = open("dispatch");
  check_dispatch("dispatch", *s.impl, kernel, group, push);
  core::check_grid(grid, s.impl->capabilities());
  ++s.dispatches;
  if (grid.total() == 0) return;
  s.pass->dispatch(kernel.impl(), group.impl(), push, grid);
}

void ComputePass::dispatch_linear(const ComputeKernel& kernel, const BindGroup& group,
                                  std::span<const std::byte> push, uint64_t workgroups) {
  detail::EncoderState& s = open("dispatch_linear");
  const uint32_t limit = s.impl->capabilities().max_workgroup_count[0];
  const uint32_t width = grid_fold_width();
  dispatch(kernel, group, push, linear_grid(workgroups, width != 0 && width < limit ? width : limit));
}

void ComputePass::dispatch_indirect(const ComputeKernel& kernel, const BindGroup& group,
                                    std::span<const std::byte> push, const RawBuffer& args, uint64_t offset) {
  detail::EncoderState& s = open("dispatch_indirect");
  check_dispatch("dispatch_indirect", *s.impl, kernel, group, push);
  if (!args) throw KernelShapeError("dispatch_indirect", "args", "the buffer is empty");
  check_same_device("dispatch_indirect", "the argument buffer", args.impl(), *s.impl);
  if (offset % 4 != 0)
    throw KernelShapeError("dispatch_indirect", "offset", std::to_string(offset) + " is not a multiple of 4");
  core::check_range("dispatch_indirect", "offset", offset, 12, args.size_bytes());
  ++s.dispatches;
  s.pass->dispatch_indirect(kernel.impl(), group.impl(), push, args.impl(), offset);
}

void ComputePass::end() {
  if (ended()) return;
  state_->end_pass();
}

// ---- CommandEncoder ----

CommandEncoder::CommandEncoder() = default;
CommandEncoder::CommandEncoder(std::unique_ptr<backend::Encoder> impl)
    : state_(std::make_shared<detail::EncoderState>()) {
  state_->impl = std::move(impl);
}
CommandEncoder::CommandEncoder(CommandEncoder&&) noexcept = default;
CommandEncoder& CommandEncoder::operator=(CommandEncoder&&) noexcept = default;
CommandEncoder::~CommandEncoder() {
  if (state_) {
    state_->pass = nullptr;
    state_->open_pass = 0;
    state_->impl.reset();
  }
}

CommandEncoder::operator bool() const { return state_ && state_->impl; }

detail::EncoderState& CommandEncoder::state(const char* operation) const {
  if (!state_ || !state_->impl) throw UsageError(operation, "the encoder is empty (already submitted?)");
  return *state_;
}

backend::Encoder& CommandEncoder::impl() const { return *state("encoder").impl; }

std::unique_ptr<backend::Encoder> CommandEncoder::release() {
  detail::EncoderState& s = state("submit");
  s.end_pass();
  return std::move(s.impl);
}

ComputePass CommandEncoder::begin_compute_pass() {
  detail::EncoderState& s = state("begin_compute_pass");
  s.end_pass();
  s.pass = &s.impl->begin_compute_pass();
  s.open_pass = ++s.passes;
  return ComputePass(state_, s.open_pass);
}

void CommandEncoder::copy_buffer(const RawBuffer& src, uint64_t src_offset, const RawBuffer& dst,
                                 uint64_t dst_offset, uint64_t bytes) {
  detail::EncoderState& s = state("copy_buffer");
  if (!src) throw KernelShapeError("copy_buffer", "src", "the buffer is empty");
  if (!dst) throw KernelShapeError("copy_buffer", "dst", "the buffer is empty");
  check_same_device("copy_buffer", "the source buffer", src.impl(), *s.impl);
  check_same_device("copy_buffer", "the destination buffer", dst.impl(), *s.impl);
  if (src_offset % 4 || dst_offset % 4 || bytes % 4)
    throw KernelShapeError("copy_buffer", "offset",
                           "offsets " + std::to_string(src_offset) + ", " + std::to_string(dst_offset) +
                               " and size " + std::to_string(bytes) + " must be multiples of 4");
  core::check_range("copy_buffer", "src_offset", src_offset, bytes, src.size_bytes());
  core::check_range("copy_buffer", "dst_offset", dst_offset, bytes, dst.size_bytes());
  s.end_pass();
  if (bytes == 0) return;
  s.impl->copy_buffer(src.impl(), src_offset, dst.impl(), dst_offset, bytes);
}

namespace {

backend::Encoder::BufferImageCopy buffer_image_copy(const core::ResolvedRegion& r, const core::ResolvedLayout& l) {
  return {l.offset, l.bytes_per_row, l.rows_per_image, {r.mip, r.layer, r.layers, r.x, r.y, r.z, r.width, r.height, r.depth}};
}

}  // namespace

void CommandEncoder::copy_buffer_to_texture(const RawBuffer& src, const BufferTextureLayout& layout, const Texture& dst,
                                            const TextureRegion& region) {
  const char* op = "copy_buffer_to_texture";
  detail::EncoderState& s = state(op);
  if (!src) throw KernelShapeError(op, "src", "the buffer is empty");
  check_same_device(op, "the source buffer", src.impl(), *s.impl);
  check_same_device(op, "the destination texture", dst.impl(), *s.impl);
  const TextureDescriptor& d = dst.descriptor();
  core::check_copyable(d, TextureUsage::copy_dst, op, "dst");
  const core::ResolvedRegion r = core::resolve_region(d, region, op, "region");
  const core::ResolvedLayout l = core::resolve_layout(d, r, layout, src.size_bytes(), op);
  s.end_pass();
  s.impl->copy_buffer_to_texture(src.impl(), buffer_image_copy(r, l), dst.impl());
}

void CommandEncoder::copy_texture_to_buffer(const Texture& src, const TextureRegion& region, const RawBuffer& dst,
                                            const BufferTextureLayout& layout) {
  const char* op = "copy_texture_to_buffer";
  detail::EncoderState& s = state(op);
  if (!dst) throw KernelShapeError(op, "dst", "the buffer is empty");
  check_same_device(op, "the source texture", src.impl(), *s.impl);
  check_same_device(op, "the destination buffer", dst.impl(), *s.impl);
  const TextureDescriptor& d = src.descriptor();
  core::check_copyable(d, TextureUsage::copy_src, op, "src");
  const core::ResolvedRegion r = core::resolve_region(d, region, op, "region");
  const core::ResolvedLayout l = core::resolve_layout(d, r, layout, dst.size_bytes(), op);
  s.end_pass();
  s.impl->copy_texture_to_buffer(src.impl(), buffer_image_copy(r, l), dst.impl());
}

void CommandEncoder::copy_texture(const Texture& src, const TextureRegion& region, const Texture& dst,
                                  const TextureOrigin& origin) {
  const char* op = "copy_texture";
  detail::EncoderState& s = state(op);
  check_same_device(op, "the source texture", src.impl(), *s.impl);
  check_same_device(op, "the destination texture", dst.impl(), *s.impl);
  const TextureDescriptor& sd = src.descriptor();
  const TextureDescriptor& dd = dst.descriptor();
  core::check_copyable(sd, TextureUsage::copy_src, op, "src");
  core::check_copyable(dd, TextureUsage::copy_dst, op, "dst");
  const core::ResolvedRegion r = core::resolve_region(sd, region, op, "region");
  const core::ResolvedRegion o = core::resolve_copy_destination(sd, r, dd, origin, &src.impl() == &dst.impl());
  s.end_pass();
  s.impl->copy_texture(src.impl(), {r.mip, r.layer, r.layers, r.x, r.y, r.z, r.width, r.height, r.depth}, dst.impl(),
                       {o.mip, o.layer, o.layers, o.x, o.y, o.z, o.width, o.height, o.depth});
}

void CommandEncoder::generate_mipmaps(const Texture& texture) {
  const char* op = "generate_mipmaps";
  detail::EncoderState& s = state(op);
  check_same_device(op, "the texture", texture.impl(), *s.impl);
  const TextureDescriptor& d = texture.descriptor();
  if (d.mip_levels == 1) return;
  core::check_mipmap_generation(d, s.impl->texture_capabilities());
  s.end_pass();
  s.impl->generate_mipmaps(texture.impl());
}

void CommandEncoder::begin_pass_timing(TimestampSet& set) {
  detail::EncoderState& s = state("begin_pass_timing");
  check_same_device("begin_pass_timing", "the timestamp set", set.impl(), *s.impl);
  s.impl->begin_pass_timing(set.impl());
}

void CommandEncoder::report_work(uint64_t operations) { state("report_work").impl->report_work(operations); }
void CommandEncoder::split_submission() { state("split_submission").impl->split_submission(); }
uint32_t CommandEncoder::submission_count() const { return state("submission_count").impl->submission_count(); }

uint32_t CommandEncoder::compute_pass_count() const { return state_ ? state_->passes : 0; }
uint32_t CommandEncoder::dispatch_count() const { return state_ ? state_->dispatches : 0; }

}  // namespace onegpu
