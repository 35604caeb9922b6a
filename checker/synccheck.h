// synccheck: synchronisation a GPU does not do as the simulator did — threads of a block waiting
// at different barriers, invalid warp synchronisation, deadlocks, shuffles of lanes CUDA leaves
// undefined, and barriers that some threads of a block exited without reaching. Sees no memory
// access. Its hooks run in the Checker's turn (checker/checker.h).
#pragma once

#include "checker/launch_view.h"
#include "checker/memory_shortage.h"
#include "checker/report.h"
#include "sim/observer.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace simt::checker {

class SyncCheck final : public sim::Observer {
public:
  // `tools_pages`: the pages the other tools watch (it adds none).
  SyncCheck(const LaunchView &launch, Report &report, MemoryShortage &shortage,
            const sim::WatchedPages &tools_pages)
      : launch_(launch), report_(report), shortage_(shortage), tools_pages_(tools_pages) {}

  bool stops_threads() const override { return false; }
  bool thread_safe() const override { return true; }
  const sim::WatchedPages *watched_pages() const override { return &tools_pages_; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  void block_finished(const sim::ThreadContext &block) override;
  void barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool grid) override;
  void barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) override;
  void undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                         uint32_t mask, int32_t loc) override;
  bool fault(sim::ThreadContext &ctx, const sim::Fault &fault) override;

private:
  template <typename Work> void run(Work &&work) { shortage_.run(Tool::Sync, work); }

  const LaunchView &launch_;
  Report &report_;
  MemoryShortage &shortage_;
  const sim::WatchedPages &tools_pages_;
  bool faulted_ = false; // this launch
  // Where a thread of a block waits at a barrier, as of which of the block's releases (older
  // waits are over), to name both sides of a divergent barrier and the threads a barrier
  // released without.
  struct Wait {
    int32_t loc = -1;
    uint64_t release = ~uint64_t(0);
  };
  struct Block {
    std::vector<Wait> waiting; // by thread of the block
    uint64_t barriers_released = 0;
  };
  std::unordered_map<uint64_t, Block> blocks_; // the running ones, by linear index
  Block &block(const sim::ThreadContext &ctx) { return blocks_[linear_block(ctx)]; }
  void report_missing_threads(const sim::ThreadContext &block, const Block &mine, int32_t loc);
};

} // namespace simt::checker
