// initcheck: reads of memory no one wrote — device arrays (tracked from their allocation, in the
// shared TrackedMemory), a block's shared memory (whose written bytes the kernel marks itself,
// sim::shared_written) and each call's local arrays. Sees the accesses of the pages holding
// uninitialised bytes. Its hooks run in the Checker's turn (checker/checker.h), but for
// block_started, which touches only the block's own shared memory.
#pragma once

#include "checker/launch_view.h"
#include "checker/memory_shortage.h"
#include "checker/report.h"
#include "checker/tracked_memory.h"
#include "sim/observer.h"

namespace simt::checker {

class InitCheck final : public sim::Observer {
public:
  InitCheck(const LaunchView &launch, Report &report, TrackedMemory &memory,
            MemoryShortage &shortage)
      : launch_(launch), report_(report), memory_(memory), shortage_(shortage) {}

  bool stops_threads() const override { return false; }
  bool thread_safe() const override { return true; }
  const sim::WatchedPages *watched_pages() const override { return &memory_.watched; }
  bool tracks_shared_writes() const override { return true; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  void block_started(const sim::ThreadContext &block) override;
  bool memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) override;

private:
  template <typename Work> void run(Work &&work) { shortage_.run(Tool::Init, work); }
  void check(sim::ThreadContext &ctx, const sim::MemoryAccess &access);

  const LaunchView &launch_;
  Report &report_;
  TrackedMemory &memory_;
  MemoryShortage &shortage_;
};

} // namespace simt::checker
