// Buffers: uploads as queue writes (which the queue runs before any later submission) and
// readbacks through a map-readable staging copy, finished on the device's readback thread.
#include <chrono>
#include <cstring>
#include <future>
#include <iostream>

#include "core/detached_threads.h"
#include "onegpu/errors.h"
#include "webgpu/objects.h"

namespace onegpu::webgpu {

namespace {

// WebGPU copies and queue writes move whole 4-byte words.
constexpr uint64_t kWord = 4;
uint64_t floor_word(uint64_t v) { return v / kWord * kWord; }
uint64_t ceil_word(uint64_t v) { return (v + kWord - 1) / kWord * kWord; }

}  // namespace

WebGpuBuffer::WebGpuBuffer(std::shared_ptr<Context> ctx, WebGpuDevice* device, BufferHandle b, uint64_t bytes)
    : ctx_(std::move(ctx)), device_(device), b_(std::move(b)), bytes_(bytes) {
  owner_ = ctx_.get();
}

void WebGpuBuffer::write(uint64_t offset, std::span<const std::byte> data) {
  if (!ctx_->alive || ctx_->closing) throw UsageError("write", "the device is closed");
  if (data.empty()) return;
  const uint64_t begin = floor_word(offset), end = ceil_word(offset + data.size());
  if (begin == offset && end == offset + data.size()) {
    std::lock_guard lock(ctx_->api);
    ctx_->fn.wgpuQueueWriteBuffer(ctx_->queue, b_.get(), offset, data.data(), data.size());
    return;
  }
  // A partial word at either end keeps the bytes around it: read the edge words as the queue
  // has them (after every earlier write and submission), merge, write whole words.
  std::vector<std::byte> words(end - begin);
  read(begin, std::span(words).first(kWord));
  if (end - begin > kWord) read(end - kWord, std::span(words).last(kWord));
  std::memcpy(words.data() + (offset - begin), data.data(), data.size());
  std::lock_guard lock(ctx_->api);
  ctx_->fn.wgpuQueueWriteBuffer(ctx_->queue, b_.get(), begin, words.data(), words.size());
}

void WebGpuBuffer::read(uint64_t offset, std::span<std::byte> out) {
  if (!ctx_->alive || ctx_->closing) throw UsageError("read", "the device is closed");
  if (device_->readbacks().on_this_thread())
    throw UsageError("read", "a blocking read from a readback completion would wait for itself; use read_async");
  auto p = std::make_shared<std::promise<void>>();
  auto f = p->get_future();
  read_async(offset, out, [p](std::exception_ptr e) {
    if (e)
      p->set_exception(e);
    else
      p->set_value();
  });
  f.get();
}

void WebGpuBuffer::read_async(uint64_t offset, std::span<std::byte> out,
                              std::function<void(std::exception_ptr)> done) {
  if (!ctx_->alive || ctx_->closing) throw UsageError("read_async", "the device is closed");
  if (out.empty()) {
    done(nullptr);
    return;
  }
  const uint64_t begin = floor_word(offset), end = ceil_word(offset + out.size());
  auto job = std::make_unique<Readbacks::Job>();
  job->staging = device_->stage_for_read(b_.get(), begin, end - begin);
  job->skip = offset - begin;
  job->destination = out;
  job->done = std::move(done);
  Readbacks& readbacks = device_->readbacks();
  abi::Buffer staging = job->staging.get();
  std::lock_guard lock(ctx_->api);
  Readbacks::Job& j = readbacks.add(std::move(job));
  abi::CallbackInfo<abi::BufferMapCallback> info;
  info.mode = abi::CallbackMode::allow_process_events;
  info.callback = [](abi::MapAsyncStatus status, abi::StringView message, void* u1, void* u2) {
    Readbacks::map_finished(u1, static_cast<Readbacks::Job*>(u2), status == abi::MapAsyncStatus::success,
                            to_string(message));
  };
  info.userdata1 = readbacks.callback_target();
  info.userdata2 = &j;
  ctx_->fn.wgpuBufferMapAsync(staging, abi::kMapModeRead, 0, end - begin, info);
}

Readbacks::Readbacks(std::shared_ptr<Context> ctx) : state_(std::make_shared<State>()) {
  state_->ctx = std::move(ctx);
  core::detached_threads();  // constructed before any thread may need it, so destroyed after
  thread_ = std::thread([state = state_]() mutable {
    run(*state);
    if (state->then) {
      try {
        state->then();
      } catch (const std::exception& e) {
        std::cerr << "onegpu: closing the device from its readback thread failed: " << e.what() << "\n";
      }
    }
    const bool detached = state->detached;  // final: only this thread detaches itself, from stop()
    state.reset();
    if (detached) core::detached_threads().finished();
  });
  id_ = thread_.get_id();
}

Readbacks::~Readbacks() { stop(); }

Readbacks::Job& Readbacks::add(std::unique_ptr<Job> job) {
  std::lock_guard lock(state_->mu);
  if (state_->stopping) throw UsageError("read_async", "the device is closed");
  state_->jobs.push_back(std::move(job));
  state_->cv.notify_all();
  return *state_->jobs.back();
}

void Readbacks::map_finished(void* target, Job* job, bool ok, std::string error) {
  State& s = *static_cast<State*>(target);
  std::lock_guard lock(s.mu);
  job->mapped = true;
  job->failed = !ok;
  job->error = std::move(error);
  s.cv.notify_all();
}

void Readbacks::stop(std::function<void()> then) {
  const bool self = on_this_thread();
  {
    std::lock_guard lock(state_->mu);
    if (then && !state_->stopping) state_->then = std::move(then);
    state_->stopping = true;
    if (self && thread_.joinable()) state_->detached = true;
    state_->cv.notify_all();
  }
  if (!thread_.joinable()) return;
  if (self) {
    core::detached_threads().started();
    thread_.detach();
  } else {
    thread_.join();
  }
}

void Readbacks::run(State& s) {
  Context& ctx = *s.ctx;
  for (uint32_t idle = 0;;) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(s.mu);
      s.cv.wait(lock, [&] { return s.stopping || !s.jobs.empty(); });
      if (s.jobs.empty()) return;  // stopping, nothing pending
      if (s.jobs.front()->mapped) job = std::move(s.jobs.front()), s.jobs.pop_front();
    }
    if (!job) {
      // Maps finish inside Dawn's event loop: turn it until the oldest one has.
      {
        std::lock_guard lock(ctx.api);
        if (ctx.alive) ctx.fn.wgpuInstanceProcessEvents(ctx.instance);
      }
      if (!ctx.alive) {
        std::lock_guard lock(s.mu);
        for (auto& j : s.jobs)
          if (!j->mapped) j->mapped = j->failed = true, j->error = "the device was destroyed";
      }
      if (++idle > 64) std::this_thread::sleep_for(std::chrono::microseconds(idle > 1024 ? 200 : 20));
      else std::this_thread::yield();
      continue;
    }
    idle = 0;
    std::exception_ptr error;
    if (job->failed) {
      error = std::make_exception_ptr(
          CommandFailedError(CommandFailedError::Failure::other, "read_async (" + job->error + ")"));
    } else {
      std::lock_guard lock(ctx.api);
      const auto* mapped = static_cast<const std::byte*>(
          ctx.fn.wgpuBufferGetConstMappedRange(job->staging.get(), 0, abi::kWholeSize));
      if (mapped != nullptr)
        std::memcpy(job->destination.data(), mapped + job->skip, job->destination.size());
      else
        error = std::make_exception_ptr(CommandFailedError(CommandFailedError::Failure::other, "read_async"));
      ctx.fn.wgpuBufferUnmap(job->staging.get());
    }
    job->staging.reset();
    // A completion that throws must not end the process; the thread goes on.
    try {
      job->done(error);
    } catch (const std::exception& e) {
      std::cerr << "onegpu: a readback completion threw: " << e.what() << "\n";
    } catch (...) {
      std::cerr << "onegpu: a readback completion threw\n";
    }
    // The completion and what it captured go here, before the next job: the last handle to the
    // device may be among them.
    job.reset();
  }
}

}  // namespace onegpu::webgpu
