// Readback threads detached to finish a device close started on themselves (a completion closing
// its device, or dropping the last handle to it). The process waits for them at exit, a bounded
// wait (a lost GPU must not hold the exit forever), so none is cut off while it releases its
// device. Shared by the backends.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace onegpu::core {

class DetachedThreads {
 public:
  void started() {
    std::lock_guard lock(mu_);
    ++running_;
  }
  // The thread's last action: it touches nothing of this object after unlocking.
  void finished() {
    std::lock_guard lock(mu_);
    --running_;
    cv_.notify_all();
  }
  ~DetachedThreads() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return running_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
};

// The one registry; call it before starting any thread that may detach itself, so that it is
// constructed first and destroyed after.
inline DetachedThreads& detached_threads() {
  static DetachedThreads threads;
  return threads;
}

}  // namespace onegpu::core
