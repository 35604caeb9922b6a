// memcheck: accesses a GPU would fault on that the simulator survives or bounds-checks — out of
// bounds, misaligned, of freed device memory (marked Freed in the shared TrackedMemory). Sees the
// accesses of the pages of freed memory and of arguments that may be misaligned. Its hooks run in
// the Checker's turn (checker/checker.h).
#pragma once

#include "checker/launch_view.h"
#include "checker/memory_shortage.h"
#include "checker/report.h"
#include "checker/tracked_memory.h"
#include "sim/observer.h"

#include <cstdint>
#include <vector>

namespace simt::checker {

class MemCheck final : public sim::Observer {
public:
  MemCheck(const LaunchView &launch, Report &report, TrackedMemory &memory,
           MemoryShortage &shortage)
      : launch_(launch), report_(report), memory_(memory), shortage_(shortage) {}

  bool stops_threads() const override { return false; }
  bool thread_safe() const override { return true; }
  const sim::WatchedPages *watched_pages() const override { return &memory_.watched; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  bool memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) override;
  void out_of_bounds(sim::ThreadContext &ctx, const sim::OutOfBounds &access) override;
  bool fault(sim::ThreadContext &ctx, const sim::Fault &fault) override;

private:
  template <typename Work> void run(Work &&work) { shortage_.run(Tool::Mem, work); }
  void check(sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  void report_out_of_bounds(sim::ThreadContext &ctx, const sim::Fault &fault,
                            const std::string &title);
  // Watches the pages of an argument whose accesses may be misaligned.
  void watch_alignment(const LaunchView::GlobalArray &global);

  const LaunchView &launch_;
  Report &report_;
  TrackedMemory &memory_;
  MemoryShortage &shortage_;
  std::vector<uintptr_t> alignment_watched_; // pages watched for this launch's arguments
};

} // namespace simt::checker
