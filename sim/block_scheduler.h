// Runs one block in fiber mode: one fiber per thread, resumed round-robin until each parks at a
// barrier or a warp operation, or finishes; a barrier releases once every live thread waits at
// the same call site, a warp operation once the lanes of its mask have arrived (sim/warp.h).
#pragma once

#include "sim/abi.h"
#include "sim/thread_state.h"

#include <vector>

namespace simt::sim {

class LaunchState;
class StackLease;

class BlockScheduler {
public:
  // The calling worker thread's scheduler (its per-thread buffers are reused block after block).
  static BlockScheduler &for_this_thread();

  // Runs every thread of the block described by `block` (ctaid, ntid, nctaid and shared set) to
  // completion, thread i on stacks[i].
  void run(LaunchState &launch, const ThreadContext &block, const StackLease &stacks);

  // Cooperative launches (sim/grid_scheduler.*) keep one scheduler per resident block, driven by
  // these instead of run():
  // Sets up the threads of `block` (none runs yet); `stacks` must outlive them.
  void start(LaunchState &launch, const ThreadContext &block, const StackLease &stacks);
  // Releases the threads parked at the grid barrier, if any, then runs the block until every live
  // thread has finished or waits at the grid barrier, settling warp operations and releasing
  // syncthreads on the way (the one scheduling loop of fiber mode: run() is this with no grid
  // barrier). Returns how many wait at the grid barrier. Threads of the block waiting at different
  // barriers are a fault (and the block is stopped), as is any thread left when the launch is
  // stopping.
  size_t run_to_grid_barrier(LaunchState &launch);
  // A thread waiting at the grid barrier (it names the call site in errors), or null.
  ThreadContext *grid_waiter();

private:
  // Resumes every runnable thread until it parks or finishes; returns how many are still alive.
  size_t run_until_parked(LaunchState &launch);
  // Every live thread is parked: releases the barrier, or stops the block when the threads wait
  // at different call sites or the launch is stopping.
  void release_barrier(LaunchState &launch);

  const StackLease *stacks_ = nullptr;
  std::vector<ThreadContext> contexts_;
  std::vector<ThreadState> states_;
};

} // namespace simt::sim
