#include "vulkan/readback.h"

#include <cstring>

namespace onegpu::vulkan {

ReadbackThread::ReadbackThread(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {
  thread_ = std::thread([this] { run(); });
}

ReadbackThread::~ReadbackThread() { stop(); }

void ReadbackThread::push(Job job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void ReadbackThread::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ReadbackThread::run() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    std::exception_ptr error;
    try {
      ctx_->wait_serial(job.serial);
      if (!job.destination.empty())
        std::memcpy(job.destination.data(), job.staging.memory.mapped + job.skip, job.destination.size());
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(ctx_->mu);
      ctx_->readback_bytes -= job.staging.memory.size;
      if (ctx_->alive) ctx_->destroy_buffer_locked(job.staging);
    }
    if (job.done) job.done(error);
  }
}

}  // namespace onegpu::vulkan
