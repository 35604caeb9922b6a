// The runtime's per-thread state, reached from JIT code through ThreadContext::runtime.
#pragma once

#include "sim/abi.h"
#include "sim/observer.h"
#include "sim/print_format.h"

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simt::sim {

class LaunchState;

// What a lane parked at a warp operation deposits for the other lanes, and gets back.
struct WarpArrival {
  WarpOp op = WarpOp::SyncWarp;
  uint32_t mask = 0;
  int32_t loc = -1;
  int32_t operand = 0; // a shuffle's source lane, delta or lane mask
  uint64_t value = 0;  // the lane's value as bits, or its predicate
  uint64_t result = 0; // set when the operation completes
};

// A stack's lowest address and size (what sim/fiber_switch.h tells AddressSanitizer).
struct StackRange {
  const void *bottom = nullptr;
  size_t size = 0;
};

struct ThreadState {
  // Parked: at a barrier (syncthreads); WarpParked: at a warp operation; Yielded: at the
  // back-edge of a loop that may wait for other threads (simt_rt_yield), runnable again next;
  // Stopped: by an observer (sim/observer.h), until the block's FiberChoice resumes it.
  // The phases a scheduler may resume come first (sim/block_scheduler.h: can_run).
  enum class Phase : uint8_t {
    NotStarted,
    Runnable,
    Yielded,
    Stopped,
    Parked,
    WarpParked,
    Finished
  };

  LaunchState *launch = nullptr;
  ThreadContext *context = nullptr; // what this thread runs on (its ids), for fault reports
  // True when this thread runs on its own fiber and may park at a barrier.
  bool fiber_mode = false;
  // The launch has observers (sim/observer.h): kept here so the barrier path reads no more.
  bool observed = false;
  Phase phase = Phase::NotStarted;
  int32_t barrier_loc = -1;     // the syncthreads (or grid sync) call site this thread is parked at
  bool at_grid_barrier = false; // parked at a grid sync rather than at a syncthreads
  int32_t barrier_predicate = 0; // syncthreads_count/and/or: this thread's predicate
  int32_t barrier_count = 0;     // set on release: the non-zero predicates of the parked threads
  int32_t barrier_arrived = 0;   // set on release: the number of parked threads
  int32_t spin_loc = -1;         // Yielded: the loop's call site
  uint32_t spin_count = 0;       // back-edges of spinning loops since this thread last yielded
  PrintLine print_line;          // the print() in progress
  uint32_t lane = 0;             // fiber mode: this thread's lane in its warp
  // Loop fission: the worker's block scratch buffer (simt_rt_block_scratch), once it has asked.
  void *block_scratch = nullptr;
  int64_t block_scratch_bytes = 0;
  WarpArrival warp_arrival;   // the warp operation this thread is parked at
  boost::context::fiber self; // this thread's fiber, held by the scheduler while it is suspended
  boost::context::fiber scheduler;   // the scheduler, held by this thread while it runs
  StackRange fiber_stack;            // this thread's fiber stack
  StackRange scheduler_stack;        // the stack of the scheduler that resumes it
  std::vector<CallFrame> call_stack; // instrumented kernels: the calls this thread is in
  // Set by the SIGSEGV handler when this thread's fiber hit its stack's guard page
  // (sim/stack_pool.h: abandon_overflowed_fiber).
  bool stack_overflowed = false;
};

inline ThreadState &thread_state(ThreadContext *ctx) {
  return *static_cast<ThreadState *>(ctx->runtime);
}

} // namespace simt::sim
