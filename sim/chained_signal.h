// A signal handler of simt's that keeps the one it replaced and calls it: installed when first
// needed, and installed again when something replaced it since (Python's signal.signal, its
// faulthandler), checking at most once per `recheck` (sigaction is a system call).
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace simt::sim {

class ChainedSignalHandler {
public:
  using Handler = void (*)(int, siginfo_t *, void *);

  // `replace_default`: also replace SIG_DFL and SIG_IGN; otherwise a signal the process ignores,
  // or that ends it, is left so.
  ChainedSignalHandler(int signal, Handler handler, bool replace_default,
                       std::chrono::milliseconds recheck)
      : signal_(signal), handler_(handler), replace_default_(replace_default),
        recheck_(std::chrono::steady_clock::duration(recheck).count()) {}

  void ensure_installed();

  // fork() (sim/worker_pool.cpp's pthread_atfork handlers): no other thread holds the installing
  // lock across it, so a child can install.
  void before_fork() { mutex_.lock(); }
  void after_fork() { mutex_.unlock(); }

  // From the handler (async-signal-safe): calls the handler this one replaced; false when that
  // was SIG_DFL or SIG_IGN, whose effect is the caller's to decide.
  bool call_replaced(int signal, siginfo_t *info, void *context) const;

private:
  const int signal_;
  const Handler handler_;
  const bool replace_default_;
  const int64_t recheck_;              // steady_clock ticks
  std::atomic<int64_t> next_check_{0}; // steady_clock ticks
  std::mutex mutex_;                   // serialises installing
  struct sigaction replaced_ {};       // written only while ours is not installed
};

} // namespace simt::sim
