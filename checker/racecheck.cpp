#include "checker/racecheck.h"

#include <cstring>

namespace simt::checker {

using codegen::AccessKind;

RaceCheck::RaceCheck(const LaunchView &launch, Report &report, MemoryShortage &shortage)
    : launch_(launch), report_(report), shortage_(shortage) {
  shortage.count_shadow(races_);
}

void RaceCheck::launch_started(const sim::KernelCode &, const sim::LaunchConfig &config,
                               void *const *) {
  run([&] { races_.launch_started(config); });
}

void RaceCheck::launch_finished(const std::optional<sim::Fault> &) {
  note_peak();
  if (shortage_.stopped()) // what it held back for the process (its records: stale now)
    races_.clear_shadow();
}

void RaceCheck::block_started(const sim::ThreadContext &block) {
  run([&] { races_.block_started(block, launch_.shared_bytes()); });
}

void RaceCheck::block_finished(const sim::ThreadContext &block) {
  races_.block_finished(block, launch_.shared_bytes());
  note_peak();
}

void RaceCheck::barrier_released(const sim::ThreadContext &block, int32_t, bool grid) {
  run([&] { races_.barrier_released(block, grid); });
}

void RaceCheck::warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask, int32_t) {
  run([&] { races_.warp_arrived(ctx, op, mask); });
}

bool RaceCheck::memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  if (access.kind == AccessKind::Fence)
    run([&] { races_.fence(ctx, int64_t(access.value)); });
  else if (access.kind != AccessKind::LocalArray &&
           (access.space == MemSpace::Shared || access.space == MemSpace::Global))
    run([&] { check(ctx, access); });
  return false;
}

void RaceCheck::check(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const AccessType type = access_type(access.kind);
  const sim::LaunchConfig &config = launch_.config();
  races_.access(
      ctx, uintptr_t(access.address), access.size, type, access.loc, [&](const Conflict &conflict) {
        const bool earlier_writes = conflict.earlier != AccessType::Read;
        const bool writes = type != AccessType::Read;
        std::string kind = earlier_writes && writes ? "write-after-write hazard"
                           : earlier_writes         ? "read-after-write hazard"
                                                    : "write-after-read hazard";
        Severity severity = conflict.same_warp ? Severity::Warning : Severity::Error;
        Side earlier{action_name(conflict.earlier), unravel(conflict.earlier_thread, config.block),
                     unravel(conflict.earlier_block, config.grid),
                     launch_.location(conflict.earlier_loc), ""};
        Side current = launch_.side(ctx, action_name(type), access.loc);
        const LaunchView::Place where = launch_.place(ctx, uintptr_t(access.address), access.space);
        if (earlier_writes && writes && access.kind == AccessKind::Store && access.size <= 8 &&
            conflict.earlier == AccessType::Write) {
          uint64_t before = 0;
          std::memcpy(&before, access.address, access.size);
          if (before == access.value) {
            kind = "write-after-write of equal values";
            severity = Severity::Info;
          }
          if (where.array != nullptr && !where.array->record) {
            if (conflict.earlier_is_last_write) // else memory holds a later write's value
              earlier.value = format_value(before, where.array->dtype);
            current.value = format_value(access.value, where.array->dtype);
          }
        }
        report_.add(&ctx, Tool::Race, severity, kind,
                    "on " + where.text + " " + launch_.in_blocks(ctx, conflict.earlier_block) +
                        (conflict.same_warp && severity == Severity::Warning
                             ? " (lanes of one warp, without syncwarp)"
                             : ""),
                    {earlier, current});
      });
}

} // namespace simt::checker
