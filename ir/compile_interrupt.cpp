#include "ir/compile_interrupt.h"

#include <atomic>

namespace simt {

namespace {

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "a signal handler updates these");

std::atomic<int> compiles_running{0};
std::atomic<bool> interrupt_requested{false};
// Compiles in progress on this thread: background recompiles (sim/host_backend.h) run none, so an
// interrupt never leaves them with passes skipped.
thread_local int compiles_on_this_thread = 0;

} // namespace

CompileInProgress::CompileInProgress() {
  ++compiles_on_this_thread;
  compiles_running.fetch_add(1);
}

CompileInProgress::~CompileInProgress() {
  --compiles_on_this_thread;
  if (compiles_running.fetch_sub(1) == 1)
    interrupt_requested.store(false); // every compile it stopped has ended
}

void request_compile_interrupt() noexcept {
  if (compiles_running.load() > 0)
    interrupt_requested.store(true);
}

bool compile_interrupt_requested() noexcept {
  return compiles_on_this_thread > 0 && interrupt_requested.load(std::memory_order_relaxed);
}

void poll_compile_interrupt() {
  if (compile_interrupt_requested())
    throw CompileInterrupted();
}

} // namespace simt
