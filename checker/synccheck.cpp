#include "checker/synccheck.h"

#include <cstdio>
#include <set>

namespace simt::checker {

void SyncCheck::launch_started(const sim::KernelCode &, const sim::LaunchConfig &, void *const *) {
  barrier_released_ = false;
  blocks_.clear();
}

void SyncCheck::launch_finished(const std::optional<sim::Fault> &fault) {
  const sim::KernelCode &kernel = *launch_.kernel();
  if (!fault && barrier_released_ && kernel.thread_dependent_barrier.line > 0)
    run([&] {
      report_.add(nullptr, Tool::Sync, Severity::Warning, "barrier under a thread-dependent branch",
                  "in kernel `" + kernel.name +
                      "`: every thread of each block reached it in this run, but on a GPU a block "
                      "whose threads do not all reach a barrier hangs or misbehaves",
                  {Side{"branch", {}, {}, kernel.thread_dependent_barrier, ""}});
    });
  blocks_.clear();
}

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

void SyncCheck::barrier_released(const sim::ThreadContext &block, int32_t, bool) {
  barrier_released_ = true;
  run([&] { ++this->block(block).barriers_released; });
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
