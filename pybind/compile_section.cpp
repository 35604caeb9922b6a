#include "pybind/compile_section.h"

#include "sim/launch_state.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace simt::bindings {

namespace {

// The compiles and GIL-free sections running now. fork() holds `mutex` from its prepare handler
// to its parent and child handlers, with no section running. (A plain mutex, because the child's
// copy of the forking thread unlocks it: a reader-writer lock records its writer's thread id,
// which is new there.)
struct Running {
  std::mutex mutex;
  std::condition_variable changed;
  int compiles = 0;
  int sections = 0;
};

Running &running() {
  static Running state;
  return state;
}

thread_local int scopes_on_this_thread = 0;

void before_fork() {
  std::unique_lock lock(running().mutex);
  running().changed.wait(lock, [] { return running().sections == 0; });
  lock.release();
}

void after_fork() { running().mutex.unlock(); }

void after_fork_in_child() {
  running().compiles = scopes_on_this_thread > 0 ? 1 : 0; // the forking thread's, if any
  running().sections = 0;
  running().mutex.unlock();
}

// Registered when the module loads, before any compile can run.
const bool registered = [] {
  running();
  return pthread_atfork(before_fork, after_fork, after_fork_in_child) == 0;
}();

// Called with the GIL held: lets it go for good.
[[noreturn]] void park_without_the_gil() {
  PyEval_SaveThread();
  sim::park_until_exit();
}

} // namespace

void wait_for_compiles_at_exit(std::chrono::milliseconds patience) {
  std::unique_lock lock(running().mutex);
  if (!running().changed.wait_for(lock, patience, [] { return running().compiles == 0; })) {
    std::fprintf(stderr,
                 "simt: %d compile(s) still running at exit did not end within %lld ms; ending "
                 "the process\n",
                 running().compiles, static_cast<long long>(patience.count()));
    std::fflush(nullptr);
    std::_Exit(1);
  }
}

CompileScope::CompileScope() {
  (void)registered;
  if (scopes_on_this_thread == 0) {
    if (sim::exiting()) // started after the exit's wait: it would run under static destructors
      park_without_the_gil();
    std::lock_guard lock(running().mutex);
    ++running().compiles;
  }
  ++scopes_on_this_thread;
}

CompileScope::~CompileScope() {
  if (--scopes_on_this_thread > 0)
    return;
  {
    std::lock_guard lock(running().mutex);
    --running().compiles;
    running().changed.notify_all();
  }
  if (sim::exiting())
    park_without_the_gil();
}

CompileSection::CompileSection() {
  std::lock_guard lock(running().mutex);
  ++running().sections;
}

CompileSection::~CompileSection() {
  std::lock_guard lock(running().mutex);
  --running().sections;
  running().changed.notify_all();
}

} // namespace simt::bindings
