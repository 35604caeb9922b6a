#include "pybind/compile_section.h"

#include "sim/launch_state.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace simt::bindings {

namespace {

// The sections running now. fork() holds `mutex` from its prepare handler to its parent and child
// handlers, with no section running. (A plain mutex, because the child's copy of the forking
// thread unlocks it: a reader-writer lock records its writer's thread id, which is new there.)
struct RunningSections {
  std::mutex mutex;
  std::condition_variable none;
  int count = 0;
};

RunningSections &running() {
  static RunningSections sections;
  return sections;
}

void before_fork() {
  std::unique_lock lock(running().mutex);
  running().none.wait(lock, [] { return running().count == 0; });
  lock.release();
}

void after_fork() { running().mutex.unlock(); }

void after_fork_in_child() {
  running().count = 0;
  running().mutex.unlock();
}

// Registered when the module loads, before any compile can run.
const bool registered = [] {
  running();
  return pthread_atfork(before_fork, after_fork, after_fork_in_child) == 0;
}();

} // namespace

void wait_for_compiles_at_exit(std::chrono::milliseconds patience) {
  std::unique_lock lock(running().mutex);
  if (!running().none.wait_for(lock, patience, [] { return running().count == 0; })) {
    std::fprintf(stderr,
                 "simt: %d compile(s) still running at exit did not end within %lld ms; ending "
                 "the process\n",
                 running().count, static_cast<long long>(patience.count()));
    std::fflush(nullptr);
    std::_Exit(1);
  }
}

CompileSection::CompileSection() {
  (void)registered;
  if (sim::exiting()) // started after the exit's wait: it would run under static destructors
    sim::park_until_exit();
  std::lock_guard lock(running().mutex);
  ++running().count;
}

CompileSection::~CompileSection() {
  {
    std::lock_guard lock(running().mutex);
    if (--running().count == 0)
      running().none.notify_all();
  }
  if (sim::exiting())
    sim::park_until_exit();
}

} // namespace simt::bindings
