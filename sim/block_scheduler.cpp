#include "sim/block_scheduler.h"

#include "sim/fiber_switch.h"
#include "sim/launch_state.h"
#include "sim/stack_pool.h"
#include "sim/warp.h"

#include <string>
#include <utility>

namespace simt::sim {

BlockScheduler &BlockScheduler::for_this_thread() {
  thread_local BlockScheduler scheduler;
  return scheduler;
}

void BlockScheduler::start(LaunchState &launch, const ThreadContext &block,
                           const StackLease &stacks) {
  const size_t count = size_t(block.ntid[0]) * size_t(block.ntid[1]) * size_t(block.ntid[2]);
  stacks_ = &stacks;
  contexts_.resize(count);
  states_.resize(count);
  const int32_t nx = block.ntid[0], ny = block.ntid[1];
  for (size_t i = 0; i < count; ++i) {
    ThreadContext &ctx = contexts_[i];
    ctx = block;
    ctx.tid[0] = int32_t(i % size_t(nx));
    ctx.tid[1] = int32_t(i / size_t(nx) % size_t(ny));
    ctx.tid[2] = int32_t(i / (size_t(nx) * size_t(ny)));
    ctx.status = 0;
    ctx.runtime = &states_[i];
    ThreadState &state = states_[i];
    state.launch = &launch;
    state.context = &ctx;
    state.fiber_mode = true;
    state.phase = ThreadState::Phase::NotStarted;
    state.barrier_loc = -1;
    state.at_grid_barrier = false;
    state.barrier_predicate = 0;
    state.print_line.clear();
    state.lane = uint32_t(i % 32);
  }
}

size_t BlockScheduler::run_until_parked(LaunchState &launch) {
  using Phase = ThreadState::Phase;
  const KernelEntry entry = launch.kernel.thread_entry;
  void **const args = launch.args;
  size_t live = 0;
  for (size_t i = 0; i < states_.size(); ++i) {
    ThreadState &state = states_[i];
    if (state.phase == Phase::NotStarted) {
      // Fibers are created only when first run, so a stopping launch never creates (and never has
      // to unwind) the fibers of threads that did not start.
      if (launch.stopped()) {
        state.phase = Phase::Finished;
        continue;
      }
      ThreadContext *ctx = &contexts_[i];
      create_fiber(state, (*stacks_)[i], [&state, ctx, entry, args] {
        entry(args, ctx);
        state.phase = Phase::Finished;
      });
      state.phase = Phase::Runnable;
    }
    if (state.phase == Phase::Runnable)
      resume_fiber(state);
    if (state.phase != Phase::Finished)
      ++live;
  }
  return live;
}

void BlockScheduler::release_barrier(LaunchState &launch) {
  using Phase = ThreadState::Phase;
  size_t first = 0;
  while (first < states_.size() && states_[first].phase != Phase::Parked)
    ++first;
  if (first == states_.size())
    return;
  const int32_t loc = states_[first].barrier_loc;
  for (size_t i = first + 1; i < states_.size(); ++i) {
    if (states_[i].phase != Phase::Parked || states_[i].barrier_loc == loc)
      continue;
    ThreadContext &a = contexts_[first];
    ThreadContext &b = contexts_[i];
    launch.record_fault(&a, "RuntimeError",
                        "simt: threads of block " + ids_text(a.ctaid) +
                            " wait at different syncthreads: thread " + ids_text(a.tid) + " at " +
                            file_line(launch.location(loc)) + " and thread " + ids_text(b.tid) +
                            " at " + file_line(launch.location(states_[i].barrier_loc)),
                        loc);
    break;
  }
  const bool stopping = launch.stopped();
  // What syncthreads_count/and/or return: the reduction of the parked threads' predicates.
  int32_t count = 0, arrived = 0;
  for (size_t i = first; i < states_.size(); ++i) {
    if (states_[i].phase != Phase::Parked)
      continue;
    ++arrived;
    count += states_[i].barrier_predicate != 0;
  }
  for (size_t i = first; i < states_.size(); ++i) {
    if (states_[i].phase != Phase::Parked)
      continue;
    states_[i].phase = Phase::Runnable;
    states_[i].at_grid_barrier = false;
    states_[i].barrier_count = count;
    states_[i].barrier_arrived = arrived;
    if (stopping)
      contexts_[i].status = 1;
  }
}

void BlockScheduler::run(LaunchState &launch, const ThreadContext &block,
                         const StackLease &stacks) {
  start(launch, block, stacks);
  // No thread of an ordinary launch parks at a grid barrier (simt_rt_grid_sync refuses it), so
  // every fiber runs to completion: destroying a suspended one would unwind it by exception.
  run_to_grid_barrier(launch);
}

ThreadContext *BlockScheduler::grid_waiter() {
  for (size_t i = 0; i < states_.size(); ++i)
    if (states_[i].phase == ThreadState::Phase::Parked && states_[i].at_grid_barrier)
      return &contexts_[i];
  return nullptr;
}

size_t BlockScheduler::run_to_grid_barrier(LaunchState &launch) {
  using Phase = ThreadState::Phase;
  if (grid_waiter() != nullptr)
    release_barrier(launch);
  WarpScheduler warps(launch, states_, contexts_);
  while (size_t live = run_until_parked(launch)) {
    // Every live thread is parked: warp operations settle first (their lanes may go on to a
    // barrier), then barriers: syncthreads, the grid sync, or (an error) both.
    if (warps.any_waiting()) {
      warps.settle();
      continue;
    }
    ThreadContext *grid = nullptr, *block = nullptr, *other_grid = nullptr;
    size_t at_grid = 0;
    for (size_t i = 0; i < states_.size(); ++i) {
      if (states_[i].phase != Phase::Parked)
        continue;
      if (!states_[i].at_grid_barrier) {
        block = block ? block : &contexts_[i];
        continue;
      }
      ++at_grid;
      if (grid == nullptr)
        grid = &contexts_[i];
      else if (other_grid == nullptr && states_[i].barrier_loc != thread_state(grid).barrier_loc)
        other_grid = &contexts_[i];
    }
    if (grid != nullptr && (block != nullptr || other_grid != nullptr)) {
      ThreadContext &b = block ? *block : *other_grid;
      const int32_t grid_loc = thread_state(grid).barrier_loc, loc = thread_state(&b).barrier_loc;
      launch.record_fault(
          grid, "RuntimeError",
          "simt: threads of block " + ids_text(grid->ctaid) +
              " wait at different barriers: thread " + ids_text(grid->tid) + " at grid sync " +
              file_line(launch.location(grid_loc)) + " and thread " + ids_text(b.tid) + " at " +
              (block ? "syncthreads " : "grid sync ") + file_line(launch.location(loc)),
          grid_loc);
    } else if (at_grid == live && !launch.stopped()) {
      return at_grid;
    }
    release_barrier(launch); // a syncthreads, or stopping: the parked threads return at once
  }
  return 0;
}

} // namespace simt::sim
