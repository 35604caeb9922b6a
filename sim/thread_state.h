// The runtime's per-thread state, reached from JIT code through ThreadContext::runtime.
#pragma once

#include "sim/abi.h"
#include "sim/print_format.h"

#include <boost/context/fiber.hpp>

#include <cstdint>

namespace simt::sim {

class LaunchState;

struct ThreadState {
  enum class Phase : uint8_t { NotStarted, Runnable, Parked, Finished };

  LaunchState *launch = nullptr;
  // True when this thread runs on its own fiber and may park at a barrier.
  bool fiber_mode = false;
  Phase phase = Phase::NotStarted;
  int32_t barrier_loc = -1;     // the syncthreads (or grid sync) call site this thread is parked at
  bool at_grid_barrier = false; // parked at a grid sync rather than at a syncthreads
  int32_t barrier_predicate = 0; // syncthreads_count/and/or: this thread's predicate
  int32_t barrier_count = 0;     // set on release: the non-zero predicates of the parked threads
  int32_t barrier_arrived = 0;   // set on release: the number of parked threads
  PrintLine print_line;          // the print() in progress
  boost::context::fiber self;    // this thread's fiber, held by the scheduler while it is suspended
  boost::context::fiber scheduler; // the scheduler, held by this thread while it runs
};

inline ThreadState &thread_state(ThreadContext *ctx) {
  return *static_cast<ThreadState *>(ctx->runtime);
}

} // namespace simt::sim
