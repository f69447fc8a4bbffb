// Render passes: calls kept until the pass ends, then one barrier and dynamic rendering.
#include <cstring>

#include "onegpu/errors.h"
#include "vulkan/objects.h"
#include "vulkan/texture.h"

namespace onegpu::vulkan {

backend::RenderPassEncoder& VulkanEncoder::begin_render_pass(const RenderPassDescriptor& descriptor) {
  ensure_open();
  end_pass();
  split_if_due();
  if (timing_ != nullptr && next_slot_ + 2 <= 2 * timing_->pass_capacity()) {
    start_stamp_due_ = true;
    timed_pass_open_ = true;
  }
  in_pass_ = true;
  in_render_pass_ = true;
  cb_has_work_ = true;
  render_pass_.begin(descriptor);
  return render_pass_;
}

void VulkanEncoder::end_render_pass() {
  accesses_.clear();
  render_pass_.accesses(accesses_);
  place(hazards_.access(accesses_));
  start_timed_pass();
  render_pass_.record(cb());
  in_render_pass_ = false;
}

namespace {
VkAttachmentLoadOp load_op(LoadOp op) {
  switch (op) {
    case LoadOp::clear: return VK_ATTACHMENT_LOAD_OP_CLEAR;
    case LoadOp::load: return VK_ATTACHMENT_LOAD_OP_LOAD;
    case LoadOp::dont_care: return VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  }
  return VK_ATTACHMENT_LOAD_OP_CLEAR;
}
VkAttachmentStoreOp store_op(StoreOp op) {
  return op == StoreOp::store ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
}
}  // namespace

void VulkanRenderPass::begin(const RenderPassDescriptor& d) {
  width_ = d.width;
  height_ = d.height;
  commands_.clear();
  push_.clear();
  colors_.clear();
  depth_.reset();
  // One view per attachment: mip `mip` of layer `layer`, made (and cached) by the texture.
  auto view = [&](const Texture& t, uint32_t mip, uint32_t layer) {
    auto& vt = static_cast<VulkanTexture&>(t.impl());
    encoder_.retain(vt.shared_from_this());
    const Extent3 e = t.mip_extent(mip);
    width_ = e.width;
    height_ = e.height;
    std::lock_guard lock(encoder_.ctx_->mu);
    if (!encoder_.ctx_->alive) throw UsageError("begin_render_pass", "the device is closed");
    return vt.view_locked(TextureViewDimension::d2, mip, 1, layer, 1);
  };
  for (const RenderPassColorAttachment& a : d.color_attachments) {
    Attachment att;
    att.view = view(*a.texture, a.mip, a.layer);
    att.texture = a.texture->id();
    att.load = load_op(a.load_op);
    att.store = store_op(a.store_op);
    if (format_info(a.texture->descriptor().format).kind == TexelKind::uint_) {
      const double c[4] = {a.clear_value.r, a.clear_value.g, a.clear_value.b, a.clear_value.a};
      for (int i = 0; i < 4; ++i)
        att.clear.color.uint32[i] = c[i] <= 0 ? 0u : c[i] >= 4294967295.0 ? 4294967295u : uint32_t(c[i] + 0.5);
    } else {
      att.clear.color.float32[0] = static_cast<float>(a.clear_value.r);
      att.clear.color.float32[1] = static_cast<float>(a.clear_value.g);
      att.clear.color.float32[2] = static_cast<float>(a.clear_value.b);
      att.clear.color.float32[3] = static_cast<float>(a.clear_value.a);
    }
    if (a.resolve_target != nullptr) {
      att.resolve = view(*a.resolve_target, a.resolve_mip, a.resolve_layer);
      att.resolve_texture = a.resolve_target->id();
    }
    colors_.push_back(att);
  }
  if (d.depth_attachment) {
    const RenderPassDepthAttachment& a = *d.depth_attachment;
    Attachment att;
    att.view = view(*a.texture, a.mip, a.layer);
    att.texture = a.texture->id();
    att.load = load_op(a.depth_load_op);
    att.store = store_op(a.depth_store_op);
    att.clear.depthStencil = {a.depth_clear_value, 0};
    depth_ = att;
  }
}

void VulkanRenderPass::set_pipeline(backend::RenderPipeline& pipeline) {
  auto& p = static_cast<VulkanRenderPipeline&>(pipeline);
  encoder_.retain(p.shared_from_this());
  commands_.push_back({.op = Op::pipeline, .object = &p});
}

void VulkanRenderPass::set_bind_group(backend::BindGroup& group) {
  auto& g = static_cast<VulkanBindGroup&>(group);
  encoder_.retain(g.shared_from_this());
  for (const auto& b : g.buffers()) encoder_.retain(b.buffer.lock());
  for (const auto& t : g.textures()) encoder_.retain(t.texture.lock());
  commands_.push_back({.op = Op::bind_group, .object = &g});
}

void VulkanRenderPass::set_vertex_buffer(uint32_t slot, backend::Buffer& buffer, uint64_t offset) {
  encoder_.retain(buffer.shared_from_this());
  commands_.push_back({.op = Op::vertex_buffer, .object = &buffer, .offset = offset, .u = {slot}});
}

void VulkanRenderPass::set_index_buffer(backend::Buffer& buffer, IndexFormat format, uint64_t offset) {
  encoder_.retain(buffer.shared_from_this());
  commands_.push_back(
      {.op = Op::index_buffer, .object = &buffer, .offset = offset, .u = {static_cast<uint32_t>(format)}});
}

void VulkanRenderPass::set_viewport(const Viewport& v) {
  commands_.push_back({.op = Op::viewport, .f = {v.x, v.y, v.width, v.height, v.min_depth, v.max_depth}});
}

void VulkanRenderPass::set_scissor(const ScissorRect& r) {
  commands_.push_back({.op = Op::scissor, .u = {r.x, r.y, r.width, r.height}});
}

void VulkanRenderPass::set_push_constants(std::span<const std::byte> bytes) {
  commands_.push_back({.op = Op::push, .offset = push_.size(), .u = {static_cast<uint32_t>(bytes.size())}});
  push_.insert(push_.end(), bytes.begin(), bytes.end());
}

void VulkanRenderPass::draw(uint32_t vertices, uint32_t instances, uint32_t first_vertex, uint32_t first_instance) {
  commands_.push_back({.op = Op::draw, .u = {vertices, instances, first_vertex, first_instance}});
}

void VulkanRenderPass::draw_indexed(uint32_t indices, uint32_t instances, uint32_t first_index, int32_t base_vertex,
                                    uint32_t first_instance) {
  commands_.push_back({.op = Op::draw_indexed,
                       .u = {indices, instances, first_index, static_cast<uint32_t>(base_vertex), first_instance}});
}

void VulkanRenderPass::draw_indirect(backend::Buffer& args, uint64_t offset, bool indexed) {
  encoder_.retain(args.shared_from_this());
  commands_.push_back({.op = indexed ? Op::draw_indexed_indirect : Op::draw_indirect, .object = &args, .offset = offset});
}

void VulkanRenderPass::end() { encoder_.end_pass(); }

void VulkanRenderPass::accesses(std::vector<core::BufferAccess>& out) const {
  for (const Attachment& a : colors_) {
    out.push_back({a.texture, true});
    if (a.resolve_texture != 0) out.push_back({a.resolve_texture, true});
  }
  if (depth_) out.push_back({depth_->texture, true});
  for (const Command& c : commands_) {
    switch (c.op) {
      case Op::bind_group:
        for (const auto& b : static_cast<const VulkanBindGroup*>(c.object)->buffers())
          out.push_back({b.id, !b.read_only});
        for (const auto& t : static_cast<const VulkanBindGroup*>(c.object)->textures())
          out.push_back({t.id, !t.read_only});
        break;
      case Op::vertex_buffer: case Op::index_buffer: case Op::draw_indirect: case Op::draw_indexed_indirect:
        out.push_back({static_cast<const backend::Buffer*>(c.object)->id(), false});
        break;
      default:
        break;
    }
  }
}

void VulkanRenderPass::record(VkCommandBuffer cb) const {
  const DeviceFunctions& fn = encoder_.ctx_->fn;
  std::vector<VkRenderingAttachmentInfo> colors;
  for (const Attachment& a : colors_) {
    VkRenderingAttachmentInfo ai{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    ai.imageView = a.view;
    ai.imageLayout = VK_IMAGE_LAYOUT_GENERAL;
    ai.loadOp = a.load;
    ai.storeOp = a.store;
    ai.clearValue = a.clear;
    if (a.resolve != VK_NULL_HANDLE) {
      ai.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
      ai.resolveImageView = a.resolve;
      ai.resolveImageLayout = VK_IMAGE_LAYOUT_GENERAL;
    }
    colors.push_back(ai);
  }
  VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  if (depth_) {
    depth.imageView = depth_->view;
    depth.imageLayout = VK_IMAGE_LAYOUT_GENERAL;
    depth.loadOp = depth_->load;
    depth.storeOp = depth_->store;
    depth.clearValue = depth_->clear;
  }
  VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {width_, height_}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = static_cast<uint32_t>(colors.size());
  ri.pColorAttachments = colors.data();
  if (depth_) ri.pDepthAttachment = &depth;
  fn.vkCmdBeginRendering(cb, &ri);
  const VkViewport whole{0, 0, static_cast<float>(width_), static_cast<float>(height_), 0, 1};
  fn.vkCmdSetViewport(cb, 0, 1, &whole);
  const VkRect2D area{{0, 0}, {width_, height_}};
  fn.vkCmdSetScissor(cb, 0, 1, &area);

  const VulkanRenderPipeline* pipeline = nullptr;
  const VulkanBindGroup* group = nullptr;
  bool group_due = false, push_due = false;
  uint64_t push_at = 0;
  uint32_t push_size = 0;
  constexpr VkShaderStageFlags kStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  // The state a draw needs, bound against the current pipeline's layout.
  auto flush = [&] {
    if (group_due && group != nullptr && &group->layout_owner() == pipeline) {
      const VkDescriptorSet set = group->set();
      fn.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->layout(), 0, 1, &set, 0, nullptr);
      group_due = false;
    }
    if (push_due && push_size != 0) {
      fn.vkCmdPushConstants(cb, pipeline->layout(), kStages, 0, push_size, push_.data() + push_at);
      push_due = false;
    }
  };
  for (const Command& c : commands_) {
    switch (c.op) {
      case Op::pipeline:
        pipeline = static_cast<const VulkanRenderPipeline*>(c.object);
        fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->pipeline());
        group_due = push_due = true;
        break;
      case Op::bind_group:
        group = static_cast<const VulkanBindGroup*>(c.object);
        group_due = true;
        break;
      case Op::vertex_buffer: {
        const VkBuffer b = static_cast<const VulkanBuffer*>(c.object)->handle();
        fn.vkCmdBindVertexBuffers(cb, c.u[0], 1, &b, &c.offset);
        break;
      }
      case Op::index_buffer:
        fn.vkCmdBindIndexBuffer(cb, static_cast<const VulkanBuffer*>(c.object)->handle(), c.offset,
                                c.u[0] == static_cast<uint32_t>(IndexFormat::uint16) ? VK_INDEX_TYPE_UINT16
                                                                                     : VK_INDEX_TYPE_UINT32);
        break;
      case Op::viewport: {
        const VkViewport v{c.f[0], c.f[1], c.f[2], c.f[3], c.f[4], c.f[5]};
        fn.vkCmdSetViewport(cb, 0, 1, &v);
        break;
      }
      case Op::scissor: {
        const VkRect2D r{{static_cast<int32_t>(c.u[0]), static_cast<int32_t>(c.u[1])}, {c.u[2], c.u[3]}};
        fn.vkCmdSetScissor(cb, 0, 1, &r);
        break;
      }
      case Op::push:
        push_at = c.offset;
        push_size = c.u[0];
        push_due = true;
        break;
      case Op::draw:
        flush();
        fn.vkCmdDraw(cb, c.u[0], c.u[1], c.u[2], c.u[3]);
        break;
      case Op::draw_indexed:
        flush();
        fn.vkCmdDrawIndexed(cb, c.u[0], c.u[1], c.u[2], static_cast<int32_t>(c.u[3]), c.u[4]);
        break;
      case Op::draw_indirect:
        flush();
        fn.vkCmdDrawIndirect(cb, static_cast<const VulkanBuffer*>(c.object)->handle(), c.offset, 1, 0);
        break;
      case Op::draw_indexed_indirect:
        flush();
        fn.vkCmdDrawIndexedIndirect(cb, static_cast<const VulkanBuffer*>(c.object)->handle(), c.offset, 1, 0);
        break;
    }
  }
  fn.vkCmdEndRendering(cb);
}

}  // namespace onegpu::vulkan
