#include "sim/block_scheduler.h"

#include "config/settings.h"
#include "sim/fiber_switch.h"
#include "sim/launch_state.h"
#include "sim/stack_pool.h"
#include "sim/warp.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

namespace simt::sim {

std::chrono::steady_clock::duration spin_timeout() {
  static const std::chrono::steady_clock::duration timeout = [] {
    const double seconds = config::leading_number(config::Setting::SIMT_DEADLOCK_TIMEOUT);
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds > 0 ? seconds : 10.0));
  }();
  return timeout;
}

BlockScheduler &BlockScheduler::for_this_thread() {
  thread_local BlockScheduler scheduler;
  return scheduler;
}

void BlockScheduler::start(LaunchState &launch, const ThreadContext &block,
                           const StackLease &stacks) {
  const size_t count = size_t(block.ntid[0]) * size_t(block.ntid[1]) * size_t(block.ntid[2]);
  stacks_ = &stacks;
  entry_ = launch.entry();
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
    states_[i].call_stack.clear();
    ThreadState &state = states_[i];
    state.launch = &launch;
    state.context = &ctx;
    state.fiber_mode = true;
    state.observed = launch.observed();
    state.phase = ThreadState::Phase::NotStarted;
    state.barrier_loc = -1;
    state.at_grid_barrier = false;
    state.barrier_predicate = 0;
    state.spin_loc = -1;
    state.spin_count = 0;
    state.print_line.clear();
    state.lane = uint32_t(i % 32);
  }
  yielded_ = stopped_ = finished_ = 0;
  last_live_ = count;
  stalled_since_.reset();
}

size_t BlockScheduler::run_until_parked(LaunchState &launch) {
  using Phase = ThreadState::Phase;
  const KernelEntry entry = entry_;
  void **const args = launch.args;
  FiberChoice *const choice = launch.fiber_choice();
  const bool fibers = launch.threads_need_fibers();
  auto next = [&](size_t previous) {
    return choice != nullptr ? choice->next(states_, previous)
                             : round_robin_next(states_, previous);
  };
  // Threads finish only while resumed, so finished_ counts as it goes; a round-robin round
  // resumes every thread that can run, so it counts the yielded ones as it goes too, while another
  // choice may leave stopped threads unresumed: they are recounted.
  yielded_ = stopped_ = 0;
  for (size_t i = next(FiberChoice::none); i != FiberChoice::none; i = next(i)) {
    ThreadState &state = states_[i];
    if (state.phase == Phase::NotStarted) {
      // Fibers are created only when first run, so a stopping launch never creates (and never has
      // to unwind) the fibers of threads that did not start.
      if (launch.stopped()) {
        state.phase = Phase::Finished;
        ++finished_;
        continue;
      }
      ThreadContext *ctx = &contexts_[i];
      if (!fibers) { // nothing can switch away from it: it runs to its end here
        state.phase = Phase::Runnable;
        entry(args, ctx);
        state.phase = Phase::Finished;
        ++finished_;
        launch.notify([ctx](Observer &o) { o.thread_exited(*ctx); });
        continue;
      }
      create_fiber(state, (*stacks_)[i], [&state, &launch, ctx, entry, args] {
        entry(args, ctx);
        state.phase = Phase::Finished;
        launch.notify([ctx](Observer &o) { o.thread_exited(*ctx); });
      });
    }
    state.phase = Phase::Runnable;
    if (launch.stopped()) // no thread runs on past a fault (or Ctrl-C) of another
      contexts_[i].status = 1;
    resume_fiber(state);
    finished_ += state.phase == Phase::Finished;
    if (can_run(state)) [[unlikely]] { // it yielded, or an observer stopped it
      ++yielded_;
      stopped_ += state.phase == Phase::Stopped;
    }
  }
  if (choice != nullptr) {
    yielded_ = stopped_ = 0;
    for (const ThreadState &state : states_) {
      yielded_ += state.phase == Phase::Yielded || state.phase == Phase::Stopped;
      stopped_ += state.phase == Phase::Stopped;
    }
  }
  return states_.size() - finished_;
}

bool BlockScheduler::spinning(LaunchState &launch, size_t live) {
  if (yielded_ == 0) {
    stalled_since_.reset(); // every live thread waits: the caller releases or faults them
    last_live_ = live;
    return false;
  }
  if (stopped_ > 0) {
    stalled_since_.reset(); // an observer holds threads (a debugger's user looks at them)
    last_live_ = live;
    return true;
  }
  WarpScheduler warps(launch, states_, contexts_);
  const bool progress =
      live < last_live_ || warps.complete_arrived() || warps.complete_active_masks();
  last_live_ = live;
  const auto now = std::chrono::steady_clock::now();
  if (progress || !stalled_since_) {
    stalled_since_ = now;
    return true;
  }
  if (now - *stalled_since_ < spin_timeout() || launch.stopped())
    return true;
  // Names each loop the threads wait in, with how many wait there and the first of them.
  std::map<int32_t, std::pair<size_t, ThreadContext *>> loops;
  for (size_t i = 0; i < states_.size(); ++i)
    if (states_[i].phase == ThreadState::Phase::Yielded) {
      auto &[count, first] = loops[states_[i].spin_loc];
      first = count++ == 0 ? &contexts_[i] : first;
    }
  std::string waiting;
  for (const auto &[loc, threads] : loops)
    waiting += std::string(waiting.empty() ? "" : "; ") + std::to_string(threads.first) +
               " thread(s) from " + ids_text(threads.second->tid) + " in the loop at " +
               file_line(launch.location(loc));
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g s", std::chrono::duration<double>(spin_timeout()).count());
  ThreadContext *first = loops.begin()->second.second;
  launch.record_fault(first, "RuntimeError",
                      "simt: deadlock: no thread of block " + ids_text(first->ctaid) +
                          " finished or passed a barrier for " + limit +
                          " (SIMT_DEADLOCK_TIMEOUT) while threads wait: " + waiting,
                      thread_state(first).spin_loc, codegen::FaultKind::Deadlock);
  return true; // the next round stops every thread
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
                        loc, codegen::FaultKind::Barrier);
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
  const bool grid = states_[first].at_grid_barrier;
  launch.notify([&](Observer &o) { o.barrier_released(contexts_[first], loc, grid); });
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

BlockScheduler::Pause BlockScheduler::run_to_grid_barrier(LaunchState &launch,
                                                          bool yield_when_spinning) {
  using Phase = ThreadState::Phase;
  if (grid_waiter() != nullptr)
    release_barrier(launch);
  WarpScheduler warps(launch, states_, contexts_);
  while (size_t live = run_until_parked(launch)) {
    if (spinning(launch, live)) {
      if (yield_when_spinning)
        return Pause{live, 0};
      continue;
    }
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
          grid_loc, codegen::FaultKind::Barrier);
    } else if (at_grid == live && !launch.stopped()) {
      return Pause{live, at_grid};
    }
    release_barrier(launch); // a syncthreads, or stopping: the parked threads return at once
  }
  return Pause{};
}

} // namespace simt::sim
