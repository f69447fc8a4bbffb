// The Vulkan backend's implementations of the backend interface.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/checks.h"
#include "core/hazards.h"
#include "vulkan/context.h"
#include "vulkan/readback.h"
#include "vulkan/texture.h"

namespace onegpu::vulkan {

class VulkanDevice;

class VulkanBuffer final : public backend::Buffer {
 public:
  VulkanBuffer(std::shared_ptr<Context> ctx, VulkanDevice* device, UniqueBuffer b, uint64_t bytes);
  uint64_t size_bytes() const override { return bytes_; }
  void write(uint64_t offset, std::span<const std::byte> data) override;
  void read(uint64_t offset, std::span<std::byte> out) override;
  void read_async(uint64_t offset, std::span<std::byte> out, std::function<void(std::exception_ptr)> done) override;
  VkBuffer handle() const { return b_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  VulkanDevice* device_;  // valid while ctx_->alive
  UniqueBuffer b_;        // held past the submission that carries its last upload
  uint64_t bytes_;
};

class VulkanKernel final : public backend::Kernel, public std::enable_shared_from_this<VulkanKernel> {
 public:
  VulkanKernel(std::shared_ptr<Context> ctx, const ShaderSource& shader, std::string label,
               const core::KernelPlan& plan);
  const ShaderReflection& reflection() const override { return reflection_; }
  const std::string& label() const override { return label_; }
  const std::vector<KernelStatistic>& statistics() const override { return statistics_; }

  VkPipeline pipeline() const { return pipeline_.get(); }
  VkPipelineLayout layout() const { return layout_.get(); }
  VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  ShaderReflection reflection_;
  std::string label_;
  std::vector<KernelStatistic> statistics_;
  UniqueHandle<VkDescriptorSetLayout> set_layout_;
  UniqueHandle<VkPipelineLayout> layout_;
  UniqueHandle<VkPipeline> pipeline_;
};

class VulkanBindGroup final : public backend::BindGroup, public std::enable_shared_from_this<VulkanBindGroup> {
 public:
  // `owner` (a VulkanKernel or VulkanRenderPipeline) is kept alive by the group; `set_layout` and
  // `bindings` are its layout and reflected bindings.
  VulkanBindGroup(std::shared_ptr<Context> ctx, std::shared_ptr<const backend::DeviceObject> owner,
                  const std::string& owner_label, VkDescriptorSetLayout set_layout,
                  const std::vector<ShaderBinding>& bindings, std::span<const backend::BindingEntry> entries);
  const backend::DeviceObject& layout_owner() const override { return *layout_; }
  const std::string& layout_label() const override { return layout_label_; }
  VkDescriptorSet set() const { return set_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  std::shared_ptr<const backend::DeviceObject> layout_;
  std::string layout_label_;
  UniqueDescriptorSet set_;
};

// A graphics pipeline for dynamic rendering: viewport, scissor and blend constants are dynamic
// state, one descriptor set layout from the merged reflection, one push-constant range visible to
// both stages.
class VulkanRenderPipeline final : public backend::RenderPipeline,
                                   public std::enable_shared_from_this<VulkanRenderPipeline> {
 public:
  VulkanRenderPipeline(std::shared_ptr<Context> ctx, const RenderPipelineDescriptor& descriptor,
                       core::RenderPipelinePlan plan, std::string label);
  const ShaderReflection& reflection() const override { return reflection_; }
  const std::string& label() const override { return label_; }
  const std::vector<VertexBufferLayout>& vertex_buffers() const override { return buffers_; }
  const Targets& targets() const override { return targets_; }

  VkPipeline pipeline() const { return pipeline_.get(); }
  VkPipelineLayout layout() const { return layout_.get(); }
  VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  ShaderReflection reflection_;
  std::string label_;
  std::vector<VertexBufferLayout> buffers_;
  Targets targets_;
  UniqueHandle<VkDescriptorSetLayout> set_layout_;
  UniqueHandle<VkPipelineLayout> layout_;
  UniqueHandle<VkPipeline> pipeline_;
};

// The device's render limits and format support.
core::RenderLimits read_render_limits(const Instance& instance, const PhysicalAdapter& adapter);

class VulkanTimestampSet final : public backend::TimestampSet,
                                 public std::enable_shared_from_this<VulkanTimestampSet> {
 public:
  VulkanTimestampSet(std::shared_ptr<Context> ctx, uint32_t passes);
  uint32_t pass_capacity() const override { return passes_; }
  std::optional<std::vector<uint64_t>> try_read() override;
  std::vector<uint64_t> wait_read() override;

  VkQueryPool pool() const { return pool_.get(); }
  uint32_t slots_written = 0;  // by the last submission that used the set
  uint64_t serial = 0;         // that submission; 0 before any

 private:
  std::vector<uint64_t> read_slots();
  std::shared_ptr<Context> ctx_;
  uint32_t passes_;
  UniqueHandle<VkQueryPool> pool_;
};

class VulkanEncoder;

// The recording scope of the encoder's open compute pass.
class VulkanComputePass final : public backend::ComputePassEncoder {
 public:
  explicit VulkanComputePass(VulkanEncoder& encoder) : encoder_(encoder) {}
  void dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push, Grid grid) override;
  void dispatch_indirect(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                         backend::Buffer& args, uint64_t offset) override;
  void end() override;

 private:
  VulkanEncoder& encoder_;
};

// The recording scope of the encoder's open render pass. Calls are kept, in order, until the pass
// ends; then the encoder places the one barrier the whole pass needs (a barrier cannot sit inside
// dynamic rendering) and records the pass. What a call names is retained by the encoder at once.
class VulkanRenderPass final : public backend::RenderPassEncoder {
 public:
  explicit VulkanRenderPass(VulkanEncoder& encoder) : encoder_(encoder) {}
  void set_pipeline(backend::RenderPipeline& pipeline) override;
  void set_bind_group(backend::BindGroup& group) override;
  void set_vertex_buffer(uint32_t slot, backend::Buffer& buffer, uint64_t offset) override;
  void set_index_buffer(backend::Buffer& buffer, IndexFormat format, uint64_t offset) override;
  void set_viewport(const Viewport& viewport) override;
  void set_scissor(const ScissorRect& rect) override;
  void set_push_constants(std::span<const std::byte> bytes) override;
  void draw(uint32_t vertices, uint32_t instances, uint32_t first_vertex, uint32_t first_instance) override;
  void draw_indexed(uint32_t indices, uint32_t instances, uint32_t first_index, int32_t base_vertex,
                    uint32_t first_instance) override;
  void draw_indirect(backend::Buffer& args, uint64_t offset, bool indexed) override;
  void end() override;

  void begin(const RenderPassDescriptor& descriptor);
  // Records the kept calls (the encoder has placed the barrier).
  void record(VkCommandBuffer cb) const;
  // The buffers the pass reads and writes.
  void accesses(std::vector<core::BufferAccess>& out) const;

 private:
  enum class Op : uint8_t {
    pipeline, bind_group, vertex_buffer, index_buffer, viewport, scissor, push, draw, draw_indexed,
    draw_indirect, draw_indexed_indirect,
  };
  struct Command {
    Op op;
    const void* object = nullptr;  // VulkanRenderPipeline, VulkanBindGroup or VulkanBuffer
    uint64_t offset = 0;
    uint32_t u[5]{};
    float f[6]{};
  };
  struct Attachment {
    VkImageView view = VK_NULL_HANDLE;
    VkImageView resolve = VK_NULL_HANDLE;
    uint64_t texture = 0, resolve_texture = 0;  // ids, for the hazard tracker
    VkAttachmentLoadOp load = VK_ATTACHMENT_LOAD_OP_CLEAR;
    VkAttachmentStoreOp store = VK_ATTACHMENT_STORE_OP_STORE;
    VkClearValue clear{};
  };
  VulkanEncoder& encoder_;
  uint32_t width_ = 0, height_ = 0;
  std::vector<Attachment> colors_;
  std::optional<Attachment> depth_;
  std::vector<Command> commands_;
  std::vector<std::byte> push_;  // the bytes of every push command, in order
};

// Records into one command buffer, or several when the work is split (report_work); each begins
// with a full barrier, so it is ordered behind everything submitted before it. Inside a command
// buffer the barriers come from what each pass and copy reads and writes (core::HazardTracker).
class VulkanEncoder final : public backend::Encoder {
 public:
  explicit VulkanEncoder(std::shared_ptr<Context> ctx);
  ~VulkanEncoder() override;
  const ComputeCapabilities& capabilities() const override { return ctx_->adapter.info.compute; }
  backend::ComputePassEncoder& begin_compute_pass() override;
  backend::RenderPassEncoder& begin_render_pass(const RenderPassDescriptor& descriptor) override;
  void copy_buffer(backend::Buffer& src, uint64_t src_offset, backend::Buffer& dst, uint64_t dst_offset,
                   uint64_t bytes) override;
  const TextureCapabilities& texture_capabilities() const override { return ctx_->adapter.info.texture; }
  void copy_buffer_to_texture(backend::Buffer& src, const BufferImageCopy& copy, backend::Texture& dst) override;
  void copy_texture_to_buffer(backend::Texture& src, const BufferImageCopy& copy, backend::Buffer& dst) override;
  void copy_texture(backend::Texture& src, const TextureRegion& src_region, backend::Texture& dst,
                    const TextureRegion& dst_region) override;
  void generate_mipmaps(backend::Texture& texture) override;
  void begin_pass_timing(backend::TimestampSet& set) override;
  void report_work(uint64_t operations) override;
  void split_submission() override;
  uint32_t submission_count() const override { return static_cast<uint32_t>(pools_.size()); }

  // Ends recording; returns the command buffers to submit, in order.
  std::vector<VkCommandBuffer> finish();
  // After submission (the last command buffer's serial): hands the pools to the device and lets
  // go of what the recording used.
  void submitted(uint64_t serial);
  // The device is closing: the pools go with it; returns what the recording held (locked).
  std::vector<std::shared_ptr<const void>> orphan_locked();

 private:
  friend class VulkanComputePass;
  friend class VulkanRenderPass;
  void retain(std::shared_ptr<const void> object) { retained_.push_back(std::move(object)); }
  void end_render_pass();
  void record_dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                       VulkanBuffer* args, uint64_t offset, Grid grid);
  void end_pass();
  // Starts a copy scope: ends the pass, splits when due, places the barrier `accesses` need.
  void begin_copy(std::span<const core::BufferAccess> accesses);
  void begin_command_buffer();
  void split_if_due();
  void place(core::BarrierKind kind);
  void start_timed_pass();
  void end_timed_pass();
  void ensure_open() const;
  VkCommandBuffer cb() const { return pools_.back().cb; }

  std::shared_ptr<Context> ctx_;
  std::vector<CommandPool> pools_;  // one per command buffer, the last one recording
  bool open_ = false;  // the pools belong to this encoder and have not been submitted
  bool in_pass_ = false;
  bool in_render_pass_ = false;  // the open pass is render_pass_
  bool cb_has_work_ = false;  // the recording command buffer holds a pass or copy
  VulkanComputePass pass_{*this};
  VulkanRenderPass render_pass_{*this};
  core::HazardTracker hazards_;
  std::vector<core::BufferAccess> accesses_;  // scratch, kept to avoid allocating per dispatch
  uint64_t work_budget_ = 0;
  uint64_t work_ = 0;  // reported since the last split
  bool split_requested_ = false;
  VulkanTimestampSet* timing_ = nullptr;
  uint32_t next_slot_ = 0;
  bool start_stamp_due_ = false;  // the open timed pass has not written its start yet
  bool timed_pass_open_ = false;
  std::vector<VulkanTimestampSet*> timed_sets_;
  const void* last_kernel_ = nullptr;  // retained already
  const void* last_group_ = nullptr;
  std::vector<std::shared_ptr<const void>> retained_;  // everything recorded
};

class VulkanDevice final : public backend::Device {
 public:
  VulkanDevice(std::shared_ptr<Context> ctx);
  ~VulkanDevice() override;
  const void* token() const override { return ctx_.get(); }
  const AdapterInfo& adapter() const override { return ctx_->adapter.info; }
  bool validation_enabled() const override { return ctx_->instance.validation; }
  uint64_t submission_work_budget() const override { return ctx_->work_budget; }
  std::shared_ptr<backend::Buffer> create_buffer(uint64_t bytes) override;
  std::shared_ptr<backend::Texture> create_texture(const TextureDescriptor& descriptor) override;
  std::shared_ptr<backend::Sampler> create_sampler(const SamplerDescriptor& descriptor) override;
  std::shared_ptr<backend::Kernel> create_kernel(const ShaderSource& shader, const std::string& label,
                                                 const KernelOptions& options) override;
  const core::RenderLimits& render_limits() const override { return render_limits_; }
  std::shared_ptr<backend::RenderPipeline> create_render_pipeline(const RenderPipelineDescriptor& descriptor,
                                                                  core::RenderPipelinePlan plan,
                                                                  const std::string& label) override;
  std::shared_ptr<backend::BindGroup> create_bind_group(backend::Kernel& kernel,
                                                        std::span<const backend::BindingEntry> entries) override;
  std::shared_ptr<backend::BindGroup> create_bind_group(backend::RenderPipeline& pipeline,
                                                        std::span<const backend::BindingEntry> entries) override;
  std::shared_ptr<backend::TimestampSet> create_timestamp_set(uint32_t passes) override;
  std::shared_ptr<backend::Surface> create_surface(const XcbWindow& window) override;
  std::unique_ptr<backend::Encoder> begin_commands() override;
  void submit(std::unique_ptr<backend::Encoder> encoder) override;
  void wait_idle() override;
  MemoryStats memory_stats() const override;
  std::vector<std::string> take_validation_messages() override { return ctx_->log->take(); }
  void close() override;
  bool closed() const override;

  Context& context() { return *ctx_; }
  // Records a copy of [offset, offset + out.size()) behind the work submitted so far.
  void read_async(VkBuffer buffer, uint64_t offset, std::span<std::byte> out,
                  std::function<void(std::exception_ptr)> done);
  // The same for any copy: `record` copies into a staging buffer of `bytes` (rounded up to whole
  // words); `out` receives its bytes from `skip` on.
  void read_async_recorded(uint64_t bytes, uint64_t skip, std::span<std::byte> out,
                           const std::function<void(VkCommandBuffer, VkBuffer)>& record,
                           std::function<void(std::exception_ptr)> done);

 private:
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<ReadbackThread> readback_;
  core::RenderLimits render_limits_;
  bool closed_ = false;
};

}  // namespace onegpu::vulkan
