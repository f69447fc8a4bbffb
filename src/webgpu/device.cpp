#include <algorithm>
#include <iterator>
#include <cstring>

#include "core/env.h"
#include "onegpu/errors.h"
#include "webgpu/objects.h"

namespace onegpu::webgpu {

namespace {

constexpr uint32_t kLimitsMarker = 0xDEADBEEF;
constexpr uint32_t kPacked4x8IntegerDotProduct = 2;  // WGPUWGSLLanguageFeatureName
constexpr size_t kPushBlockSlots = 1024;

UnsupportedError unavailable(const std::string& why) {
  return UnsupportedError("webgpu", "a working WebGPU library (Dawn)", why);
}

// Reads the limits into a marked buffer and checks that Dawn wrote no further than the
// WGPULimits this backend expects (the prefix and maxImmediateSize).
abi::LimitsStorage read_limits(const Library& fn, abi::Adapter adapter) {
  abi::LimitsStorage l;
  std::fill(std::begin(l.words), std::end(l.words), kLimitsMarker);
  l.prefix.next = nullptr;
  if (fn.wgpuAdapterGetLimits(adapter, &l) != abi::Status::success) throw unavailable("wgpuAdapterGetLimits failed");
  size_t last = 0;
  for (size_t i = 0; i < std::size(l.words); ++i)
    if (l.words[i] != kLimitsMarker) last = i;
  constexpr size_t kExpectedWords = sizeof(abi::LimitsPrefix) / 4;  // maxImmediateSize fills the padding
  if (last + 1 > kExpectedWords)
    throw unavailable("this Dawn's WGPULimits is " + std::to_string((last + 1) * 4) + " bytes, not " +
                      std::to_string(kExpectedWords * 4) + ": its webgpu.h differs from the one declared");
  return l;
}

struct AdapterRequest {
  bool done = false;
  abi::Adapter adapter = nullptr;
  std::string message;
};

abi::Adapter request_adapter(Context& ctx) {
  AdapterRequest r;
  abi::RequestAdapterOptions options;
  // Dawn over Vulkan only: this Dawn also offers its Null backend, which runs nothing.
  options.backend_type = abi::BackendType::vulkan;
  abi::CallbackInfo<abi::RequestAdapterCallback> info;
  info.callback = [](abi::RequestStatus status, abi::Adapter a, abi::StringView message, void* u, void*) {
    auto* r = static_cast<AdapterRequest*>(u);
    if (status == abi::RequestStatus::success) r->adapter = a;
    r->message = to_string(message);
    r->done = true;
  };
  info.userdata1 = &r;
  {
    std::lock_guard lock(ctx.api);
    ctx.fn.wgpuInstanceRequestAdapter(ctx.instance, &options, info);
  }
  ctx.wait_until([&] { return r.done; });
  return r.adapter;
}

AdapterKind kind_of(abi::AdapterType t) {
  switch (t) {
    case abi::AdapterType::discrete: return AdapterKind::discrete;
    case abi::AdapterType::integrated: return AdapterKind::integrated;
    case abi::AdapterType::cpu: return AdapterKind::software;
    default: return AdapterKind::other;
  }
}

// The adapter as data: the spec's WebGPU column of the capability table.
AdapterInfo describe(Context& ctx, const abi::LimitsPrefix& l) {
  const Library& fn = ctx.fn;
  abi::AdapterInfo a;
  if (fn.wgpuAdapterGetInfo(ctx.adapter, &a) != abi::Status::success) throw unavailable("wgpuAdapterGetInfo failed");
  AdapterInfo info;
  info.backend = Backend::webgpu;
  info.name = to_string(a.device);
  if (info.name.empty()) info.name = to_string(a.description);
  info.kind = kind_of(a.adapter_type);
  info.vendor_id = a.vendor_id;
  info.device_id = a.device_id;
  info.api_version = {1, 0, 0};
  info.driver_name = to_string(a.vendor);
  info.driver_info = to_string(a.description);
  const bool subgroups = fn.wgpuAdapterHasFeature(ctx.adapter, abi::FeatureName::subgroups) != 0;
  const bool f16 = fn.wgpuAdapterHasFeature(ctx.adapter, abi::FeatureName::shader_f16) != 0;
  ComputeCapabilities& c = info.compute;
  if (subgroups) {
    c.min_subgroup_size = a.subgroup_min_size;
    c.max_subgroup_size = a.subgroup_max_size;
    // WebGPU offers every operation class but clustered ones.
    c.subgroup_operations = {.basic = true, .vote = true, .arithmetic = true, .ballot = true,
                             .shuffle = true, .shuffle_relative = true, .clustered = false, .quad = true};
    c.features |= FeatureSet(ShaderFeature::subgroup_basic) | ShaderFeature::subgroup_vote |
                  ShaderFeature::subgroup_arithmetic | ShaderFeature::subgroup_ballot |
                  ShaderFeature::subgroup_shuffle | ShaderFeature::subgroup_shuffle_relative |
                  ShaderFeature::subgroup_quad;
    // No control over subgroups: only a single reported size is known to be whole and fixed.
    if (a.subgroup_min_size != 0 && a.subgroup_min_size == a.subgroup_max_size) {
      c.subgroup_size = a.subgroup_min_size;
      c.full_subgroups = true;
      c.features |= ShaderFeature::full_subgroups;
    }
  }
  if (f16) c.features |= FeatureSet(ShaderFeature::float16) | ShaderFeature::storage_buffer_16bit;
  if (fn.wgpuInstanceHasWGSLLanguageFeature(ctx.instance, kPacked4x8IntegerDotProduct) != 0)
    c.features |= ShaderFeature::integer_dot_product;
  fn.wgpuAdapterInfoFreeMembers(a);
  c.max_workgroup_size = {l.max_compute_workgroup_size_x, l.max_compute_workgroup_size_y,
                          l.max_compute_workgroup_size_z};
  c.max_workgroup_invocations = l.max_compute_invocations_per_workgroup;
  c.max_workgroup_count = {l.max_compute_workgroups_per_dimension, l.max_compute_workgroups_per_dimension,
                           l.max_compute_workgroups_per_dimension};
  c.max_workgroup_memory_bytes = l.max_compute_workgroup_storage_size;
  c.max_push_constants_bytes = kPushSlotBytes;
  c.aliased_writable_bindings = false;  // WebGPU's usage scopes: a written buffer is used once a dispatch
  c.spirv_kernels = false;  // SPIR-V 1.3 at most, no push constants: a debugging aid, not the families'
  c.max_storage_buffer_range = l.max_storage_buffer_binding_size;
  c.max_uniform_buffer_range = l.max_uniform_buffer_binding_size;
  c.max_memory_allocation_size = l.max_buffer_size;
  c.max_buffer_size = l.max_buffer_size;
  c.min_storage_buffer_offset_alignment = l.min_storage_buffer_offset_alignment;
  // Native Dawn has timestamp-query (unquantised: the device turns the quantisation off); a
  // browser's WebGPU reports none.
  if (fn.wgpuAdapterHasFeature(ctx.adapter, abi::FeatureName::timestamp_query) != 0) {
    c.timestamps = true;
    c.timestamp_period_ns = 1.0;
  }
  return info;
}

// An instance and its default adapter, or nullptr when Dawn or an adapter is missing (`why`).
std::shared_ptr<Context> open_adapter(std::string* why) {
  const Library& fn = library();
  if (!fn.available) {
    *why = fn.reason;
    return nullptr;
  }
  auto ctx = std::make_shared<Context>(fn);
  ctx->instance = fn.wgpuCreateInstance(nullptr);
  if (ctx->instance == nullptr) {
    *why = "wgpuCreateInstance failed";
    return nullptr;
  }
  ctx->adapter = request_adapter(*ctx);
  if (ctx->adapter == nullptr) {
    *why = "Dawn found no adapter (it needs a Vulkan 1.1 driver with shaderUniformBufferArrayDynamicIndexing)";
    return nullptr;
  }
  return ctx;
}

struct DeviceRequest {
  bool done = false;
  abi::Device device = nullptr;
  std::string message;
};

}  // namespace

std::vector<AdapterInfo> enumerate_adapters() {
  std::string why;
  std::shared_ptr<Context> ctx = open_adapter(&why);
  if (!ctx) return {};
  abi::LimitsStorage limits = read_limits(ctx->fn, ctx->adapter);
  return {describe(*ctx, limits.prefix)};
}

std::shared_ptr<backend::Device> create_device(const DeviceOptions& options) {
  std::string why;
  std::shared_ptr<Context> ctx = open_adapter(&why);
  if (!ctx) throw UnsupportedError("adapter", "a WebGPU adapter", why);
  const Library& fn = ctx->fn;
  abi::LimitsStorage limits = read_limits(fn, ctx->adapter);
  AdapterInfo info = describe(*ctx, limits.prefix);
  const std::string query = core::env("ONEGPU_ADAPTER").value_or(options.adapter);
  select_adapter({info}, query);  // throws when the one adapter does not match

  std::vector<abi::FeatureName> features;
  for (abi::FeatureName f :
       {abi::FeatureName::shader_f16, abi::FeatureName::subgroups, abi::FeatureName::timestamp_query})
    if (fn.wgpuAdapterHasFeature(ctx->adapter, f) != 0) features.push_back(f);
  // Timestamps to the nanosecond: Dawn rounds them to 100 us by default, as browsers do.
  static const char* const kDisabledToggles[] = {"timestamp_quantization"};
  // The kernels check their own bounds (every index is checked on the host before recording, as on
  // Vulkan, which clamps nothing either) and never read workgroup memory before writing it, so
  // Dawn's clamping of every access and zeroing of workgroup memory are turned off, as ONNX
  // Runtime's WebGPU provider and Chrome's Graphite do. ONEGPU_WEBGPU_ROBUSTNESS=1 keeps both.
  static const char* const kEnabledToggles[] = {"disable_robustness", "disable_workgroup_init"};
  const bool robust = core::env("ONEGPU_WEBGPU_ROBUSTNESS").value_or("0") == "1";
  abi::DawnTogglesDescriptor toggles;
  toggles.disabled_count = std::size(kDisabledToggles);
  toggles.disabled = kDisabledToggles;
  toggles.enabled_count = robust ? 0 : std::size(kEnabledToggles);
  toggles.enabled = kEnabledToggles;
  abi::DeviceDescriptor d;
  d.next = &toggles.chain;
  d.label = view("onegpu");
  d.required_feature_count = features.size();
  d.required_features = features.data();
  d.required_limits = &limits;  // everything the adapter offers
  d.device_lost.mode = abi::CallbackMode::allow_spontaneous;
  d.device_lost.callback = [](const abi::Device*, abi::DeviceLostReason reason, abi::StringView message, void* u,
                              void*) {
    if (reason == abi::DeviceLostReason::destroyed || reason == abi::DeviceLostReason::callback_cancelled) return;
    auto* ctx = static_cast<Context*>(u);
    ctx->failed = true;
    ctx->add_message("webgpu: device lost: " + to_string(message));
  };
  d.device_lost.userdata1 = ctx.get();
  d.uncaptured_error.callback = [](const abi::Device*, abi::ErrorType type, abi::StringView message, void* u, void*) {
    const char* kind = type == abi::ErrorType::validation      ? "validation error"
                       : type == abi::ErrorType::out_of_memory ? "out of memory"
                                                               : "internal error";
    static_cast<Context*>(u)->add_message(std::string("webgpu: uncaptured ") + kind + ": " + to_string(message));
  };
  d.uncaptured_error.userdata1 = ctx.get();
  DeviceRequest r;
  abi::CallbackInfo<abi::RequestDeviceCallback> callback;
  callback.callback = [](abi::RequestStatus status, abi::Device device, abi::StringView message, void* u, void*) {
    auto* r = static_cast<DeviceRequest*>(u);
    if (status == abi::RequestStatus::success) r->device = device;
    r->message = to_string(message);
    r->done = true;
  };
  callback.userdata1 = &r;
  {
    std::lock_guard lock(ctx->api);
    fn.wgpuAdapterRequestDevice(ctx->adapter, &d, callback);
  }
  ctx->wait_until([&] { return r.done; });
  if (r.device == nullptr) throw UnsupportedError("device", "a WebGPU device on " + info.name, r.message);
  ctx->device = r.device;
  ctx->queue = fn.wgpuDeviceGetQueue(ctx->device);
  ctx->alive = true;
  abi::ModelessCallbackInfo<abi::LoggingCallback> logging;
  logging.callback = [](abi::LoggingType type, abi::StringView message, void* u, void*) {
    if (type == abi::LoggingType::warning || type == abi::LoggingType::error)
      static_cast<Context*>(u)->add_message("webgpu: " + to_string(message));
  };
  logging.userdata1 = ctx.get();
  fn.wgpuDeviceSetLoggingCallback(ctx->device, logging);
  // Dawn validates everything it is given, always.
  return std::make_shared<WebGpuDevice>(std::move(ctx), std::move(info), true);
}

WebGpuDevice::WebGpuDevice(std::shared_ptr<Context> ctx, AdapterInfo info, bool validation)
    : ctx_(std::move(ctx)), info_(std::make_shared<const AdapterInfo>(std::move(info))), validation_(validation) {
  ErrorScope scope(*ctx_);
  {
    std::array<BindGroupLayoutHandle, 2> layouts;
    std::lock_guard lock(ctx_->api);
    for (WgslPushConstants kind : {WgslPushConstants::uniform, WgslPushConstants::read_only_storage}) {
      abi::BindGroupLayoutEntry entry;
      entry.binding = 0;
      entry.visibility = abi::kShaderStageCompute;
      entry.buffer.type = kind == WgslPushConstants::uniform ? abi::BufferBindingType::uniform
                                                             : abi::BufferBindingType::read_only_storage;
      entry.buffer.has_dynamic_offset = 1;
      entry.buffer.min_binding_size = kPushSlotBytes;
      abi::BindGroupLayoutDescriptor d;
      d.label = view("push constants");
      d.entry_count = 1;
      d.entries = &entry;
      layouts[static_cast<size_t>(kind)] =
          BindGroupLayoutHandle(ctx_.get(), ctx_->fn.wgpuDeviceCreateBindGroupLayout(ctx_->device, &d));
    }
    ring_ = std::make_shared<PushRing>(ctx_, std::move(layouts));
  }
  ScopeResult r = scope.pop();
  if (r.type != abi::ErrorType::no_error)
    throw unavailable("creating a bind group layout failed (" + r.message + "): Dawn's webgpu.h differs");
  readbacks_ = std::make_unique<Readbacks>(ctx_);
  smoke_test();
}

WebGpuDevice::~WebGpuDevice() {
  try {
    close();
  } catch (const Error&) {
  }
}

void WebGpuDevice::smoke_test() {
  static const ShaderSource shader = [] {
    ShaderSource s;
    s.name = "webgpu_smoke";
    s.wgsl =
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
        "struct Push { add: u32 }\n"
        "@group(1) @binding(0) var<uniform> push: Push;\n"
        "@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
        "  data[id.x] = data[id.x] * 3u + push.add;\n"
        "}\n";
    s.reflection.bindings = {ShaderBinding{.set = 0, .binding = 0, .kind = BindingKind::storage_buffer}};
    s.reflection.push_constant_size = 4;
    s.reflection.local_size = {4, 1, 1};
    return s;
  }();
  const uint32_t in[4] = {1, 2, 3, 0x10000};
  const uint32_t add = 7;
  auto buffer = create_buffer(sizeof in);
  buffer->write(0, std::as_bytes(std::span(in)));
  auto kernel = create_kernel(shader, "webgpu_smoke", {});
  backend::BindingEntry entry{0, backend::BufferRange{buffer.get(), 0, sizeof in}};
  auto group = create_bind_group(*kernel, std::span(&entry, 1));
  auto encoder = begin_commands();
  encoder->begin_compute_pass().dispatch(*kernel, *group, std::as_bytes(std::span(&add, 1)), Grid{1, 1, 1});
  submit(std::move(encoder));
  wait_idle();
  uint32_t out[4] = {};
  buffer->read(0, std::as_writable_bytes(std::span(out)));
  for (int i = 0; i < 4; ++i)
    if (out[i] != in[i] * 3 + add)
      throw unavailable("the start-up kernel computed " + std::to_string(out[i]) + " where " +
                        std::to_string(in[i] * 3 + add) + " was due: Dawn's ABI differs from the declared one");
}

void WebGpuDevice::inject_validation_error(const std::string& message) {
  {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuDeviceInjectError(ctx_->device, abi::ErrorType::validation, view(message));
  }
  // Dawn may report it from its event loop.
  std::lock_guard lock(ctx_->api);
  ctx_->fn.wgpuInstanceProcessEvents(ctx_->instance);
}

void WebGpuDevice::check_failed(const char* operation) const {
  if (ctx_->failed) throw CommandFailedError(CommandFailedError::Failure::device_lost, operation);
}

std::shared_ptr<backend::Buffer> WebGpuDevice::create_buffer(uint64_t bytes) {
  abi::BufferDescriptor d;
  d.usage = abi::buffer_usage::storage | abi::buffer_usage::uniform | abi::buffer_usage::copy_src |
            abi::buffer_usage::copy_dst | abi::buffer_usage::indirect;
  d.size = bytes;
  ErrorScope scope(*ctx_);
  BufferHandle b;
  {
    std::lock_guard lock(ctx_->api);
    b = BufferHandle(ctx_.get(), ctx_->fn.wgpuDeviceCreateBuffer(ctx_->device, &d));
  }
  ScopeResult r = scope.pop();
  if (r.type == abi::ErrorType::out_of_memory) throw OutOfMemoryError("create_buffer", bytes);
  if (r.type != abi::ErrorType::no_error) throw CommandError("create_buffer", static_cast<int32_t>(r.type), r.message);
  return std::make_shared<WebGpuBuffer>(ctx_, this, std::move(b), bytes);
}

std::shared_ptr<backend::Texture> WebGpuDevice::create_texture(const TextureDescriptor&) {
  throw UnsupportedError("textures", "a backend with textures", "webgpu (not yet)");
}
std::shared_ptr<backend::Sampler> WebGpuDevice::create_sampler(const SamplerDescriptor&) {
  throw UnsupportedError("samplers", "a backend with samplers", "webgpu (not yet)");
}
std::shared_ptr<backend::RenderPipeline> WebGpuDevice::create_render_pipeline(const RenderPipelineDescriptor&,
                                                                              core::RenderPipelinePlan,
                                                                              const std::string&) {
  throw UnsupportedError("render_pipelines", "a backend with render pipelines", "webgpu (not yet)");
}
std::shared_ptr<backend::BindGroup> WebGpuDevice::create_bind_group(backend::RenderPipeline&,
                                                                    std::span<const backend::BindingEntry>) {
  throw UnsupportedError("render_pipelines", "a backend with render pipelines", "webgpu (not yet)");
}
std::shared_ptr<backend::TimestampSet> WebGpuDevice::create_timestamp_set(uint32_t passes) {
  if (!info_->compute.timestamps) throw UnsupportedError("timestamps", "true", "false (webgpu)");
  return std::make_shared<WebGpuTimestampSet>(ctx_, this, passes);
}
std::shared_ptr<backend::Surface> WebGpuDevice::create_surface(const XcbWindow&) {
  throw UnsupportedError("surface_support", "true", "false (webgpu)");
}

std::shared_ptr<backend::Kernel> WebGpuDevice::create_kernel(const ShaderSource& shader, const std::string& label,
                                                             const KernelOptions& options) {
  // The public layer checked features and workgroup limits against the capabilities; WebGPU
  // cannot pin a subgroup size or ask for full subgroups beyond what those say.
  if (options.required_subgroup_size != 0 && options.required_subgroup_size != info_->compute.subgroup_size)
    throw UnsupportedError("required_subgroup_size", std::to_string(options.required_subgroup_size),
                           "webgpu cannot pin a subgroup size");
  return std::make_shared<WebGpuKernel>(ctx_, *this, shader, label);
}

std::shared_ptr<backend::BindGroup> WebGpuDevice::create_bind_group(backend::Kernel& kernel,
                                                                    std::span<const backend::BindingEntry> entries) {
  auto& k = static_cast<WebGpuKernel&>(kernel);
  return std::make_shared<WebGpuBindGroup>(ctx_, k.shared_from_this(), entries);
}

std::unique_ptr<backend::Encoder> WebGpuDevice::begin_commands() {
  check_failed("begin_commands");
  return std::make_unique<WebGpuEncoder>(ctx_, info_, ring_);
}

void WebGpuDevice::submit(std::unique_ptr<backend::Encoder> encoder) {
  check_failed("submit");
  auto* e = static_cast<WebGpuEncoder*>(encoder.get());
  ErrorScope scope(*ctx_);
  {
    std::vector<CommandBufferHandle> buffers = e->finish();
    std::vector<abi::CommandBuffer> raw;
    for (const auto& b : buffers) raw.push_back(b.get());
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuQueueSubmit(ctx_->queue, raw.size(), raw.data());
    if (!e->timed_sets().empty()) {
      abi::CallbackInfo<abi::QueueWorkDoneCallback> info;
      info.mode = abi::CallbackMode::wait_any_only;
      info.callback = [](abi::QueueWorkDoneStatus) {};
      const abi::Future done = ctx_->fn.wgpuQueueOnSubmittedWorkDone(ctx_->queue, info);
      for (const auto& set : e->timed_sets()) set->done = done;
    }
  }
  encoder.reset();
  ScopeResult r = scope.pop();
  if (r.type == abi::ErrorType::no_error) return;
  ctx_->failed = true;
  ctx_->add_message("webgpu: submit: " + r.message);
  throw CommandFailedError(r.type == abi::ErrorType::out_of_memory ? CommandFailedError::Failure::out_of_memory
                                                                   : CommandFailedError::Failure::other,
                           "submit");
}

void WebGpuDevice::wait_idle() {
  check_failed("wait_idle");
  abi::CallbackInfo<abi::QueueWorkDoneCallback> info;
  info.mode = abi::CallbackMode::wait_any_only;
  info.callback = [](abi::QueueWorkDoneStatus) {};
  abi::FutureWaitInfo wait;
  {
    std::lock_guard lock(ctx_->api);
    wait.future = ctx_->fn.wgpuQueueOnSubmittedWorkDone(ctx_->queue, info);
  }
  ctx_->wait_until([&] {
    ctx_->fn.wgpuInstanceWaitAny(ctx_->instance, 1, &wait, 0);
    return wait.completed != 0;
  });
  check_failed("wait_idle");
}

BufferHandle WebGpuDevice::stage_for_read(abi::Buffer src, uint64_t offset, uint64_t bytes) {
  check_failed("read");
  const Library& fn = ctx_->fn;
  abi::BufferDescriptor d;
  d.usage = abi::buffer_usage::map_read | abi::buffer_usage::copy_dst;
  d.size = bytes;
  ErrorScope scope(*ctx_);
  BufferHandle staging;
  {
    std::lock_guard lock(ctx_->api);
    staging = BufferHandle(ctx_.get(), fn.wgpuDeviceCreateBuffer(ctx_->device, &d));
    abi::CommandEncoderDescriptor ed;
    CommandEncoderHandle e(ctx_.get(), fn.wgpuDeviceCreateCommandEncoder(ctx_->device, &ed));
    fn.wgpuCommandEncoderCopyBufferToBuffer(e.get(), src, offset, staging.get(), 0, bytes);
    abi::CommandBufferDescriptor cd;
    CommandBufferHandle cb(ctx_.get(), fn.wgpuCommandEncoderFinish(e.get(), &cd));
    abi::CommandBuffer raw = cb.get();
    fn.wgpuQueueSubmit(ctx_->queue, 1, &raw);
  }
  ScopeResult r = scope.pop();
  if (r.type == abi::ErrorType::out_of_memory) throw OutOfMemoryError("read", bytes);
  if (r.type != abi::ErrorType::no_error) throw CommandError("read", static_cast<int32_t>(r.type), r.message);
  return staging;
}

std::unique_ptr<PushBlock> PushRing::take() {
  {
    std::lock_guard lock(mu_);
    if (!free_.empty()) {
      auto b = std::move(free_.back());
      free_.pop_back();
      return b;
    }
  }
  const Library& fn = ctx_->fn;
  auto block = std::make_unique<PushBlock>();
  abi::BufferDescriptor d;
  d.label = view("push-constant ring");
  d.usage = abi::buffer_usage::uniform | abi::buffer_usage::storage | abi::buffer_usage::copy_dst;
  d.size = kPushSlotBytes * kPushBlockSlots;
  std::lock_guard lock(ctx_->api);
  if (!ctx_->alive || ctx_->closing) throw UsageError("dispatch", "the device is closed");
  block->buffer = BufferHandle(ctx_.get(), fn.wgpuDeviceCreateBuffer(ctx_->device, &d));
  abi::BindGroupEntry entry;
  entry.binding = 0;
  entry.buffer = block->buffer.get();
  entry.size = kPushSlotBytes;
  for (size_t kind = 0; kind < layouts_.size(); ++kind) {
    abi::BindGroupDescriptor g;
    g.layout = layouts_[kind].get();
    g.entry_count = 1;
    g.entries = &entry;
    block->groups[kind] = BindGroupHandle(ctx_.get(), fn.wgpuDeviceCreateBindGroup(ctx_->device, &g));
  }
  block->capacity = d.size;
  block->staged.reserve(d.size);
  return block;
}

void PushRing::give_back(std::unique_ptr<PushBlock> block) {
  block->staged.clear();
  std::lock_guard lock(mu_);
  if (open_) free_.push_back(std::move(block));
}

void PushRing::clear() {
  std::lock_guard lock(mu_);
  free_.clear();
  open_ = false;
  for (auto& l : layouts_) l.reset();
}

namespace {

// The end of a close, once no readback is pending: the push ring, the leak report, the device.
void release_device(Context& c, PushRing& ring) {
  ring.clear();
  const int64_t live = c.live_objects.load();
  if (live != 0)
    c.add_message("webgpu: " + std::to_string(live) + " objects of the device are still alive when it is destroyed (leaked)");
  std::lock_guard lock(c.api);
  c.fn.wgpuDeviceDestroy(c.device);
  c.fn.wgpuInstanceProcessEvents(c.instance);
  c.alive = false;
}

}  // namespace

void WebGpuDevice::close() {
  if (closed_) return;
  closed_ = true;
  ctx_->closing = true;  // no new readback, write or push slot from here on
  if (readbacks_->on_this_thread()) {
    // From a completion of this device (or the last handle released on its readback thread): the
    // thread cannot wait for itself, so it finishes its queue after the completion returns, then
    // releases the device (the queue's work is done by then: every pending map has finished).
    readbacks_->stop([ctx = ctx_, ring = ring_] { release_device(*ctx, *ring); });
    return;
  }
  try {
    if (!ctx_->failed) wait_idle();
  } catch (const Error&) {
  }
  readbacks_->stop();
  release_device(*ctx_, *ring_);
}

}  // namespace onegpu::webgpu

namespace onegpu::backend {
std::vector<AdapterInfo> enumerate_webgpu_adapters() { return webgpu::enumerate_adapters(); }
std::shared_ptr<Device> create_webgpu_device(const DeviceOptions& options) { return webgpu::create_device(options); }
}  // namespace onegpu::backend
