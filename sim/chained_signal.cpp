#include "sim/chained_signal.h"

#include <chrono>

namespace simt::sim {

void ChainedSignalHandler::ensure_installed() {
  const int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  if (now < next_check_.load(std::memory_order_relaxed))
    return;
  std::lock_guard lock(mutex_);
  next_check_.store(now + recheck_, std::memory_order_relaxed);
  struct sigaction current {};
  if (sigaction(signal_, nullptr, &current) != 0 ||
      ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler_))
    return;
  if (!replace_default_ && !(current.sa_flags & SA_SIGINFO) &&
      (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
    return;
  struct sigaction ours {};
  ours.sa_sigaction = handler_;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  replaced_ = current;
  sigaction(signal_, &ours, nullptr);
}

bool ChainedSignalHandler::call_replaced(int signal, siginfo_t *info, void *context) const {
  if (replaced_.sa_flags & SA_SIGINFO) {
    replaced_.sa_sigaction(signal, info, context);
    return true;
  }
  if (replaced_.sa_handler == SIG_DFL || replaced_.sa_handler == SIG_IGN)
    return false;
  replaced_.sa_handler(signal);
  return true;
}

} // namespace simt::sim
