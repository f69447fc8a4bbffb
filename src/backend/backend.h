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
};

// One buffer range bound to a binding.
struct BufferRange {
  Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;  // resolved: never 0
};

// What one binding of a group receives. Only buffer ranges today; textures and samplers join the
// variant when they exist.
struct BindingEntry {
  uint32_t binding = 0;
  std::variant<BufferRange> resource;
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

  virtual ~BindGroup() = default;
  // The kernel or render pipeline whose binding layout the group was made for, and its label.
  virtual const DeviceObject& layout_owner() const = 0;
  virtual const std::string& layout_label() const = 0;
  const std::vector<BoundBuffer>& buffers() const { return buffers_; }

 protected:
  std::vector<BoundBuffer> buffers_;
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
  // Ends the pass in progress and begins a compute pass.
  virtual ComputePassEncoder& begin_compute_pass() = 0;
  // Ends the pass in progress and begins a render pass.
  virtual RenderPassEncoder& begin_render_pass(const RenderPassDescriptor& descriptor) = 0;
  // Ends the pass in progress and copies.
  virtual void copy_buffer(Buffer& src, uint64_t src_offset, Buffer& dst, uint64_t dst_offset,
                           uint64_t bytes) = 0;
  virtual void begin_pass_timing(TimestampSet& set) = 0;
  // See CommandEncoder::report_work and split_submission.
  virtual void report_work(uint64_t operations) = 0;
  virtual void split_submission() = 0;
  virtual uint32_t submission_count() const = 0;
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

}  // namespace onegpu::backend
