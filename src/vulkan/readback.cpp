#include "vulkan/readback.h"

#include <cstring>
#include <iostream>

namespace onegpu::vulkan {
namespace {

thread_local bool t_in_completion = false;

}  // namespace

bool in_readback_completion() { return t_in_completion; }

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
        std::memcpy(job.destination.data(), job.staging.memory().mapped + job.skip, job.destination.size());
    } catch (...) {
      error = std::current_exception();
    }
    ctx_->readback_bytes -= job.staging.memory().size;
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
  }
}

}  // namespace onegpu::vulkan
