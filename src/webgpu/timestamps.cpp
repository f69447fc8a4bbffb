// Pass timings through the timestamp-query feature: WebGPU timestamps are nanoseconds already.
#include <cstring>

#include "onegpu/errors.h"
#include "webgpu/objects.h"

namespace onegpu::webgpu {

WebGpuTimestampSet::WebGpuTimestampSet(std::shared_ptr<Context> ctx, WebGpuDevice* device, uint32_t passes)
    : ctx_(std::move(ctx)), device_(device), passes_(passes) {
  owner_ = ctx_.get();
  const Library& fn = ctx_->fn;
  abi::QuerySetDescriptor q;
  q.type = abi::QueryType::timestamp;
  q.count = 2 * passes;
  abi::BufferDescriptor b;
  b.usage = abi::buffer_usage::query_resolve | abi::buffer_usage::copy_src;
  b.size = uint64_t(16) * passes;
  ErrorScope scope(*ctx_);
  {
    std::lock_guard lock(ctx_->api);
    queries_ = QuerySetHandle(ctx_.get(), fn.wgpuDeviceCreateQuerySet(ctx_->device, &q));
    resolved_ = BufferHandle(ctx_.get(), fn.wgpuDeviceCreateBuffer(ctx_->device, &b));
  }
  ScopeResult r = scope.pop();
  if (r.type == abi::ErrorType::out_of_memory) throw OutOfMemoryError("create_timestamp_set", b.size);
  if (r.type != abi::ErrorType::no_error)
    throw CommandError("create_timestamp_set", static_cast<int32_t>(r.type), r.message);
}

std::vector<uint64_t> WebGpuTimestampSet::read_slots() {
  std::vector<uint64_t> ticks(slots_written);
  if (slots_written == 0) return ticks;
  if (!ctx_->alive) throw UsageError("timestamps", "the device is closed");
  BufferHandle staging = device_->stage_for_read(resolved_.get(), 0, ticks.size() * 8);
  struct Map {
    bool done = false, ok = false;
  } map;
  abi::CallbackInfo<abi::BufferMapCallback> info;
  info.callback = [](abi::MapAsyncStatus status, abi::StringView, void* u, void*) {
    auto* m = static_cast<Map*>(u);
    m->ok = status == abi::MapAsyncStatus::success;
    m->done = true;
  };
  info.userdata1 = &map;
  {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuBufferMapAsync(staging.get(), abi::kMapModeRead, 0, ticks.size() * 8, info);
  }
  ctx_->wait_until([&] { return map.done; });
  if (!map.ok) throw CommandFailedError(CommandFailedError::Failure::other, "timestamps");
  std::lock_guard lock(ctx_->api);
  std::memcpy(ticks.data(), ctx_->fn.wgpuBufferGetConstMappedRange(staging.get(), 0, ticks.size() * 8),
              ticks.size() * 8);
  ctx_->fn.wgpuBufferUnmap(staging.get());
  return ticks;
}

std::optional<std::vector<uint64_t>> WebGpuTimestampSet::try_read() {
  if (done.id == 0 || slots_written == 0) return std::nullopt;
  abi::FutureWaitInfo wait{done, 0};
  {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuInstanceWaitAny(ctx_->instance, 1, &wait, 0);
  }
  if (wait.completed == 0) return std::nullopt;
  return read_slots();
}

std::vector<uint64_t> WebGpuTimestampSet::wait_read() {
  if (done.id == 0) return {};
  abi::FutureWaitInfo wait{done, 0};
  ctx_->wait_until([&] {
    ctx_->fn.wgpuInstanceWaitAny(ctx_->instance, 1, &wait, 0);
    return wait.completed != 0;
  });
  return read_slots();
}

}  // namespace onegpu::webgpu
