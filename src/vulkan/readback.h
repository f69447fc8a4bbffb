// The helper thread that finishes asynchronous readbacks: it waits on the timeline semaphore for
// each readback's own submission, copies the bytes out and calls the completion, in submission
// order. The caller's thread never waits and later submissions are never held back.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>

#include "vulkan/context.h"

namespace onegpu::vulkan {

// True on a readback thread while it runs a completion: a blocking read or closing the device
// from there would wait for that very thread.
bool in_readback_completion();

class ReadbackThread {
 public:
  struct Job {
    uint64_t serial = 0;
    UniqueBuffer staging;
    uint64_t skip = 0;  // bytes of staging before the destination's first byte
    std::span<std::byte> destination;
    std::function<void(std::exception_ptr)> done;
  };

  explicit ReadbackThread(std::shared_ptr<Context> ctx);
  ~ReadbackThread();
  void push(Job job);
  // Finishes every queued job, then stops the thread. Idempotent.
  void stop();

 private:
  void run();

  std::shared_ptr<Context> ctx_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace onegpu::vulkan
