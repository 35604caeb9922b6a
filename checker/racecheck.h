// racecheck: the hazards between threads' accesses of shared and global memory that no
// synchronisation orders (checker/race_detector.h). Sees every shared and global access, and
// keeps its shadow on one worker: launches it observes run their blocks one after another.
// Its hooks run in the Checker's turn (checker/checker.h).
#pragma once

#include "checker/launch_view.h"
#include "checker/memory_shortage.h"
#include "checker/race_detector.h"
#include "checker/report.h"
#include "sim/observer.h"

#include <cstdint>

namespace simt::checker {

class RaceCheck final : public sim::Observer {
public:
  RaceCheck(const LaunchView &launch, Report &report, MemoryShortage &shortage);

  // Device memory was freed (or its array is gone): its records go.
  void forget(uintptr_t address, uint64_t bytes) {
    races_.forget(address, bytes, launch_.kernel() == nullptr);
  }
  // The most shadow memory it has held at once, in bytes.
  uint64_t peak_shadow_bytes() const { return peak_shadow_bytes_; }

  bool stops_threads() const override { return false; }
  bool thread_safe() const override { return false; }
  const sim::WatchedPages *watched_pages() const override { return nullptr; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  void block_started(const sim::ThreadContext &block) override;
  void block_finished(const sim::ThreadContext &block) override;
  bool memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) override;
  void barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) override;
  void warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask,
                       int32_t loc) override;

private:
  template <typename Work> void run(Work &&work) { shortage_.run(Tool::Race, work); }
  void check(sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  void note_peak() { peak_shadow_bytes_ = std::max(peak_shadow_bytes_, races_.shadow_bytes()); }

  const LaunchView &launch_;
  Report &report_;
  MemoryShortage &shortage_;
  RaceDetector races_;
  uint64_t peak_shadow_bytes_ = 0;
};

} // namespace simt::checker
