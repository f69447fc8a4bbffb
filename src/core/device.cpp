// The public Device, buffer, kernel and timestamp handles: argument checks, then the backend.
#include <atomic>
#include <limits>

#include "backend/backend.h"
#include "core/checks.h"
#include "core/spirv_structure.h"
#include "onegpu/device.h"
#include "onegpu/errors.h"

namespace onegpu {

// ---- Device ----

Device::Device(std::shared_ptr<backend::Device> impl) : impl_(std::move(impl)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&& o) noexcept {
  if (this != &o) {
    if (impl_) impl_->close();
    impl_ = std::move(o.impl_);
  }
  return *this;
}
Device::~Device() {
  try {
    if (impl_) impl_->close();
  } catch (const Error&) {
    // A destructor does not throw; the backend object closes when released.
  }
}

Device Device::create(const DeviceOptions& options) {
  const Backend b = options.backend ? *options.backend : selected_backend();
  if (b == Backend::webgpu) return Device(backend::create_webgpu_device(options));
  if (b == Backend::metal) throw UnsupportedError("backend", "metal", "this build implements vulkan and webgpu");
  return Device(backend::create_vulkan_device(options));
}

backend::Device& Device::live() const {
  if (!impl_ || impl_->closed()) throw UsageError("Device", "the device is closed");
  return *impl_;
}

const AdapterInfo& Device::adapter() const {
  if (!impl_) throw UsageError("Device", "the device was moved from");
  return impl_->adapter();
}
bool Device::validation_enabled() const { return impl_ && impl_->validation_enabled(); }
uint64_t Device::submission_work_budget() const { return live().submission_work_budget(); }

uint64_t Device::checked_bytes(uint64_t count, uint64_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<uint64_t>::max() / element_size)
    throw KernelShapeError("create_buffer", "count", std::to_string(count) + " elements overflow 64 bits");
  return count * element_size;
}

std::shared_ptr<backend::Buffer> Device::create_raw_buffer(uint64_t bytes) {
  backend::Device& d = live();
  const ComputeCapabilities& c = capabilities();
  uint64_t padded = (bytes + 3) / 4 * 4;
  if (bytes > std::numeric_limits<uint64_t>::max() - 3) padded = std::numeric_limits<uint64_t>::max();
  if (padded == 0) padded = 4;
  if (c.max_buffer_size != 0 && padded > c.max_buffer_size)
    throw UnsupportedError("max_buffer_size", std::to_string(padded), std::to_string(c.max_buffer_size));
  return d.create_buffer(padded);
}

ComputeKernel Device::create_compute_kernel(const ShaderSource& shader, const std::string& label,
                                            const KernelOptions& options) {
  backend::Device& d = live();
  if (adapter().backend == Backend::webgpu && !shader.wgsl.empty()) {
    // WGSL: Dawn checks it (create_compute_kernel throws KernelShapeError with its message).
  } else {
    if (shader.spirv.empty() && !shader.wgsl.empty())
      throw UnsupportedError("shader_language", "spirv", "wgsl only ('" + shader.name + "')");
    core::check_spirv_structure(shader.spirv, shader.entry_point, shader.name);
  }
  core::plan_kernel(shader.reflection, options, capabilities());
  return ComputeKernel(d.create_kernel(shader, label.empty() ? shader.name : label, options));
}

namespace {

// The checked entries of a group for `reflection`'s bindings.
std::vector<backend::BindingEntry> buffer_entries(backend::Device& d, const ShaderReflection& reflection,
                                                  std::span<const BufferBinding> buffers,
                                                  const ComputeCapabilities& caps) {
  std::vector<core::BindingRange> ranges;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].buffer == nullptr || !*buffers[i].buffer)
      throw KernelShapeError("bind", "binding " + std::to_string(i), "the buffer is empty");
    if (buffers[i].buffer->impl().owner() != d.token())
      throw UsageError("bind", "binding " + std::to_string(i) + ": the buffer belongs to another device");
    ranges.push_back({buffers[i].buffer->size_bytes(), buffers[i].offset_bytes, buffers[i].size_bytes});
  }
  core::check_bindings(reflection, ranges, caps);
  std::vector<backend::BindingEntry> entries;
  entries.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i)
    entries.push_back({reflection.bindings[i].binding,
                       backend::BufferRange{&buffers[i].buffer->impl(), ranges[i].offset, ranges[i].size}});
  return entries;
}

}  // namespace

BindGroup Device::create_bind_group(const RenderPipeline& pipeline, std::span<const BufferBinding> buffers) {
  backend::Device& d = live();
  if (!pipeline) throw KernelShapeError("bind", "pipeline", "the pipeline is empty");
  if (pipeline.impl().owner() != d.token()) throw UsageError("bind", "the pipeline belongs to another device");
  for (const ShaderBinding& b : pipeline.reflection().bindings)
    if (b.kind != BindingKind::storage_buffer && b.kind != BindingKind::uniform_buffer)
      return create_bind_group(pipeline, std::vector<Binding>(buffers.begin(), buffers.end()));
  const std::vector<backend::BindingEntry> entries =
      buffer_entries(d, pipeline.reflection(), buffers, capabilities());
  return BindGroup(d.create_bind_group(pipeline.impl(), entries));
}

BindGroup Device::create_bind_group(const ComputeKernel& kernel, std::span<const BufferBinding> buffers) {
  backend::Device& d = live();
  if (!kernel) throw KernelShapeError("bind", "kernel", "the kernel is empty");
  if (kernel.impl().owner() != d.token()) throw UsageError("bind", "the kernel belongs to another device");
  for (const ShaderBinding& b : kernel.reflection().bindings)
    if (b.kind != BindingKind::storage_buffer && b.kind != BindingKind::uniform_buffer)
      return create_bind_group(kernel, std::vector<Binding>(buffers.begin(), buffers.end()));
  const std::vector<backend::BindingEntry> entries = buffer_entries(d, kernel.reflection(), buffers, capabilities());
  return BindGroup(d.create_bind_group(kernel.impl(), entries));
}

TimestampSet Device::create_timestamp_set(uint32_t pass_capacity) {
  backend::Device& d = live();
  if (!capabilities().timestamps) throw UnsupportedError("timestamps", "supported", "not supported");
  if (pass_capacity == 0) throw KernelShapeError("create_timestamp_set", "pass_capacity", "must be at least 1");
  if (pass_capacity > kMaxTimedPasses)
    throw KernelShapeError("create_timestamp_set", "pass_capacity",
                           std::to_string(pass_capacity) + " is more than " + std::to_string(kMaxTimedPasses));
  return TimestampSet(d.create_timestamp_set(pass_capacity));
}

CommandEncoder Device::begin_commands() { return CommandEncoder(live().begin_commands()); }

void Device::submit(CommandEncoder& encoder) {
  backend::Device& d = live();
  if (!encoder) throw UsageError("submit", "the encoder is empty (already submitted?)");
  if (encoder.impl().owner() != d.token()) throw UsageError("submit", "the encoder belongs to another device");
  d.submit(encoder.release());
}

void Device::wait_idle() { live().wait_idle(); }
MemoryStats Device::memory_stats() const { return live().memory_stats(); }
std::vector<std::string> Device::take_validation_messages() {
  return impl_ ? impl_->take_validation_messages() : std::vector<std::string>{};
}
void Device::close() {
  if (impl_) impl_->close();
}
bool Device::closed() const { return !impl_ || impl_->closed(); }

// ---- RawBuffer ----

uint64_t backend::next_object_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

backend::Buffer::Buffer() : id_(next_object_id()) {}

uint64_t RawBuffer::id() const { return impl_ ? impl_->id() : 0; }

RawBuffer::RawBuffer(std::shared_ptr<backend::Buffer> impl) : impl_(std::move(impl)) {}
RawBuffer::~RawBuffer() = default;

backend::Buffer& RawBuffer::impl() const {
  if (!impl_) throw UsageError("buffer", "the buffer is empty");
  return *impl_;
}
uint64_t RawBuffer::size_bytes() const { return impl_ ? impl_->size_bytes() : 0; }

void RawBuffer::write_bytes(uint64_t offset, std::span<const std::byte> data) {
  core::check_range("write", "offset", offset, data.size(), size_bytes());
  if (!data.empty()) impl().write(offset, data);
}

void RawBuffer::read_bytes(uint64_t offset, std::span<std::byte> out) const {
  core::check_range("read", "offset", offset, out.size(), size_bytes());
  if (!out.empty()) impl().read(offset, out);
}

void RawBuffer::read_bytes_async(uint64_t offset, std::span<std::byte> out,
                                 std::function<void(std::exception_ptr)> done) const {
  core::check_range("read_async", "offset", offset, out.size(), size_bytes());
  impl().read_async(offset, out, std::move(done));
}

std::future<void> RawBuffer::read_bytes_async(uint64_t offset, std::span<std::byte> out) const {
  auto promise = std::make_shared<std::promise<void>>();
  auto future = promise->get_future();
  read_bytes_async(offset, out, [promise](std::exception_ptr error) {
    if (error) promise->set_exception(error);
    else promise->set_value();
  });
  return future;
}

// ---- ComputeKernel, BindGroup, TimestampSet ----

ComputeKernel::ComputeKernel(std::shared_ptr<backend::Kernel> impl) : impl_(std::move(impl)) {}
const ShaderReflection& ComputeKernel::reflection() const { return impl().reflection(); }
const std::string& ComputeKernel::label() const { return impl().label(); }
const std::vector<KernelStatistic>& ComputeKernel::statistics() const { return impl().statistics(); }
uint32_t ComputeKernel::reported_workgroup_memory_bytes() const {
  for (const KernelStatistic& s : statistics())
    if (s.name == "Shared Memory Size" && s.value >= 0 && s.value < 4294967296.0) return static_cast<uint32_t>(s.value);
  return reflection().workgroup_memory_bytes;
}
backend::Kernel& ComputeKernel::impl() const {
  if (!impl_) throw UsageError("kernel", "the kernel is empty");
  return *impl_;
}

BindGroup::BindGroup(std::shared_ptr<backend::BindGroup> impl) : impl_(std::move(impl)) {}
backend::BindGroup& BindGroup::impl() const {
  if (!impl_) throw UsageError("bind group", "the group is empty");
  return *impl_;
}

TimestampSet::TimestampSet(std::shared_ptr<backend::TimestampSet> impl) : impl_(std::move(impl)) {}
uint32_t TimestampSet::pass_capacity() const { return impl().pass_capacity(); }
std::optional<std::vector<uint64_t>> TimestampSet::try_read() { return impl().try_read(); }
std::vector<uint64_t> TimestampSet::wait_pass_durations() {
  std::vector<uint64_t> slots = impl().wait_read(), out;
  for (size_t i = 0; i + 1 < slots.size(); i += 2) out.push_back(slots[i + 1] - slots[i]);
  return out;
}
backend::TimestampSet& TimestampSet::impl() const {
  if (!impl_) throw UsageError("timestamps", "the set is empty");
  return *impl_;
}

}  // namespace onegpu
