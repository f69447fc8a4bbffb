// The internal interface every backend implements. The public classes in include/onegpu/ check
// their arguments (in 64-bit arithmetic, against the capabilities) and then call these; a backend
// may assume valid input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/render_checks.h"
#include "onegpu/device.h"
#include "onegpu/render.h"

namespace onegpu::backend {

// Names the device an object was made by (the backend's device state), so that an object of one
// device is refused by another. Set by the backend's constructors.
class DeviceObject {
 public:
  const void* owner() const { return owner_; }

 protected:
  const void* owner_ = nullptr;
};

class Buffer : public std::enable_shared_from_this<Buffer>, public DeviceObject {
 public:
  Buffer();
  virtual ~Buffer() = default;
  // Unique for the life of the process (never reused, unlike an address).
  uint64_t id() const { return id_; }
  virtual uint64_t size_bytes() const = 0;
  virtual void write(uint64_t offset, std::span<const std::byte> data) = 0;
  virtual void read(uint64_t offset, std::span<std::byte> out) = 0;
  virtual void read_async(uint64_t offset, std::span<std::byte> out,
                          std::function<void(std::exception_ptr)> done) = 0;

 private:
  uint64_t id_;
};

// The next object id: buffers and textures share one counter, never reused within a process.
uint64_t next_object_id();

// A texture. The public layer checks every region and usage first; regions arrive resolved.
class Texture : public std::enable_shared_from_this<Texture>, public DeviceObject {
 public:
  Texture() : id_(next_object_id()) {}
  virtual ~Texture() = default;
  uint64_t id() const { return id_; }
  virtual const TextureDescriptor& descriptor() const = 0;
  // Tightly packed data of the region (its size checked).
  virtual void write(const TextureRegion& region, std::span<const std::byte> data) = 0;
  virtual void read_async(const TextureRegion& region, std::span<std::byte> out,
                          std::function<void(std::exception_ptr)> done) = 0;
  // Waits; throws UsageError from a readback completion (it would wait for itself).
  virtual void read(const TextureRegion& region, std::span<std::byte> out) = 0;

 private:
  uint64_t id_;
};

class Sampler : public std::enable_shared_from_this<Sampler>, public DeviceObject {
 public:
  virtual ~Sampler() = default;
  virtual const SamplerDescriptor& descriptor() const = 0;
};

class Kernel : public DeviceObject {
 public:
  virtual ~Kernel() = default;
  virtual const ShaderReflection& reflection() const = 0;
  virtual const std::string& label() const = 0;
  virtual const std::vector<KernelStatistic>& statistics() const = 0;
};

// A render pipeline: the merged reflection of its stages (core::RenderPipelinePlan).
class RenderPipeline : public DeviceObject {
 public:
  virtual ~RenderPipeline() = default;
  virtual const ShaderReflection& reflection() const = 0;
  virtual const std::string& label() const = 0;
  // The descriptor's vertex buffer layouts (the public layer checks draw ranges against them).
  virtual const std::vector<VertexBufferLayout>& vertex_buffers() const = 0;
  // The attachment formats and sample count it renders to (a pass must match them).
  struct Targets {
    std::vector<TextureFormat> colors;
    std::optional<TextureFormat> depth;
    uint32_t samples = 1;
  };
  virtual const Targets& targets() const = 0;
};

// One buffer range bound to a binding.
struct BufferRange {
  Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;  // resolved: never 0
};

// A view of a texture bound to a binding (mips and layers resolved), with its sampler when the
// binding combines one.
struct TextureView {
  Texture* texture = nullptr;
  TextureViewDimension dimension = TextureViewDimension::d2;
  uint32_t base_mip = 0, mip_count = 1, base_layer = 0, layer_count = 1;
  Sampler* sampler = nullptr;
};

struct SamplerEntry {
  Sampler* sampler = nullptr;
};

// What one binding of a group receives.
struct BindingEntry {
  uint32_t binding = 0;
  std::variant<BufferRange, TextureView, SamplerEntry> resource;
};

class BindGroup : public DeviceObject {
 public:
  // A buffer the group binds, held weakly so that a cache of groups never keeps user memory
  // alive; `read_only` when the kernel never writes that binding.
  struct BoundBuffer {
    std::weak_ptr<Buffer> buffer;
    uint64_t id = 0;
    bool read_only = false;
  };

  // A texture the group binds, held weakly like its buffers; `read_only` unless a storage binding
  // the kernel writes.
  struct BoundTexture {
    std::weak_ptr<Texture> texture;
    uint64_t id = 0;
    bool read_only = true;
  };

  virtual ~BindGroup() = default;
  // The kernel or render pipeline whose binding layout the group was made for, and its label.
  virtual const DeviceObject& layout_owner() const = 0;
  virtual const std::string& layout_label() const = 0;
  const std::vector<BoundBuffer>& buffers() const { return buffers_; }
  const std::vector<BoundTexture>& textures() const { return textures_; }
  // Held strongly: a sampler owns no memory worth freeing early.
  const std::vector<std::shared_ptr<Sampler>>& samplers() const { return samplers_; }

 protected:
  std::vector<BoundBuffer> buffers_;
  std::vector<BoundTexture> textures_;
  std::vector<std::shared_ptr<Sampler>> samplers_;
};

class TimestampSet : public DeviceObject {
 public:
  virtual ~TimestampSet() = default;
  virtual uint32_t pass_capacity() const = 0;
  virtual std::optional<std::vector<uint64_t>> try_read() = 0;
  virtual std::vector<uint64_t> wait_read() = 0;
};

// The recording scope of one compute pass. Valid until the pass ends (end(), the next pass or
// copy, or submission). Every buffer a dispatch uses is alive when it is called (the public layer
// checks the group's buffers); the encoder keeps them, the kernel and the group alive until its
// submission has finished.
class ComputePassEncoder {
 public:
  virtual ~ComputePassEncoder() = default;
  virtual void dispatch(Kernel& kernel, BindGroup& group, std::span<const std::byte> push, Grid grid) = 0;
  virtual void dispatch_indirect(Kernel& kernel, BindGroup& group, std::span<const std::byte> push,
                                 Buffer& args, uint64_t offset) = 0;
  virtual void end() = 0;
};

// The recording scope of one render pass, valid until it ends like a compute pass. The public
// layer has checked every call; the encoder keeps what a call names alive until its submission
// has finished.
class RenderPassEncoder {
 public:
  virtual ~RenderPassEncoder() = default;
  virtual void set_pipeline(RenderPipeline& pipeline) = 0;
  virtual void set_bind_group(BindGroup& group) = 0;
  virtual void set_vertex_buffer(uint32_t slot, Buffer& buffer, uint64_t offset) = 0;
  virtual void set_index_buffer(Buffer& buffer, IndexFormat format, uint64_t offset) = 0;
  virtual void set_viewport(const Viewport& viewport) = 0;
  virtual void set_scissor(const ScissorRect& rect) = 0;
  virtual void set_push_constants(std::span<const std::byte> bytes) = 0;
  virtual void draw(uint32_t vertices, uint32_t instances, uint32_t first_vertex, uint32_t first_instance) = 0;
  virtual void draw_indexed(uint32_t indices, uint32_t instances, uint32_t first_index, int32_t base_vertex,
                            uint32_t first_instance) = 0;
  virtual void draw_indirect(Buffer& args, uint64_t offset, bool indexed) = 0;
  virtual void end() = 0;
};

class Encoder : public DeviceObject {
 public:
  virtual ~Encoder() = default;
  virtual const ComputeCapabilities& capabilities() const = 0;
  virtual const TextureCapabilities& texture_capabilities() const = 0;
  // Ends the pass in progress and begins a compute pass.
  virtual ComputePassEncoder& begin_compute_pass() = 0;
  // Ends the pass in progress and begins a render pass.
  virtual RenderPassEncoder& begin_render_pass(const RenderPassDescriptor& descriptor) = 0;
  // Ends the pass in progress and copies.
  virtual void copy_buffer(Buffer& src, uint64_t src_offset, Buffer& dst, uint64_t dst_offset,
                           uint64_t bytes) = 0;
  // Texture copies and mip generation; regions and layouts arrive resolved and checked. Each ends
  // the pass in progress.
  struct BufferImageCopy {
    uint64_t offset = 0, bytes_per_row = 0, rows_per_image = 0;
    TextureRegion region;  // no zero extents
  };
  virtual void copy_buffer_to_texture(Buffer& src, const BufferImageCopy& copy, Texture& dst) = 0;
  virtual void copy_texture_to_buffer(Texture& src, const BufferImageCopy& copy, Buffer& dst) = 0;
  virtual void copy_texture(Texture& src, const TextureRegion& src_region, Texture& dst,
                            const TextureRegion& dst_region) = 0;
  virtual void generate_mipmaps(Texture& texture) = 0;
  virtual void begin_pass_timing(TimestampSet& set) = 0;
  // See CommandEncoder::report_work and split_submission.
  virtual void report_work(uint64_t operations) = 0;
  virtual void split_submission() = 0;
  virtual uint32_t submission_count() const = 0;
};

// A window surface and its swapchain. The public Surface keeps the state below and checks every
// call against it and the capabilities before calling the backend.
class Surface : public DeviceObject {
 public:
  virtual ~Surface() = default;
  virtual SurfaceCapabilities capabilities() = 0;
  // (Re)creates the swapchain for a checked configuration; no image is acquired.
  virtual void configure(const SurfaceConfiguration& configuration) = 0;
  // Acquires an image of the configured swapchain; on out-of-date recreates it (updating
  // `configuration`'s size) and acquires again once.
  virtual SurfaceTexture acquire(uint64_t timeout_ns) = 0;
  // Presents the acquired image.
  virtual SurfaceStatus present() = 0;
  virtual uint64_t swapchains_created() const = 0;

  SurfaceConfiguration configuration;
  bool configured = false;
  bool acquired = false;
};

class Device {
 public:
  virtual ~Device() = default;
  // The owner() of every object this device makes.
  virtual const void* token() const = 0;
  virtual const AdapterInfo& adapter() const = 0;
  virtual bool validation_enabled() const = 0;
  virtual uint64_t submission_work_budget() const = 0;
  virtual std::shared_ptr<Buffer> create_buffer(uint64_t bytes) = 0;
  virtual std::shared_ptr<Texture> create_texture(const TextureDescriptor& descriptor) = 0;
  virtual std::shared_ptr<Sampler> create_sampler(const SamplerDescriptor& descriptor) = 0;
  virtual std::shared_ptr<Kernel> create_kernel(const ShaderSource& shader, const std::string& label,
                                                const KernelOptions& options) = 0;
  // What the device offers render pipelines (read once, when the device opens).
  virtual const core::RenderLimits& render_limits() const = 0;
  // `plan` is plan_render_pipeline's result for `descriptor`.
  virtual std::shared_ptr<RenderPipeline> create_render_pipeline(const RenderPipelineDescriptor& descriptor,
                                                                 core::RenderPipelinePlan plan,
                                                                 const std::string& label) = 0;
  // One entry per binding of the kernel, in binding order.
  virtual std::shared_ptr<BindGroup> create_bind_group(Kernel& kernel, std::span<const BindingEntry> entries) = 0;
  // One entry per binding of the pipeline's merged reflection, in binding order.
  virtual std::shared_ptr<BindGroup> create_bind_group(RenderPipeline& pipeline,
                                                       std::span<const BindingEntry> entries) = 0;
  virtual std::shared_ptr<TimestampSet> create_timestamp_set(uint32_t passes) = 0;
  // The window is not null; surface support was checked.
  virtual std::shared_ptr<Surface> create_surface(const XcbWindow& window) = 0;
  virtual std::unique_ptr<Encoder> begin_commands() = 0;
  virtual void submit(std::unique_ptr<Encoder> encoder) = 0;
  virtual void wait_idle() = 0;
  virtual MemoryStats memory_stats() const = 0;
  virtual std::vector<std::string> take_validation_messages() = 0;
  virtual void close() = 0;
  virtual bool closed() const = 0;
};

// Backends.
std::vector<AdapterInfo> enumerate_vulkan_adapters();
std::shared_ptr<Device> create_vulkan_device(const DeviceOptions& options);
// WebGPU on Dawn (src/webgpu/): no adapters when the library is missing.
std::vector<AdapterInfo> enumerate_webgpu_adapters();
std::shared_ptr<Device> create_webgpu_device(const DeviceOptions& options);

}  // namespace onegpu::backend
