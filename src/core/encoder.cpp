#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "backend/backend.h"
#include "core/checks.h"
#include "core/env.h"
#include "core/texture_checks.h"
#include "onegpu/encoder.h"
#include "onegpu/errors.h"
#include "onegpu/texture.h"
#include "onegpu/timestamps.h"

namespace onegpu {

namespace detail {

// What a CommandEncoder and its passes share; the passes hold it too, so a pass outliving its
// encoder (or used after submission) finds `impl` gone instead of a dangling pointer.
struct EncoderState {
  std::unique_ptr<backend::Encoder> impl;
  backend::ComputePassEncoder* pass = nullptr;       // the open compute pass, if any
  backend::RenderPassEncoder* render_pass = nullptr;  // the open render pass, if any
  uint32_t open_pass = 0;                            // its number (from 1); 0 when none is open
  uint32_t sequence = 0;                             // passes of either kind begun
  uint32_t passes = 0;                               // compute passes
  uint32_t dispatches = 0;
  uint32_t render_passes = 0;
  uint32_t draws = 0;

  void end_pass() {
    if (pass != nullptr) pass->end();
    if (render_pass != nullptr) render_pass->end();
    pass = nullptr;
    render_pass = nullptr;
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
  if (&group.impl().layout_owner() != &kernel.impl())
    throw KernelShapeError(operation, "group", "the bind group was made for '" +
                                                   group.impl().layout_label() + "', not kernel '" +
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
    throw UsageError(operation, "the compute pass has ended");
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
    state_->render_pass = nullptr;
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
  ++s.passes;
  s.open_pass = ++s.sequence;
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
uint32_t CommandEncoder::render_pass_count() const { return state_ ? state_->render_passes : 0; }
uint32_t CommandEncoder::draw_count() const { return state_ ? state_->draws : 0; }

// ---- RenderPass ----

namespace {
constexpr uint32_t kMaxRenderArea = 4096;
}  // namespace

struct RenderPass::State {
  uint32_t width = 0, height = 0;
  std::vector<TextureFormat> colors;  // the attachments' formats
  std::optional<TextureFormat> depth;
  uint32_t samples = 1;
  const backend::RenderPipeline* pipeline = nullptr;
  const backend::BindGroup* group = nullptr;
  struct Slot {
    bool set = false;
    uint64_t bytes = 0;  // from the offset to the buffer's end
  };
  std::vector<Slot> vertex;
  bool index_set = false;
  IndexFormat index_format = IndexFormat::uint32;
  uint64_t index_bytes = 0;
  bool push_set = false;
  uint64_t push_size = 0;
};

RenderPass::RenderPass() = default;
RenderPass::RenderPass(std::shared_ptr<detail::EncoderState> state, uint32_t index)
    : state_(std::move(state)), index_(index), st_(std::make_unique<State>()) {}
RenderPass::RenderPass(RenderPass&&) noexcept = default;
RenderPass& RenderPass::operator=(RenderPass&&) noexcept = default;
RenderPass::~RenderPass() = default;

bool RenderPass::ended() const {
  return !state_ || !state_->impl || state_->open_pass != index_ || index_ == 0;
}

detail::EncoderState& RenderPass::open(const char* operation) const {
  if (!state_) throw UsageError(operation, "the pass is empty");
  if (!state_->impl) throw UsageError(operation, "the pass's encoder was submitted or destroyed");
  if (state_->open_pass != index_) throw UsageError(operation, "the render pass has ended");
  return *state_;
}

void RenderPass::end() {
  if (ended()) return;
  state_->end_pass();
}

namespace {

// Checks one attachment's texture; returns its size at `mip`.
Extent3 check_attachment(const backend::Encoder& encoder, const std::string& arg, const Texture* t, uint32_t mip,
                         uint32_t layer) {
  constexpr const char* kOp = "begin_render_pass";
  if (t == nullptr || !*t) throw KernelShapeError(kOp, arg, "no texture given");
  check_same_device(kOp, "the texture", t->impl(), encoder);
  const TextureDescriptor& d = t->descriptor();
  if (!has(d.usage, TextureUsage::render_target))
    throw KernelShapeError(kOp, arg, "texture '" + d.label + "' has usage " + texture_usage_names(d.usage) +
                                         ", not render_target");
  if (d.dimension == TextureDimension::d3) throw KernelShapeError(kOp, arg, "a d3 texture cannot be an attachment");
  if (mip >= d.mip_levels)
    throw KernelShapeError(kOp, arg, "mip " + std::to_string(mip) + " of a texture of " + std::to_string(d.mip_levels));
  if (layer >= d.depth_or_layers)
    throw KernelShapeError(kOp, arg,
                           "layer " + std::to_string(layer) + " of a texture of " + std::to_string(d.depth_or_layers));
  return t->mip_extent(mip);
}

}  // namespace

RenderPass CommandEncoder::begin_render_pass(const RenderPassDescriptor& d) {
  constexpr const char* kOp = "begin_render_pass";
  detail::EncoderState& s = state(kOp);
  const bool attached = !d.color_attachments.empty() || d.depth_attachment.has_value();
  RenderPass::State st;
  if (!attached) {
    for (auto [value, name] : {std::pair{d.width, "width"}, std::pair{d.height, "height"}})
      if (value == 0 || value > kMaxRenderArea)
        throw KernelShapeError(kOp, name, std::to_string(value) + " is outside 1.." + std::to_string(kMaxRenderArea));
    st.width = d.width;
    st.height = d.height;
  } else {
    if (d.width != 0 || d.height != 0)
      throw KernelShapeError(kOp, "width", "a pass with attachments takes their size; leave width and height 0");
    std::optional<Extent3> size;
    std::optional<uint32_t> samples;
    // Every attachment the same size and sample count.
    auto same = [&](const std::string& arg, Extent3 e, uint32_t n) {
      if (size && (e.width != size->width || e.height != size->height))
        throw KernelShapeError(kOp, arg, std::to_string(e.width) + " x " + std::to_string(e.height) +
                                             ", the other attachments are " + std::to_string(size->width) + " x " +
                                             std::to_string(size->height));
      if (samples && n != *samples)
        throw KernelShapeError(kOp, arg, std::to_string(n) + " samples, the other attachments have " +
                                             std::to_string(*samples));
      size = e;
      samples = n;
    };
    for (size_t i = 0; i < d.color_attachments.size(); ++i) {
      const RenderPassColorAttachment& a = d.color_attachments[i];
      const std::string arg = "color_attachments[" + std::to_string(i) + "]";
      const Extent3 e = check_attachment(*s.impl, arg, a.texture, a.mip, a.layer);
      const TextureDescriptor& td = a.texture->descriptor();
      if (is_depth_format(td.format))
        throw KernelShapeError(kOp, arg, std::string(format_name(td.format)) + " is a depth format");
      same(arg, e, td.sample_count);
      st.colors.push_back(td.format);
      if (a.resolve_target != nullptr) {
        const Extent3 r = check_attachment(*s.impl, arg + ".resolve_target", a.resolve_target, a.resolve_mip,
                                           a.resolve_layer);
        const TextureDescriptor& rd = a.resolve_target->descriptor();
        if (td.sample_count == 1) throw KernelShapeError(kOp, arg + ".resolve_target", "the attachment has 1 sample");
        if (format_info(td.format).kind == TexelKind::uint_)
          throw KernelShapeError(kOp, arg + ".resolve_target", "an integer format does not resolve");
        if (rd.sample_count != 1 || rd.format != td.format || r.width != e.width || r.height != e.height)
          throw KernelShapeError(kOp, arg + ".resolve_target",
                                 "must be a 1-sample " + std::string(format_name(td.format)) + " of " +
                                     std::to_string(e.width) + " x " + std::to_string(e.height));
      }
    }
    if (d.depth_attachment) {
      const RenderPassDepthAttachment& a = *d.depth_attachment;
      const Extent3 e = check_attachment(*s.impl, "depth_attachment", a.texture, a.mip, a.layer);
      const TextureDescriptor& td = a.texture->descriptor();
      if (!is_depth_format(td.format))
        throw KernelShapeError(kOp, "depth_attachment", std::string(format_name(td.format)) + " is not a depth format");
      if (!(a.depth_clear_value >= 0 && a.depth_clear_value <= 1))
        throw KernelShapeError(kOp, "depth_attachment", "depth_clear_value must lie in [0, 1]");
      same("depth_attachment", e, td.sample_count);
      st.depth = td.format;
    }
    st.width = size->width;
    st.height = size->height;
    st.samples = *samples;
  }
  s.end_pass();
  s.render_pass = &s.impl->begin_render_pass(d);
  ++s.render_passes;
  s.open_pass = ++s.sequence;
  RenderPass pass(state_, s.open_pass);
  *pass.st_ = std::move(st);
  return pass;
}

void RenderPass::set_pipeline(const RenderPipeline& pipeline) {
  detail::EncoderState& s = open("set_pipeline");
  if (!pipeline) throw KernelShapeError("set_pipeline", "pipeline", "the pipeline is empty");
  check_same_device("set_pipeline", "the pipeline", pipeline.impl(), *s.impl);
  const backend::RenderPipeline::Targets& t = pipeline.impl().targets();
  auto names = [](const std::vector<TextureFormat>& v, std::optional<TextureFormat> depth, uint32_t n) {
    std::string out = "colour {";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::string(format_name(v[i]));
    out += "}, depth " + (depth ? std::string(format_name(*depth)) : std::string("none"));
    return out + ", " + std::to_string(n) + " samples";
  };
  if (t.colors != st_->colors || t.depth != st_->depth || t.samples != st_->samples)
    throw KernelShapeError("set_pipeline", "pipeline",
                           "pipeline '" + pipeline.label() + "' renders to " + names(t.colors, t.depth, t.samples) +
                               ", the pass has " + names(st_->colors, st_->depth, st_->samples));
  st_->pipeline = &pipeline.impl();
  st_->push_set = false;  // push constants belong to a pipeline's layout
  s.render_pass->set_pipeline(pipeline.impl());
}

void RenderPass::set_bind_group(const BindGroup& group) {
  detail::EncoderState& s = open("set_bind_group");
  if (!group) throw KernelShapeError("set_bind_group", "group", "the bind group is empty");
  check_same_device("set_bind_group", "the bind group", group.impl(), *s.impl);
  const auto& bound = group.impl().buffers();
  for (size_t i = 0; i < bound.size(); ++i)
    if (bound[i].buffer.expired())
      throw UsageError("set_bind_group", "binding " + std::to_string(i) + " of '" + group.impl().layout_label() +
                                             "': its buffer (id " + std::to_string(bound[i].id) + ") was destroyed");
  for (const auto& t : group.impl().textures())
    if (t.texture.expired())
      throw UsageError("set_bind_group", "a texture of '" + group.impl().layout_label() + "' (id " +
                                             std::to_string(t.id) + ") was destroyed");
  st_->group = &group.impl();
  s.render_pass->set_bind_group(group.impl());
}

void RenderPass::set_vertex_buffer(uint32_t slot, const RawBuffer& buffer, uint64_t offset) {
  detail::EncoderState& s = open("set_vertex_buffer");
  if (!buffer) throw KernelShapeError("set_vertex_buffer", "buffer", "the buffer is empty");
  check_same_device("set_vertex_buffer", "the buffer", buffer.impl(), *s.impl);
  if (slot >= 32) throw KernelShapeError("set_vertex_buffer", "slot", std::to_string(slot) + " is not below 32");
  if (offset % 4 != 0)
    throw KernelShapeError("set_vertex_buffer", "offset", std::to_string(offset) + " is not a multiple of 4");
  core::check_range("set_vertex_buffer", "offset", offset, 0, buffer.size_bytes());
  if (st_->vertex.size() <= slot) st_->vertex.resize(slot + 1);
  st_->vertex[slot] = {true, buffer.size_bytes() - offset};
  s.render_pass->set_vertex_buffer(slot, buffer.impl(), offset);
}

void RenderPass::set_index_buffer(const RawBuffer& buffer, IndexFormat format, uint64_t offset) {
  detail::EncoderState& s = open("set_index_buffer");
  if (!buffer) throw KernelShapeError("set_index_buffer", "buffer", "the buffer is empty");
  check_same_device("set_index_buffer", "the buffer", buffer.impl(), *s.impl);
  if (format != IndexFormat::uint16 && format != IndexFormat::uint32)
    throw KernelShapeError("set_index_buffer", "format", "not an IndexFormat");
  const uint64_t size = format == IndexFormat::uint16 ? 2 : 4;
  if (offset % size != 0)
    throw KernelShapeError("set_index_buffer", "offset",
                           std::to_string(offset) + " is not a multiple of the index size " + std::to_string(size));
  core::check_range("set_index_buffer", "offset", offset, 0, buffer.size_bytes());
  st_->index_set = true;
  st_->index_format = format;
  st_->index_bytes = buffer.size_bytes() - offset;
  s.render_pass->set_index_buffer(buffer.impl(), format, offset);
}

void RenderPass::set_viewport(const Viewport& v) {
  detail::EncoderState& s = open("set_viewport");
  const bool finite = std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.width) && std::isfinite(v.height);
  if (!finite || v.x < 0 || v.y < 0 || !(v.width > 0) || !(v.height > 0) ||
      double(v.x) + v.width > st_->width || double(v.y) + v.height > st_->height)
    throw KernelShapeError("set_viewport", "viewport",
                           "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ") size " + std::to_string(v.width) +
                               " x " + std::to_string(v.height) + " is not a non-empty rectangle inside the " +
                               std::to_string(st_->width) + " x " + std::to_string(st_->height) + " render area");
  if (!(v.min_depth >= 0 && v.min_depth <= 1 && v.max_depth >= 0 && v.max_depth <= 1))
    throw KernelShapeError("set_viewport", "depth", "min_depth and max_depth must lie in [0, 1]");
  s.render_pass->set_viewport(v);
}

void RenderPass::set_scissor(const ScissorRect& r) {
  detail::EncoderState& s = open("set_scissor");
  if (uint64_t(r.x) + r.width > st_->width || uint64_t(r.y) + r.height > st_->height)
    throw KernelShapeError("set_scissor", "rect",
                           "(" + std::to_string(r.x) + ", " + std::to_string(r.y) + ") size " + std::to_string(r.width) +
                               " x " + std::to_string(r.height) + " is outside the " + std::to_string(st_->width) +
                               " x " + std::to_string(st_->height) + " render area");
  s.render_pass->set_scissor(r);
}

void RenderPass::set_push_constants(std::span<const std::byte> bytes) {
  detail::EncoderState& s = open("set_push_constants");
  if (st_->pipeline == nullptr) throw UsageError("set_push_constants", "no pipeline is set");
  const uint64_t want = st_->pipeline->reflection().push_constant_size;
  if (bytes.size() != want)
    throw KernelShapeError("set_push_constants", "push_constants",
                           std::to_string(bytes.size()) + " bytes given, pipeline '" + st_->pipeline->label() +
                               "' declares " + std::to_string(want));
  st_->push_set = true;
  st_->push_size = want;
  s.render_pass->set_push_constants(bytes);
}

void RenderPass::check_draw(const char* operation, detail::EncoderState&) const {
  const backend::RenderPipeline* p = st_->pipeline;
  if (p == nullptr) throw UsageError(operation, "no pipeline is set");
  if (!p->reflection().bindings.empty()) {
    if (st_->group == nullptr) throw KernelShapeError(operation, "group", "pipeline '" + p->label() + "' needs a bind group");
    if (&st_->group->layout_owner() != p)
      throw KernelShapeError(operation, "group", "the bind group was made for '" + st_->group->layout_label() +
                                                     "', not pipeline '" + p->label() + "'");
  }
  if (p->reflection().push_constant_size != 0 && !st_->push_set)
    throw KernelShapeError(operation, "push_constants", "pipeline '" + p->label() + "' declares " +
                                                            std::to_string(p->reflection().push_constant_size) +
                                                            " bytes of push constants and none were set");
  for (size_t i = 0; i < p->vertex_buffers().size(); ++i)
    if (i >= st_->vertex.size() || !st_->vertex[i].set)
      throw KernelShapeError(operation, "vertex buffer " + std::to_string(i), "no buffer is set in slot " + std::to_string(i));
}

// The elements [first, first + count) of every slot stepping by `mode` lie inside their buffers.
void RenderPass::check_vertices(const char* operation, VertexStepMode mode, uint64_t first, uint64_t count) const {
  if (count == 0) return;
  const auto& layouts = st_->pipeline->vertex_buffers();
  for (size_t i = 0; i < layouts.size(); ++i) {
    const VertexBufferLayout& l = layouts[i];
    if (l.step_mode != mode || l.attributes.empty()) continue;
    uint64_t extent = 0;
    for (const VertexAttribute& a : l.attributes) extent = std::max(extent, a.offset + vertex_format_info(a.format).bytes);
    uint64_t need = 0;
    const bool wraps = __builtin_mul_overflow(first + count - 1, l.stride, &need) ||
                       __builtin_add_overflow(need, extent, &need);
    if (wraps || need > st_->vertex[i].bytes) {
      const char* what = mode == VertexStepMode::vertex ? "vertex" : "instance";
      throw KernelShapeError(operation, mode == VertexStepMode::vertex ? "vertex_count" : "instance_count",
                             std::string(what) + "s [" + std::to_string(first) + ", " + std::to_string(first + count) +
                                 ") of slot " + std::to_string(i) + " need " +
                                 (wraps ? std::string("more than 2^64") : std::to_string(need)) +
                                 " bytes, the buffer has " + std::to_string(st_->vertex[i].bytes) + " from its offset");
    }
  }
}

void RenderPass::draw(uint32_t vertices, uint32_t instances, uint32_t first_vertex, uint32_t first_instance) {
  detail::EncoderState& s = open("draw");
  check_draw("draw", s);
  if (instances != 0) check_vertices("draw", VertexStepMode::vertex, first_vertex, vertices);
  if (vertices != 0) check_vertices("draw", VertexStepMode::instance, first_instance, instances);
  ++s.draws;
  s.render_pass->draw(vertices, instances, first_vertex, first_instance);
}

void RenderPass::draw_indexed(uint32_t indices, uint32_t instances, uint32_t first_index, int32_t base_vertex,
                              uint32_t first_instance) {
  detail::EncoderState& s = open("draw_indexed");
  check_draw("draw_indexed", s);
  if (!st_->index_set) throw KernelShapeError("draw_indexed", "index_buffer", "no index buffer is set");
  const uint64_t size = st_->index_format == IndexFormat::uint16 ? 2 : 4;
  if ((uint64_t(first_index) + indices) * size > st_->index_bytes)
    throw KernelShapeError("draw_indexed", "index_count",
                           "indices [" + std::to_string(first_index) + ", " + std::to_string(uint64_t(first_index) + indices) +
                               ") need " + std::to_string((uint64_t(first_index) + indices) * size) +
                               " bytes, the index buffer has " + std::to_string(st_->index_bytes) + " from its offset");
  if (indices != 0) check_vertices("draw_indexed", VertexStepMode::instance, first_instance, instances);
  ++s.draws;
  s.render_pass->draw_indexed(indices, instances, first_index, base_vertex, first_instance);
}

namespace {
void check_indirect(const char* operation, const backend::Encoder& encoder, const RawBuffer& args, uint64_t offset,
                    uint64_t bytes) {
  if (!args) throw KernelShapeError(operation, "args", "the buffer is empty");
  check_same_device(operation, "the argument buffer", args.impl(), encoder);
  if (offset % 4 != 0) throw KernelShapeError(operation, "offset", std::to_string(offset) + " is not a multiple of 4");
  core::check_range(operation, "offset", offset, bytes, args.size_bytes());
}
}  // namespace

void RenderPass::draw_indirect(const RawBuffer& args, uint64_t offset) {
  detail::EncoderState& s = open("draw_indirect");
  check_draw("draw_indirect", s);
  check_indirect("draw_indirect", *s.impl, args, offset, 16);
  ++s.draws;
  s.render_pass->draw_indirect(args.impl(), offset, false);
}

void RenderPass::draw_indexed_indirect(const RawBuffer& args, uint64_t offset) {
  detail::EncoderState& s = open("draw_indexed_indirect");
  check_draw("draw_indexed_indirect", s);
  if (!st_->index_set) throw KernelShapeError("draw_indexed_indirect", "index_buffer", "no index buffer is set");
  check_indirect("draw_indexed_indirect", *s.impl, args, offset, 20);
  ++s.draws;
  s.render_pass->draw_indirect(args.impl(), offset, true);
}

}  // namespace onegpu
