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

// True on a readback thread while it runs a completion: a blocking read from there would wait
// for that very thread.
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
  // Finishes every queued job, runs `then` (if any) and stops the thread; idempotent. Called on
  // the thread itself (a completion closing the device, or dropping the last handle), it cannot
  // wait for itself: the thread is detached, finishes the queue once the completion has returned,
  // runs `then` and exits on its own; the process waits for it at exit.
  void stop(std::function<void()> then = {});
  // True on this object's thread.
  bool on_this_thread() const;

 private:
  // What the thread uses: shared with it, so that the thread may outlive this object.
  struct State {
    std::shared_ptr<Context> ctx;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Job> jobs;
    bool stopping = false;
    bool detached = false;
    std::function<void()> then;
  };
  static void run(State& s);

  std::shared_ptr<State> state_;
  std::thread thread_;
  std::thread::id id_;
};

}  // namespace onegpu::vulkan
