#include "vulkan/readback.h"

#include "core/detached_threads.h"

#include <chrono>
#include <cstring>
#include <iostream>

namespace onegpu::vulkan {
namespace {

thread_local bool t_in_completion = false;

}  // namespace

bool in_readback_completion() { return t_in_completion; }

ReadbackThread::ReadbackThread(std::shared_ptr<Context> ctx) : state_(std::make_shared<State>()) {
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
    const bool detached = state->detached;  // final: only this thread detaches itself, from run()
    state.reset();
    if (detached) core::detached_threads().finished();
  });
  id_ = thread_.get_id();
}

ReadbackThread::~ReadbackThread() { stop(); }

bool ReadbackThread::on_this_thread() const { return std::this_thread::get_id() == id_; }

void ReadbackThread::push(Job job) {
  {
    std::lock_guard lock(state_->mu);
    state_->jobs.push_back(std::move(job));
  }
  state_->cv.notify_one();
}

void ReadbackThread::stop(std::function<void()> then) {
  const bool self = on_this_thread();
  {
    std::lock_guard lock(state_->mu);
    if (then && !state_->stopping) state_->then = std::move(then);
    state_->stopping = true;
    if (self && thread_.joinable()) state_->detached = true;
  }
  state_->cv.notify_one();
  if (!thread_.joinable()) return;
  if (self) {
    core::detached_threads().started();
    thread_.detach();
  } else {
    thread_.join();
  }
}

void ReadbackThread::run(State& s) {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(s.mu);
      s.cv.wait(lock, [&] { return s.stopping || !s.jobs.empty(); });
      if (s.jobs.empty()) return;
      job = std::move(s.jobs.front());
      s.jobs.pop_front();
    }
    std::exception_ptr error;
    try {
      s.ctx->wait_serial(job.serial);
      if (!job.destination.empty())
        std::memcpy(job.destination.data(), job.staging.memory().mapped + job.skip, job.destination.size());
    } catch (...) {
      error = std::current_exception();
    }
    s.ctx->readback_bytes -= job.staging.memory().size;
    // After a failed wait the copy may still be running: not before its submission then.
    job.staging.reset(error ? job.serial : 0);
    if (job.done) {
      // A completion that throws must not end the process; the readback thread goes on.
      t_in_completion = true;
      try {
        job.done(error);
      } catch (const std::exception& e) {
        std::cerr << "onegpu: a readback completion threw: " << e.what() << "\n";
      } catch (...) {
        std::cerr << "onegpu: a readback completion threw\n";
      }
      t_in_completion = false;
    }
    // The completion and what it captured go here, before the next job: the last handle to the
    // device may be among them.
    job.done = nullptr;
  }
}

}  // namespace onegpu::vulkan
