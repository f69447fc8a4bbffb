// The WebGPU backend's implementations of the backend interface, on Dawn's C API.
#pragma once

#include <array>

#include <condition_variable>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "webgpu/context.h"

namespace onegpu::webgpu {

class WebGpuDevice;

// Bytes of one push-constant slot in the ring: the largest push-constant block a kernel may have
// on WebGPU, and the dynamic-offset step (WebGPU's minimum uniform offset alignment is 256).
constexpr uint32_t kPushSlotBytes = 256;

class WebGpuBuffer final : public backend::Buffer {
 public:
  WebGpuBuffer(std::shared_ptr<Context> ctx, WebGpuDevice* device, BufferHandle b, uint64_t bytes);
  uint64_t size_bytes() const override { return bytes_; }
  void write(uint64_t offset, std::span<const std::byte> data) override;
  void read(uint64_t offset, std::span<std::byte> out) override;
  void read_async(uint64_t offset, std::span<std::byte> out, std::function<void(std::exception_ptr)> done) override;
  abi::Buffer handle() const { return b_.get(); }

 private:
  std::shared_ptr<Context> ctx_;
  WebGpuDevice* device_;  // valid while ctx_->alive
  BufferHandle b_;
  uint64_t bytes_;
};

// A compute pipeline from WGSL (or SPIR-V, where Dawn reads it) with one bind group layout per
// set of the reflection and, when the kernel has push constants, the push-constant group after
// them.
class WebGpuKernel final : public backend::Kernel, public std::enable_shared_from_this<WebGpuKernel> {
 public:
  WebGpuKernel(std::shared_ptr<Context> ctx, WebGpuDevice& device, const ShaderSource& shader, std::string label);
  const ShaderReflection& reflection() const override { return reflection_; }
  const std::string& label() const override { return label_; }
  const std::vector<KernelStatistic>& statistics() const override { return statistics_; }

  abi::ComputePipeline pipeline() const { return pipeline_.get(); }
  // The layout of set `i` (0 up to the highest set the reflection names).
  const std::vector<BindGroupLayoutHandle>& set_layouts() const { return set_layouts_; }
  // The group index of the push constants (set_layouts().size()), when there are any.
  uint32_t push_group() const { return static_cast<uint32_t>(set_layouts_.size()); }
  // How the WGSL reads its push constants: which of a push block's bind groups it takes.
  WgslPushConstants push_kind() const { return push_kind_; }

 private:
  std::shared_ptr<Context> ctx_;
  ShaderReflection reflection_;
  std::string label_;
  std::vector<KernelStatistic> statistics_;
  std::vector<BindGroupLayoutHandle> set_layouts_;
  WgslPushConstants push_kind_ = WgslPushConstants::uniform;
  PipelineLayoutHandle layout_;
  ComputePipelineHandle pipeline_;
};

class WebGpuBindGroup final : public backend::BindGroup {
 public:
  WebGpuBindGroup(std::shared_ptr<Context> ctx, std::shared_ptr<const WebGpuKernel> kernel,
                  std::span<const backend::BindingEntry> entries);
  const backend::DeviceObject& layout_owner() const override { return *kernel_; }
  const std::string& layout_label() const override { return kernel_->label(); }
  // One group per set, in set order.
  const std::vector<BindGroupHandle>& groups() const { return groups_; }

 private:
  std::shared_ptr<Context> ctx_;
  std::shared_ptr<const WebGpuKernel> kernel_;
  std::vector<BindGroupHandle> groups_;
};

// A block of push-constant slots: a buffer and the bind groups that bind one slot of it with a
// dynamic offset, as a uniform buffer and as a read-only storage buffer (the two ways WGSL may read
// push constants, WgslPushConstants). Blocks go back to the device's ring after their encoder is submitted:
// the queue runs the next encoder's write of a block after this submission, so reuse is safe.
struct PushBlock {
  BufferHandle buffer;
  std::array<BindGroupHandle, 2> groups;  // by WgslPushConstants
  std::vector<std::byte> staged;  // slots written so far by the encoder holding the block
  uint64_t capacity = 0;           // bytes of the buffer
};

// The device's push-constant ring: the layout of the push-constant group and the free blocks.
// Shared with the encoders, which may outlive the device.
class PushRing {
 public:
  PushRing(std::shared_ptr<Context> ctx, std::array<BindGroupLayoutHandle, 2> layouts)
      : ctx_(std::move(ctx)), layouts_(std::move(layouts)) {}
  abi::BindGroupLayout layout(WgslPushConstants kind) const { return layouts_[static_cast<size_t>(kind)].get(); }
  std::unique_ptr<PushBlock> take();
  void give_back(std::unique_ptr<PushBlock> block);
  // Drops the free blocks and the layout (the device is closing).
  void clear();

 private:
  std::shared_ptr<Context> ctx_;
  std::mutex mu_;
  std::array<BindGroupLayoutHandle, 2> layouts_;
  bool open_ = true;
  std::vector<std::unique_ptr<PushBlock>> free_;
};

// Pass timings through the timestamp-query feature: a query set of two slots a pass, resolved into
// a buffer when the encoder finishes, read back after the submission.
class WebGpuTimestampSet final : public backend::TimestampSet,
                                 public std::enable_shared_from_this<WebGpuTimestampSet> {
 public:
  WebGpuTimestampSet(std::shared_ptr<Context> ctx, WebGpuDevice* device, uint32_t passes);
  uint32_t pass_capacity() const override { return passes_; }
  std::optional<std::vector<uint64_t>> try_read() override;
  std::vector<uint64_t> wait_read() override;

  abi::QuerySet query_set() const { return queries_.get(); }
  abi::Buffer resolved() const { return resolved_.get(); }
  uint32_t slots_written = 0;  // by the last submission that used the set
  abi::Future done{};          // that submission's work-done future (id 0 before any)

 private:
  std::vector<uint64_t> read_slots();
  std::shared_ptr<Context> ctx_;
  WebGpuDevice* device_;  // valid while ctx_->alive
  uint32_t passes_;
  QuerySetHandle queries_;
  BufferHandle resolved_;
};

class WebGpuEncoder;

class WebGpuComputePass final : public backend::ComputePassEncoder {
 public:
  explicit WebGpuComputePass(WebGpuEncoder& e) : e_(e) {}
  void dispatch(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                Grid grid) override;
  void dispatch_indirect(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push,
                         backend::Buffer& args, uint64_t offset) override;
  void end() override;

 private:
  void bind(backend::Kernel& kernel, backend::BindGroup& group, std::span<const std::byte> push);
  WebGpuEncoder& e_;
};

class WebGpuEncoder final : public backend::Encoder {
 public:
  WebGpuEncoder(std::shared_ptr<Context> ctx, std::shared_ptr<const AdapterInfo> info, std::shared_ptr<PushRing> ring);
  ~WebGpuEncoder() override;
  const ComputeCapabilities& capabilities() const override;
  const TextureCapabilities& texture_capabilities() const override;
  backend::ComputePassEncoder& begin_compute_pass() override;
  backend::RenderPassEncoder& begin_render_pass(const RenderPassDescriptor& descriptor) override;
  void copy_buffer(backend::Buffer& src, uint64_t src_offset, backend::Buffer& dst, uint64_t dst_offset,
                   uint64_t bytes) override;
  void copy_buffer_to_texture(backend::Buffer& src, const BufferImageCopy& copy, backend::Texture& dst) override;
  void copy_texture_to_buffer(backend::Texture& src, const BufferImageCopy& copy, backend::Buffer& dst) override;
  void copy_texture(backend::Texture& src, const TextureRegion& src_region, backend::Texture& dst,
                    const TextureRegion& dst_region) override;
  void generate_mipmaps(backend::Texture& texture) override;
  void begin_pass_timing(backend::TimestampSet& set) override;
  void report_work(uint64_t operations) override;
  void split_submission() override;
  uint32_t submission_count() const override { return static_cast<uint32_t>(finished_.size()) + 1; }

  // Ends the pass, finishes the command buffers and writes the push constants; the device
  // submits what this returns. The push blocks go back to the device.
  std::vector<CommandBufferHandle> finish();
  // The timestamp sets this encoder wrote, for the device to tell them their submission.
  const std::vector<std::shared_ptr<WebGpuTimestampSet>>& timed_sets() const { return timed_sets_; }

 private:
  friend class WebGpuComputePass;
  void end_pass();
  // Resolves the set being written into its buffer (before the encoder moves on or finishes).
  void resolve_timing();
  // A slot for `push` in this encoder's blocks: the block's group and the dynamic offset.
  std::pair<abi::BindGroup, uint32_t> push_slot(std::span<const std::byte> push, WgslPushConstants kind);

  std::shared_ptr<Context> ctx_;
  std::shared_ptr<const AdapterInfo> info_;
  std::shared_ptr<PushRing> ring_;
  CommandEncoderHandle encoder_;
  ComputePassHandle pass_;
  WebGpuComputePass pass_api_{*this};
  std::vector<CommandBufferHandle> finished_;
  std::vector<std::unique_ptr<PushBlock>> push_blocks_;
  uint64_t work_ = 0;
  WebGpuTimestampSet* timing_ = nullptr;
  uint32_t next_slot_ = 0;
  std::vector<std::shared_ptr<WebGpuTimestampSet>> timed_sets_;
  // What the recorded commands use, held until submission (Dawn holds it after).
  std::vector<std::shared_ptr<const void>> keep_;
};

// Runs readback completions on a thread of the device's, so that read_async never blocks its
// caller: it drives Dawn's event loop while maps are pending and calls each completion in the
// order its map finished.
class Readbacks {
 public:
  struct Job {
    BufferHandle staging;
    uint64_t skip = 0;  // bytes of staging before the first byte asked for
    std::span<std::byte> destination;
    std::function<void(std::exception_ptr)> done;
    bool mapped = false, failed = false;
    std::string error;
  };
  explicit Readbacks(std::shared_ptr<Context> ctx);
  ~Readbacks();
  // Called before the map is requested; `job` stays put until its completion has run. Throws
  // UsageError once the thread is stopping (the device is closing).
  Job& add(std::unique_ptr<Job> job);
  // What a map callback gets as its first user pointer, and what it calls with it: the state
  // shared with the thread, which lives until the thread has finished every job.
  void* callback_target() const { return state_.get(); }
  static void map_finished(void* target, Job* job, bool ok, std::string error);
  // Finishes every pending job (cancelled ones complete with an error), runs `then` (if any) and
  // stops the thread; idempotent. Called on the thread itself (a completion closing the device, or
  // dropping the last handle) it cannot wait for itself: the thread is detached, finishes the queue
  // once the completion has returned, runs `then` and exits; the process waits for it at exit.
  void stop(std::function<void()> then = {});
  bool on_this_thread() const { return std::this_thread::get_id() == id_; }

 private:
  struct State {
    std::shared_ptr<Context> ctx;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::unique_ptr<Job>> jobs;
    bool stopping = false;
    bool detached = false;
    std::function<void()> then;
  };
  static void run(State& s);
  std::shared_ptr<State> state_;
  std::thread thread_;
  std::thread::id id_;
};

class WebGpuDevice final : public backend::Device {
 public:
  WebGpuDevice(std::shared_ptr<Context> ctx, AdapterInfo info, bool validation);
  ~WebGpuDevice() override;
  const void* token() const override { return ctx_.get(); }
  const AdapterInfo& adapter() const override { return *info_; }
  bool validation_enabled() const override { return validation_; }
  uint64_t submission_work_budget() const override { return 0; }
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
  MemoryStats memory_stats() const override { return {}; }  // WebGPU keeps no tally
  std::vector<std::string> take_validation_messages() override { return ctx_->take_messages(); }
  void close() override;
  bool closed() const override { return closed_; }

  // Buffer support: a map-readable staging copy of [offset, offset + bytes) of `src`, submitted.
  BufferHandle stage_for_read(abi::Buffer src, uint64_t offset, uint64_t bytes);
  Readbacks& readbacks() { return *readbacks_; }
  abi::BindGroupLayout push_layout(WgslPushConstants kind) const { return ring_->layout(kind); }
  // Throws CommandFailedError after a failure.
  void check_failed(const char* operation) const;
  // Has Dawn raise an uncaptured validation error carrying `message` (for tests of the routing).
  void inject_validation_error(const std::string& message);

 private:
  void smoke_test();
  std::shared_ptr<Context> ctx_;
  std::shared_ptr<const AdapterInfo> info_;
  bool validation_;
  bool closed_ = false;
  core::RenderLimits render_limits_{};
  std::shared_ptr<PushRing> ring_;
  std::unique_ptr<Readbacks> readbacks_;
};

// The adapters Dawn offers (one: the default adapter), and a device on the one `options` chooses.
std::vector<AdapterInfo> enumerate_adapters();
std::shared_ptr<backend::Device> create_device(const DeviceOptions& options);

}  // namespace onegpu::webgpu
