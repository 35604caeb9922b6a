// Runs one block in fiber mode: one fiber per thread, resumed round-robin until each parks at a
// barrier or a warp operation, or finishes; a barrier releases once every live thread waits at
// the same call site, a warp operation once the lanes of its mask have arrived (sim/warp.h).
#pragma once

#include "sim/abi.h"
#include "sim/thread_state.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace simt::sim {

class LaunchState;
class StackLease;

// The scheduling policy of fiber mode: which of a block's threads the one scheduling loop resumes
// next. A round resumes threads one at a time, each until it parks (at a barrier, a warp
// operation, a spinning loop's yield or an observer's stop) or finishes; between rounds the loop
// settles warp operations and barriers. Round-robin is the default; the debugger's focus and
// stepping, and seeded random schedules, are other choices.
class FiberChoice {
public:
  static constexpr size_t none = SIZE_MAX;
  virtual ~FiberChoice() = default;
  // The index of the thread of `threads` to resume after `previous` in this round (none: the
  // round starts), or none to end the round. Only threads that can run may be chosen: not
  // started, Runnable, Yielded, or Stopped by an observer.
  virtual size_t next(std::span<const ThreadState> threads, size_t previous) = 0;
};

// Whether the thread in `state` can be resumed (see FiberChoice::next).
inline bool can_run(const ThreadState &state) { return state.phase <= ThreadState::Phase::Stopped; }

// The default choice: every thread that can run, in index order.
inline size_t round_robin_next(std::span<const ThreadState> threads, size_t previous) {
  for (size_t i = previous + 1; i < threads.size(); ++i) // none + 1 wraps to 0
    if (can_run(threads[i]))
      return i;
  return FiberChoice::none;
}

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
  // barrier). With `yield_when_spinning`, it also returns after a round in which threads yielded
  // at spinning loops, so that the worker can run the other blocks they may wait for. Threads of
  // the block waiting at different barriers are a fault (and the block is stopped), as is any
  // thread left when the launch is stopping.
  struct Pause {
    size_t live = 0;            // threads not finished
    size_t at_grid_barrier = 0; // of them, those waiting at the grid barrier (the rest spin)
  };
  Pause run_to_grid_barrier(LaunchState &launch, bool yield_when_spinning = false);
  // A thread waiting at the grid barrier (it names the call site in errors), or null.
  ThreadContext *grid_waiter();

private:
  // Resumes every runnable (or yielded) thread until it parks, yields or finishes; returns how
  // many are still alive. A thread resumed while the launch is stopping returns at once.
  size_t run_until_parked(LaunchState &launch);
  // After a round in which threads yielded at spinning loops (false when none did): completes the
  // warp operations whose lanes have all arrived (and, when nothing else moved, the activemask
  // calls: a spinning lane is not converged with them), and records a deadlock when no thread of
  // the block has made progress (finished, passed a barrier or a warp operation) for
  // spin_timeout(). The caller then runs another round.
  bool spinning(LaunchState &launch, size_t live);
  // Every live thread is parked: releases the barrier, or stops the block when the threads wait
  // at different call sites or the launch is stopping.
  void release_barrier(LaunchState &launch);

  const StackLease *stacks_ = nullptr;
  KernelEntry entry_ = nullptr; // the block's threads' (LaunchState::entry when it started)
  std::vector<ThreadContext> contexts_;
  std::vector<ThreadState> states_;
  size_t yielded_ = 0;   // threads that yielded (or were stopped by an observer) in the last round
  size_t stopped_ = 0;   // threads an observer stopped, as of the last round
  size_t finished_ = 0;  // threads that have finished
  size_t last_live_ = 0; // live threads after the last round with progress
  std::optional<std::chrono::steady_clock::time_point> stalled_since_;
};

// How long the threads of a block may all spin without progress before it is a deadlock:
// SIMT_DEADLOCK_TIMEOUT seconds, default 10.
std::chrono::steady_clock::duration spin_timeout();

} // namespace simt::sim
