#include "checker/synccheck.h"

#include <cstdio>
#include <set>

namespace simt::checker {

void SyncCheck::launch_started(const sim::KernelCode &, const sim::LaunchConfig &, void *const *) {
  faulted_ = false;
  blocks_.clear();
}

void SyncCheck::launch_finished(const std::optional<sim::Fault> &) { blocks_.clear(); }

void SyncCheck::block_finished(const sim::ThreadContext &block) {
  blocks_.erase(linear_block(block));
}

void SyncCheck::barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool) {
  run([&] {
    Block &mine = block(ctx);
    if (mine.waiting.empty())
      mine.waiting.assign(launch_.config().block.count(), Wait{});
    mine.waiting[linear_thread(ctx)] = Wait{loc, mine.barriers_released};
  });
}

void SyncCheck::barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) {
  run([&] {
    Block &mine = this->block(block);
    // A fissioned kernel reports no arrivals: its threads all reach every barrier (the checkers'
    // variant of a kernel whose threads may return before one runs on fibers, sim/kernel_plan.h).
    // After a fault, threads stop wherever they are.
    if (!grid && !faulted_ && !mine.waiting.empty())
      report_missing_threads(block, mine, loc);
    ++mine.barriers_released;
  });
}

// A barrier releases when every thread of the block that has not exited waits at it: the others
// exited without reaching it. The branch that let them is divergent in this block, whatever its
// condition looks like.
void SyncCheck::report_missing_threads(const sim::ThreadContext &block, const Block &mine,
                                       int32_t loc) {
  constexpr size_t kNamedThreads = 3;
  const sim::Dim3 extent = launch_.config().block;
  std::vector<uint64_t> missing;
  for (size_t thread = 0; thread < mine.waiting.size(); ++thread)
    if (mine.waiting[thread].release != mine.barriers_released)
      missing.push_back(thread);
  if (missing.empty())
    return;
  std::string named;
  for (size_t i = 0; i < missing.size() && i < kNamedThreads; ++i)
    named += (i == 0 ? "" : ", ") + ids(unravel(missing[i], extent));
  if (missing.size() > kNamedThreads)
    named += " and " + std::to_string(missing.size() - kNamedThreads) + " more";
  report_.add(&block, Tool::Sync, Severity::Warning, "barrier not reached by every thread",
              "in block " + ids(dim3(block.ctaid)) + ": " + std::to_string(missing.size()) +
                  " of its " + std::to_string(mine.waiting.size()) +
                  " threads exited without reaching it (" +
                  (missing.size() == 1 ? "thread " : "threads ") + named +
                  "); CUDA defines a syncthreads only where every thread of the block reaches it",
              {Side{"barrier", dim3(block.tid), dim3(block.ctaid), launch_.location(loc), ""}});
}

void SyncCheck::undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                                  uint32_t mask, int32_t loc) {
  run([&] {
    const int64_t thread =
        reader.tid[0] +
        int64_t(reader.ntid[0]) * (reader.tid[1] + int64_t(reader.ntid[1]) * reader.tid[2]);
    const std::string lane = std::to_string(thread % 32);
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", mask);
    report_.add(&reader, Tool::Sync, Severity::Error, "undefined shuffle",
                "in block " + ids(dim3(reader.ctaid)) + ": lane " + lane + "'s " +
                    ir::warp_op_name(op) + " reads lane " + std::to_string(source) +
                    ", which its mask " + hex +
                    " does not name (or which has exited): the value is undefined on a GPU (simt "
                    "gives lane " +
                    lane + " its own)",
                {Side{"shuffle", dim3(reader.tid), dim3(reader.ctaid), launch_.location(loc), ""}});
  });
}

bool SyncCheck::fault(sim::ThreadContext &ctx, const sim::Fault &fault) {
  using codegen::FaultKind;
  faulted_ = true;
  if (fault.kind != FaultKind::Barrier && fault.kind != FaultKind::Warp &&
      fault.kind != FaultKind::Deadlock)
    return false;
  run([&] {
    const std::string block = "in block " + ids(dim3(ctx.ctaid));
    if (fault.kind != FaultKind::Barrier) {
      std::string message = fault.message;
      if (message.starts_with("simt: "))
        message.erase(0, 6);
      report_.add(&ctx, Tool::Sync, Severity::Error,
                  fault.kind == FaultKind::Warp ? "invalid warp synchronisation" : "deadlock",
                  block + ": " + message, {Side{"call", fault.tid, fault.ctaid, fault.where, ""}});
      return;
    }
    // One thread per barrier the block's threads wait at.
    std::vector<Side> sides;
    std::set<int32_t> seen;
    const Block &mine = this->block(ctx);
    for (size_t thread = 0; thread < mine.waiting.size(); ++thread)
      if (mine.waiting[thread].release == mine.barriers_released &&
          seen.insert(mine.waiting[thread].loc).second)
        sides.push_back(Side{"barrier", unravel(thread, launch_.config().block), dim3(ctx.ctaid),
                             launch_.location(mine.waiting[thread].loc), ""});
    if (sides.size() < 2)
      sides = {Side{"barrier", fault.tid, fault.ctaid, fault.where, ""}};
    report_.add(&ctx, Tool::Sync, Severity::Error, "divergent barrier",
                block + ": its threads wait at different barriers", std::move(sides));
  });
  return false;
}

} // namespace simt::checker
