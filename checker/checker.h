// `simt check`: the checkers a user asked for (racecheck, initcheck, synccheck, memcheck) on
// kernels compiled with the checkers' instrumentation (Instrumentation::Check), and the schedule
// their threads and blocks run in.
//
// Each tool is an observer of its own (checker/racecheck.h, initcheck.h, synccheck.h,
// memcheck.h); they share what they must through small objects the Checker owns: the launch and
// the names of its places (LaunchView), the findings (Report), the memory initcheck and memcheck
// track (TrackedMemory), and whether the checking ran out of memory (MemoryShortage). The Checker
// is the one observer a launch sees: it keeps the shared objects up to date, then hands each
// event to the active tools, one worker at a time (its turn), and answers for them together.
// With racecheck or a schedule, launches it observes run on one worker, one block after another
// (cooperative launches: all resident blocks on that worker); without, on every worker.
#pragma once

#include "checker/finding.h"
#include "checker/initcheck.h"
#include "checker/launch_view.h"
#include "checker/memcheck.h"
#include "checker/memory_shortage.h"
#include "checker/racecheck.h"
#include "checker/report.h"
#include "checker/schedule.h"
#include "checker/spin_lock.h"
#include "checker/synccheck.h"
#include "checker/tracked_memory.h"
#include "sim/observer.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace simt::checker {

struct CheckOptions {
  bool race = true, init = true, sync = true, mem = true;
  ScheduleKind schedule = ScheduleKind::InOrder;
  uint64_t seed = 0;
};

class Checker final : public sim::Observer {
public:
  explicit Checker(const CheckOptions &options);
  // The hooks of a launch this checker observes.
  sim::LaunchHooks hooks();

  // Device memory the host allocated for kernels (device_array and its kin): poisoned and
  // tracked by initcheck until freed(); use after freed() is a memcheck error until forgotten.
  // `itemsize`: the elements' (records': dtype U8); `host_scanned`: see InitTracker::track.
  // allocated() and freed() throw ShadowOutOfMemory when the tracking's memory runs out
  // (allocated() then tracks nothing of it).
  void allocated(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                 bool host_scanned);
  // The host wrote [address, address + bytes) of device memory (a copy to the device).
  void written(uintptr_t address, uint64_t bytes);
  void freed(uintptr_t address, uint64_t bytes);
  void forget(uintptr_t address, uint64_t bytes);

  const Findings &findings() const { return report_.findings(); }
  // The most shadow memory racecheck has held at once, in bytes.
  uint64_t peak_shadow_bytes() const { return race_ ? race_->peak_shadow_bytes() : 0; }
  // After a launch of `kernel`: throws ShadowOutOfMemory when a checker ran out of memory during
  // it. Hooks cannot throw (they run in the launch's workers): the checking stopped there, the
  // kernel ran to its end, and racecheck's shadow was given back.
  void throw_if_out_of_memory(const std::string &kernel) {
    shortage_.throw_if_out_of_memory(kernel);
  }

  // What the active tools need together: one worker when one of them does, every access when
  // one sees every access (else the pages they watch, all in memory_.watched).
  bool stops_threads() const override;
  bool thread_safe() const override;
  const sim::WatchedPages *watched_pages() const override;
  bool tracks_shared_writes() const override;
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  void block_started(const sim::ThreadContext &block) override;
  void block_finished(const sim::ThreadContext &block) override;
  bool memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) override;
  void barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool grid) override;
  void barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) override;
  void undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                         uint32_t mask, int32_t loc) override;
  void warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask,
                       int32_t loc) override;
  void out_of_bounds(sim::ThreadContext &ctx, const sim::OutOfBounds &access) override;
  bool fault(sim::ThreadContext &ctx, const sim::Fault &fault) override;

private:
  // Calls event(tool) for each active tool.
  template <typename Event> void notify(Event &&event) {
    for (sim::Observer *tool : tools_)
      event(*tool);
  }
  // The hooks of a launch on several workers take turns (a launch on one needs no lock).
  std::unique_lock<SpinLock> take_turn() {
    return launch_.parallel() ? std::unique_lock(turn_) : std::unique_lock<SpinLock>();
  }

  CheckOptions options_;
  Schedule schedule_;
  sim::Observer *observers_[1] = {this};
  LaunchView launch_;
  Report report_{launch_};
  TrackedMemory memory_;
  MemoryShortage shortage_{launch_, memory_};
  std::optional<MemCheck> mem_;
  std::optional<InitCheck> init_;
  std::optional<SyncCheck> sync_;
  std::optional<RaceCheck> race_;
  // The active tools, in the order their findings of one event come: memcheck, initcheck,
  // synccheck, racecheck.
  std::vector<sim::Observer *> tools_;
  SpinLock turn_;
};

} // namespace simt::checker
