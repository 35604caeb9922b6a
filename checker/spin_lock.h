// A lock for the checker's hooks: their turns are short (a map lookup, a counter, a page's
// states) and come from a few workers at once, so waiting by spinning beats a mutex's sleep and
// wake-up (a system call each) that several workers reaching barriers together would cost.
// After a while a waiter yields its core, in case the holder was preempted.
#pragma once

#include <atomic>
#include <thread>

namespace simt::checker {

class SpinLock {
public:
  void lock() {
    for (unsigned tries = 0; held_.exchange(true, std::memory_order_acquire); ++tries)
      while (held_.load(std::memory_order_relaxed))
        if (++tries > kSpinsBeforeYield)
          std::this_thread::yield();
  }
  void unlock() { held_.store(false, std::memory_order_release); }

private:
  static constexpr unsigned kSpinsBeforeYield = 1000;
  std::atomic<bool> held_{false};
};

} // namespace simt::checker
