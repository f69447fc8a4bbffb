// onegpu/device.h - opening a GPU and everything made from it.
//
// Thread safety: a Device may be used from several threads (its methods lock what they share);
// command encoders and kernel families are used by one thread at a time.
// Lifetime: buffers, kernels, bind groups, timestamp sets and encoders must not outlive their
// device. close() (or the destructor) waits for the GPU, finishes pending readbacks, releases
// encoders that were never submitted and destroys the device; objects still alive then are
// reported as leaks by the validation layer and become inert. Closed (or destroyed) inside one of
// its own readback completions, the device reads closed at once and the readback thread does the
// rest after the completion returns (see RawBuffer::read_bytes_async).
// Failures: after a submission fails on the GPU (or the device is lost), the next submit(),
// wait_idle() and readback, and every later one, throw CommandFailedError.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "onegpu/adapter.h"
#include "onegpu/buffer.h"
#include "onegpu/capabilities.h"
#include "onegpu/encoder.h"
#include "onegpu/kernel.h"
#include "onegpu/render.h"
#include "onegpu/surface.h"
#include "onegpu/texture.h"
#include "onegpu/timestamps.h"

namespace onegpu {

namespace backend { class Device; struct BindingEntry; }

struct DeviceOptions {
  // The backend to open; unset follows ONEGPU_BACKEND (see selected_backend). WebGPU runs on the
  // Dawn library found at run time (docs/webgpu.md); without one it throws UnsupportedError.
  std::optional<Backend> backend;
  // A kind ("discrete", "integrated", "software") or a case-insensitive part of the adapter's
  // name; empty takes the first adapter in adapter order. ONEGPU_ADAPTER, when set, wins.
  std::string adapter;
  // The Khronos validation layer: true turns it on, false keeps it off whatever ONEGPU_VALIDATION
  // says, unset (the default) follows ONEGPU_VALIDATION=1. A missing layer throws
  // UnsupportedError, unless ONEGPU_VALIDATION_OPTIONAL=1: then the device runs without it and a
  // notice goes to stderr.
  std::optional<bool> validation;
  // Keep the driver's statistics of every kernel created on the device (ComputeKernel::statistics;
  // ONEGPU_KERNEL_STATISTICS=1 does the same and also prints them to stderr as each kernel is
  // created). Ignored where capabilities().kernel_statistics is false.
  bool kernel_statistics = false;
  // Operations (as given to CommandEncoder::report_work) after which an encoder starts a new
  // command buffer at the next pass boundary. 0 takes capabilities().submission_work_budget, which
  // is 0 (no budget) on Vulkan.
  uint64_t submission_work_budget = 0;
};

struct MemoryStats {
  uint64_t blocks = 0;               // memory blocks held from the driver (dedicated ones too)
  uint64_t block_bytes = 0;          // their total size
  uint64_t live_buffers = 0;         // buffers alive, and released ones the GPU may still use
  uint64_t live_bytes = 0;           // bytes those buffers occupy
  uint64_t pending_release_bytes = 0;  // part of live_bytes released but awaiting the GPU
  uint64_t staging_bytes = 0;        // host-visible staging for uploads and readbacks
  uint64_t live_textures = 0;        // textures alive, and released ones the GPU may still use
  uint64_t texture_bytes = 0;        // memory those textures occupy
  uint64_t command_pools = 0;        // command pools held: recording, in flight and free (bounded:
                                     // past 32 in flight, taking a pool waits for the oldest)
};

class Device {
 public:
  // Opens the adapter the options (and environment) choose. Throws UnsupportedError when no
  // adapter matches or the adapter lacks what the library needs (Vulkan 1.3, timeline semaphores).
  static Device create(const DeviceOptions& options = {});

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();

  const AdapterInfo& adapter() const;
  const ComputeCapabilities& capabilities() const { return adapter().compute; }
  const TextureCapabilities& texture_capabilities() const { return adapter().texture; }
  // True when the validation layer is active on this device.
  bool validation_enabled() const;
  // Operations one submission may carry before the encoder starts another (the option, or the
  // capability's default); 0: no budget.
  uint64_t submission_work_budget() const;

  // A buffer of `count` elements, contents undefined.
  template <class T>
  Buffer<T> create_buffer(size_t count) {
    return Buffer<T>(create_raw_buffer(checked_bytes(count, sizeof(T))), count);
  }
  // A buffer holding a copy of `data` (uploaded before the next submission).
  template <class T>
  Buffer<T> create_buffer(std::span<const T> data) {
    Buffer<T> b = create_buffer<T>(data.size());
    b.write(data);
    return b;
  }
  template <class T>
  Buffer<T> create_buffer(const std::vector<T>& data) { return create_buffer(std::span<const T>(data)); }
  // Bytes are rounded up to a whole 32-bit word. Throws UnsupportedError past the device's
  // buffer size limit and OutOfMemoryError when memory runs out.
  std::shared_ptr<backend::Buffer> create_raw_buffer(uint64_t bytes);

  // Checks the module's structure first (header, instruction sizes, result ids below the bound,
  // a GLCompute entry point named shader.entry_point, functions and blocks well formed) and
  // throws KernelShapeError (operation "create_compute_kernel", argument "shader", the message
  // giving the rule and the word offset) before the driver sees it; then the device checks of
  // ComputeKernel (UnsupportedError).
  ComputeKernel create_compute_kernel(const ShaderSource& shader, const std::string& label = {},
                                      const KernelOptions& options = {});
  // Binds buffers to the kernel's bindings in (set, binding) order, one per binding. Checks the
  // count, that each range lies inside its buffer, the offset alignment and the device's
  // storage-binding range; throws KernelShapeError (operation "bind") otherwise.
  BindGroup create_bind_group(const ComputeKernel& kernel, std::span<const BufferBinding> buffers);
  // Binds buffers, textures and samplers (a list of buffers alone, {a, b}, binds as above), one per binding in (set, binding) order. Every binding is
  // checked before anything is created (docs/textures.md, "Binding rules"): its kind (buffer,
  // texture, sampler), for a texture the usage (sampled or storage), view dimension, texel kind
  // against the format, the storage format, one mip for storage, the mip and layer ranges, a
  // sampler exactly where the binding combines one (a comparison sampler for shadow sampling,
  // a filterable format for a linear one); the device. Throws KernelShapeError (operation "bind",
  // argument "binding N"), UnsupportedError or UsageError (another device, an empty handle).
  BindGroup create_bind_group(const ComputeKernel& kernel, std::span<const Binding> bindings);
  BindGroup create_bind_group(const ComputeKernel& kernel, std::initializer_list<Binding> bindings) {
    return create_bind_group(kernel, std::span<const Binding>(bindings.begin(), bindings.size()));
  }
  // A render pipeline (see onegpu/render.h for the descriptor and its checks). Checks both modules'
  // structure (as create_compute_kernel does, for a Vertex and a Fragment entry point), then the
  // descriptor against their reflection and the device; throws KernelShapeError (operation
  // "create_render_pipeline") or UnsupportedError before the driver sees anything.
  RenderPipeline create_render_pipeline(const RenderPipelineDescriptor& descriptor);
  // Binds buffers to a render pipeline's bindings (both stages', merged) in (set, binding) order,
  // with the checks of the kernel overload above.
  BindGroup create_bind_group(const RenderPipeline& pipeline, std::span<const BufferBinding> buffers);
  // Buffers, textures and samplers for a render pipeline, with the checks of the kernel overload.
  BindGroup create_bind_group(const RenderPipeline& pipeline, std::span<const Binding> bindings);
  BindGroup create_bind_group(const RenderPipeline& pipeline, std::initializer_list<Binding> bindings) {
    return create_bind_group(pipeline, std::span<const Binding>(bindings.begin(), bindings.size()));
  }

  // A texture, contents undefined until written. Checks the descriptor against the limits and the
  // format's capabilities for every usage asked (docs/textures.md): KernelShapeError (operation
  // "create_texture") for zero extents, layers that do not fit the dimension, too many mips, an
  // empty usage, sample_count 4 with mips, storage, layers or without render_target;
  // UnsupportedError for a size past the device's limits or a usage the format lacks.
  Texture create_texture(const TextureDescriptor& descriptor);
  // Throws KernelShapeError (operation "create_sampler") for lod_min > lod_max, a negative lod,
  // anisotropy 0 or above 1 with a nearest filter; UnsupportedError past max_sampler_anisotropy.
  Sampler create_sampler(const SamplerDescriptor& descriptor = {});
  // Slots for 1 to kMaxTimedPasses passes. Throws UnsupportedError when the device has no
  // timestamps and KernelShapeError for a capacity outside that range.
  static constexpr uint32_t kMaxTimedPasses = 1u << 16;
  TimestampSet create_timestamp_set(uint32_t pass_capacity);

  // A surface presenting to an X11 window (onegpu/surface.h). Throws UnsupportedError
  // (capability "surface_support") where adapter().surface_support is false, or ("surface
  // presentation") when the device's queue cannot present to this window; UsageError for a null
  // connection or window.
  Surface create_surface(const XcbWindow& window);

  CommandEncoder begin_commands();
  // Sends the encoder's work to the GPU (with every upload queued before it): one submission, or
  // several consecutive ones when the encoder split its work (CommandEncoder::report_work). The
  // encoder is consumed and its passes end. Returns at once. Throws UsageError for an encoder
  // already submitted and CommandFailedError when a submission failed.
  void submit(CommandEncoder& encoder);
  // Waits for everything submitted so far. Throws CommandFailedError when a submission failed.
  void wait_idle();

  MemoryStats memory_stats() const;

  // What the validation layer said about this device since the last call. Works after close():
  // destroying the device is where the layer lists objects that were never destroyed.
  std::vector<std::string> take_validation_messages();

  // Destroys the device now (the destructor does the same). Idempotent.
  void close();
  bool closed() const;

 private:
  friend struct DeviceAccess;  // the library's internals and tests
  explicit Device(std::shared_ptr<backend::Device> impl);
  static uint64_t checked_bytes(uint64_t count, uint64_t element_size);
  backend::Device& live() const;
  std::vector<backend::BindingEntry> binding_entries(const ShaderReflection& reflection, const char* owner,
                                                     std::span<const Binding> bindings);
  std::shared_ptr<backend::Device> impl_;
};

}  // namespace onegpu
