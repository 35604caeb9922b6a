#include "checker/initcheck.h"

namespace simt::checker {

using codegen::AccessKind;

void InitCheck::launch_started(const sim::KernelCode &, const sim::LaunchConfig &, void *const *) {
  memory_.scratch.clear();
  for (const LaunchView::GlobalArray &global : launch_.globals())
    run([&] { memory_.device.notice_host_writes(global.low, global.high - global.low); });
}

void InitCheck::launch_finished(const std::optional<sim::Fault> &) { memory_.scratch.clear(); }

void InitCheck::block_started(const sim::ThreadContext &block) {
  // Which bytes the block writes, the kernel marks (sim::shared_written); its arrays start
  // poisoned.
  const sim::KernelCode &kernel = *launch_.kernel();
  for (const sim::NamedArray &array : kernel.arrays)
    if (array.space == MemSpace::Shared)
      poison(block.shared + array.offset,
             uint64_t(shared_array_bytes(array, launch_.config().dynamic_shared_bytes)),
             array.dtype);
}

bool InitCheck::memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  if (access.kind == AccessKind::LocalArray) {
    if (const sim::NamedArray *array = launch_.announced_local(access))
      run([&] { memory_.scratch.track(uintptr_t(access.address), access.size, array->dtype); });
  } else if (access.kind != AccessKind::Fence) {
    run([&] { check(ctx, access); });
  }
  return false;
}

void InitCheck::check(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  InitTracker &tracker = access.space == MemSpace::Global ? memory_.device : memory_.scratch;
  const uintptr_t address = uintptr_t(access.address);
  if (access.kind != AccessKind::Store) {
    uintptr_t unset = 0;
    if (access.space == MemSpace::Shared) {
      const uint8_t *written = sim::shared_written(ctx, access.address);
      for (uint32_t byte = 0; byte < access.size && unset == 0; ++byte)
        if (written[byte] == 0)
          unset = address + byte;
    } else {
      unset = tracker.find(address, access.size, InitTracker::Uninitialised);
    }
    if (unset != 0)
      report_.add(
          &ctx, Tool::Init, Severity::Error,
          access.kind == AccessKind::Atomic ? "uninitialised atomic read" : "uninitialised read",
          "of " + launch_.place(ctx, unset, access.space).text + " in block " +
              ids(dim3(ctx.ctaid)),
          {launch_.side(ctx, access.kind == AccessKind::Atomic ? "atomic" : "read", access.loc)});
  }
  if (access.kind != AccessKind::Load && access.space != MemSpace::Shared) // shared: by the kernel
    tracker.written(address, access.size);
}

} // namespace simt::checker
