#include "checker/memcheck.h"

namespace simt::checker {

using codegen::AccessKind;

namespace {

// Whether an access of an element of `array` (laid out as `global`) may miss the alignment a GPU
// needs: a record's fields, or data or strides that are not multiples of a scalar's alignment.
bool may_misalign(const sim::NamedArray &array, uintptr_t data,
                  const std::vector<int64_t> &strides) {
  if (array.record || array.ndim == 0)
    return true;
  const int64_t align = is_complex(array.dtype) ? array.itemsize / 2 : array.itemsize;
  if (align <= 1)
    return false;
  bool aligned = data % uint64_t(align) == 0;
  for (int64_t stride : strides)
    aligned = aligned && stride % align == 0;
  return !aligned;
}

} // namespace

void MemCheck::launch_started(const sim::KernelCode &, const sim::LaunchConfig &, void *const *) {
  for (const LaunchView::GlobalArray &record : launch_.records())
    run([&] { watch_alignment(record); });
  for (const LaunchView::GlobalArray &global : launch_.globals())
    run([&] { watch_alignment(global); });
}

void MemCheck::watch_alignment(const LaunchView::GlobalArray &global) {
  if (!may_misalign(*global.array, global.data, global.strides))
    return;
  const uintptr_t page_size = uintptr_t(1) << sim::WatchedPages::kPageBits;
  const uintptr_t first = global.low & ~(page_size - 1);
  // Room first: a page watched is a page recorded, to be unwatched, even when memory runs out.
  alignment_watched_.reserve(alignment_watched_.size() + (global.high - first) / page_size + 1);
  for (uintptr_t page = first; page < global.high; page += page_size) {
    memory_.watched.watch(page);
    alignment_watched_.push_back(page);
  }
}

void MemCheck::launch_finished(const std::optional<sim::Fault> &) {
  for (uintptr_t page : alignment_watched_)
    memory_.watched.unwatch(page);
  alignment_watched_.clear();
}

bool MemCheck::memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  if (access.kind != AccessKind::Fence && access.kind != AccessKind::LocalArray)
    run([&] { check(ctx, access); });
  return false;
}

void MemCheck::check(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const uintptr_t address = uintptr_t(access.address);
  const AccessType type = access_type(access.kind);
  // A record argument is copied to memory of its own on a GPU: its fields' offsets count.
  uintptr_t base = 0;
  for (const LaunchView::GlobalArray &record : launch_.records())
    if (address >= record.low && address < record.high)
      base = record.data;
  if (access.align > 1 && (address - base) % access.align != 0)
    report_.add(&ctx, Tool::Mem, Severity::Error,
                std::string("misaligned ") + action_name(type) + " of " +
                    std::to_string(access.size) + " bytes",
                "on " + launch_.place(ctx, address, access.space).text + " at an address " +
                    std::to_string((address - base) % access.align) + " bytes past a multiple of " +
                    std::to_string(access.align) + ", in block " + ids(dim3(ctx.ctaid)),
                {launch_.side(ctx, action_name(type), access.loc)});
  if (access.space == MemSpace::Global && memory_.any_freed &&
      memory_.device.find(address, access.size, InitTracker::Freed) != 0)
    report_.add(&ctx, Tool::Mem, Severity::Error, "use of freed device memory",
                "on " + launch_.place(ctx, address, access.space).text + " in block " +
                    ids(dim3(ctx.ctaid)),
                {launch_.side(ctx, action_name(type), access.loc)});
}

bool MemCheck::fault(sim::ThreadContext &ctx, const sim::Fault &fault) {
  if (fault.kind == codegen::FaultKind::Bounds)
    report_out_of_bounds(ctx, fault, "out-of-bounds access");
  return false;
}

// SIMT_BOUNDSCHECK=warn: the access goes on (as on a GPU, where compute-sanitizer reports it as
// an invalid access of its space and size).
void MemCheck::out_of_bounds(sim::ThreadContext &ctx, const sim::OutOfBounds &access) {
  report_out_of_bounds(ctx, access.fault, "Invalid " + access.access);
}

void MemCheck::report_out_of_bounds(sim::ThreadContext &ctx, const sim::Fault &fault,
                                    const std::string &title) {
  run([&] {
    std::string message = fault.message;
    if (message.starts_with("simt: "))
      message.erase(0, 6);
    report_.add(&ctx, Tool::Mem, Severity::Error, title,
                "in block " + ids(dim3(ctx.ctaid)) + ": " + message,
                {Side{"access", dim3(ctx.tid), dim3(ctx.ctaid), fault.where, ""}});
  });
}

} // namespace simt::checker
