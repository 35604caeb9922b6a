#include "checker/checker.h"

#include <algorithm>
#include <malloc.h>

namespace simt::checker {

namespace {

// What InitTracker states the tools need to see the accesses of.
unsigned watched_states(const CheckOptions &options, bool device) {
  return (options.init ? 1u << InitTracker::Uninitialised : 0u) |
         (options.mem && device ? 1u << InitTracker::Freed : 0u);
}

} // namespace

Checker::Checker(const CheckOptions &options)
    : options_(options), schedule_(options.schedule, options.seed),
      memory_(watched_states(options, true), watched_states(options, false)) {
  if (options.mem)
    tools_.push_back(&mem_.emplace(launch_, report_, memory_, shortage_));
  if (options.init)
    tools_.push_back(&init_.emplace(launch_, report_, memory_, shortage_));
  if (options.sync)
    tools_.push_back(&sync_.emplace(launch_, report_, shortage_, memory_.watched));
  if (options.race)
    tools_.push_back(&race_.emplace(launch_, report_, shortage_));
}

sim::LaunchHooks Checker::hooks() {
  sim::LaunchHooks hooks;
  hooks.observers = observers_;
  if (options_.schedule != ScheduleKind::InOrder) {
    hooks.choice = &schedule_;
    hooks.order = &schedule_;
  }
  return hooks;
}

void Checker::allocated(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                        bool host_scanned) {
  try {
    memory_.device.track(address, bytes, dtype, itemsize, host_scanned);
  } catch (const std::bad_alloc &) {
    memory_.device.forget(address, bytes); // what it tracked of it: nothing of it is tracked
    throw ShadowOutOfMemory(
        out_of_memory_text(options_.mem && !options_.init ? Tool::Mem : Tool::Init,
                           "tracking a device array of " + size_text(bytes),
                           InitTracker::bytes_for(bytes), memory_.device.bytes()));
  }
}

void Checker::written(uintptr_t address, uint64_t bytes) { memory_.device.written(address, bytes); }

void Checker::freed(uintptr_t address, uint64_t bytes) {
  memory_.any_freed = true;
  if (race_)
    race_->forget(address, bytes);
  try {
    memory_.device.set(address, bytes, InitTracker::Freed);
  } catch (const std::bad_alloc &) {
    throw ShadowOutOfMemory(
        out_of_memory_text(Tool::Mem, "marking " + size_text(bytes) + " of device memory freed",
                           InitTracker::bytes_for(bytes), memory_.device.bytes()));
  }
}

void Checker::forget(uintptr_t address, uint64_t bytes) {
  memory_.device.forget(address, bytes);
  if (race_)
    race_->forget(address, bytes);
}

bool Checker::stops_threads() const {
  return std::any_of(tools_.begin(), tools_.end(),
                     [](const sim::Observer *tool) { return tool->stops_threads(); });
}

bool Checker::thread_safe() const {
  return std::all_of(tools_.begin(), tools_.end(),
                     [](const sim::Observer *tool) { return tool->thread_safe(); });
}

const sim::WatchedPages *Checker::watched_pages() const {
  const bool every_access =
      std::any_of(tools_.begin(), tools_.end(),
                  [](const sim::Observer *tool) { return tool->watched_pages() == nullptr; });
  return every_access ? nullptr : &memory_.watched;
}

bool Checker::tracks_shared_writes() const {
  return std::any_of(tools_.begin(), tools_.end(),
                     [](const sim::Observer *tool) { return tool->tracks_shared_writes(); });
}

void Checker::launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                             void *const *args) {
  // As sim/launch_state.h decides: a schedule orders blocks on one worker; a cooperative launch's
  // blocks are resident on one.
  launch_.launch_started(kernel, config,
                         thread_safe() && options_.schedule == ScheduleKind::InOrder &&
                             !kernel.cooperative);
  report_.launch_started();
  // The arguments' layouts serve every tool's reports.
  shortage_.run(options_.race   ? Tool::Race
                : options_.init ? Tool::Init
                                : Tool::Mem,
                [&] { launch_.note_arguments(args); });
  notify([&](sim::Observer &tool) { tool.launch_started(kernel, config, args); });
}

void Checker::launch_finished(const std::optional<sim::Fault> &fault) {
  notify([&](sim::Observer &tool) { tool.launch_finished(fault); });
  if (shortage_.stopped())
    malloc_trim(0); // what the tools gave back, back to the system
  launch_.launch_finished();
}

// Takes no turn: racecheck, whose shadow is shared, runs on one worker; initcheck poisons the
// block's own shared memory.
void Checker::block_started(const sim::ThreadContext &block) {
  notify([&](sim::Observer &tool) { tool.block_started(block); });
}

void Checker::block_finished(const sim::ThreadContext &block) {
  const std::unique_lock turn = take_turn();
  notify([&](sim::Observer &tool) { tool.block_finished(block); });
  launch_.block_finished(block);
  report_.block_finished(block);
}

bool Checker::memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  if (shortage_.stopped())
    return false; // the checking stopped
  const std::unique_lock turn = take_turn();
  if (access.kind == codegen::AccessKind::LocalArray)
    shortage_.run(options_.init ? Tool::Init : Tool::Mem,
                  [&] { launch_.note_local_array(ctx, access); });
  bool stop = false;
  notify([&](sim::Observer &tool) { stop = tool.memory_access(ctx, access) || stop; });
  return stop;
}

void Checker::barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool grid) {
  const std::unique_lock turn = take_turn();
  notify([&](sim::Observer &tool) { tool.barrier_arrived(ctx, loc, grid); });
}

void Checker::barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) {
  const std::unique_lock turn = take_turn();
  notify([&](sim::Observer &tool) { tool.barrier_released(block, loc, grid); });
}

void Checker::undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                                uint32_t mask, int32_t loc) {
  const std::unique_lock turn = take_turn();
  notify([&](sim::Observer &tool) { tool.undefined_shuffle(reader, op, source, mask, loc); });
}

void Checker::warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask, int32_t loc) {
  const std::unique_lock turn = take_turn();
  notify([&](sim::Observer &tool) { tool.warp_op_arrived(ctx, op, mask, loc); });
}

void Checker::out_of_bounds(sim::ThreadContext &ctx, const sim::OutOfBounds &access) {
  notify([&](sim::Observer &tool) { tool.out_of_bounds(ctx, access); });
}

bool Checker::fault(sim::ThreadContext &ctx, const sim::Fault &fault) {
  const std::unique_lock turn = take_turn();
  bool stop = false;
  notify([&](sim::Observer &tool) { stop = tool.fault(ctx, fault) || stop; });
  return stop;
}

} // namespace simt::checker
