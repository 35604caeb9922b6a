// The runtime's event interface (in the spirit of Oclgrind's Plugin): what a launch reports to
// whoever observes it — the debugger, the checkers, a profiler. Every hook does nothing unless
// an observer overrides it. Block, barrier, warp, fault and thread-exit events come from the
// schedulers for every launch that has an observer; statement, call and memory-access events
// only from kernels compiled with instrumentation (CompileOptions), so release code pays
// nothing. Observers see threads through these hooks and the read-only views below; they never
// reach into the schedulers, and steer a launch only by asking to stop a thread (the hooks that
// return bool) and through a FiberChoice (sim/block_scheduler.h).
#pragma once

#include "codegen/frame_layout.h"
#include "sim/abi.h"
#include "sim/launch.h"
#include "sim/watched_pages.h"

#include <cstdint>
#include <optional>
#include <span>

namespace simt::sim {

// One call of an instrumented function on a thread's call stack.
struct CallFrame {
  int32_t function = -1;     // an index of KernelCode::frames
  void *locals = nullptr;    // laid out as KernelCode::frames[function] says
  int32_t loc = -1;          // the statement it is at (KernelCode::locations); -1 before the first
  int32_t previous_loc = -1; // the statement before that one in this call
};

// An access an instrumented kernel is about to make.
struct MemoryAccess {
  void *address = nullptr;
  uint32_t size = 0;
  uint32_t align = 1; // what a GPU needs the address aligned to
  codegen::AccessKind kind = codegen::AccessKind::Load;
  MemSpace space = MemSpace::Global;
  uint64_t value = 0; // a stored scalar's bits, zero-extended; else 0
  int32_t loc = -1;
};

class Observer {
public:
  virtual ~Observer() = default;
  // Whether the hooks may run on several workers at once: a launch with an observer that is not
  // thread-safe runs its blocks on one worker, one after another.
  virtual bool thread_safe() const { return false; }
  // Whether a hook may stop a thread (return true): its threads then run as fibers.
  virtual bool stops_threads() const { return true; }

  // The accesses of instrumented code this observer needs to see (memory_access): those of the
  // pages it watches, or (null) every one. Read when a launch starts; a launch with several
  // observers reports every access.
  virtual const WatchedPages *watched_pages() const { return nullptr; }
  // Whether this observer needs to know which bytes of its shared memory a block has written
  // (ThreadContext::shared_written_offset, shared_written): instrumented code then marks them
  // itself and reports the reads of bytes not yet written even where nothing is watched.
  virtual bool tracks_shared_writes() const { return false; }

  // `args`: the launch's arguments (codegen/backend.h), which KernelCode::arrays name.
  virtual void launch_started(const KernelCode &, const LaunchConfig &, void *const * /*args*/) {}
  virtual void launch_finished(const std::optional<Fault> &) {}
  // `block` holds the block's ids (ctaid) and dimensions.
  virtual void block_started(const ThreadContext &) {}
  virtual void block_finished(const ThreadContext &) {}
  virtual void thread_exited(const ThreadContext &) {}

  // The statement at `loc` is next. True stops the thread there: its fiber parks (phase
  // Stopped) until the block's FiberChoice resumes it.
  virtual bool statement(ThreadContext &, int32_t /*loc*/) { return false; }
  // The kernel called breakpoint() at `loc`; true stops the thread there, as statement() does.
  virtual bool breakpoint_called(ThreadContext &, int32_t /*loc*/) { return false; }
  virtual void function_entered(ThreadContext &, const CallFrame &) {}
  virtual void function_left(ThreadContext &) {}
  // True stops the thread before the access, as statement() does.
  virtual bool memory_access(ThreadContext &, const MemoryAccess &) { return false; }

  // A thread arrives at a syncthreads (or grid sync: `grid`) at `loc`; the barrier releases the
  // parked threads of the block whose context is given.
  virtual void barrier_arrived(ThreadContext &, int32_t /*loc*/, bool /*grid*/) {}
  virtual void barrier_released(const ThreadContext &, int32_t /*loc*/, bool /*grid*/) {}
  // A lane arrives at warp operation `op` with `mask`.
  virtual void warp_op_arrived(ThreadContext &, WarpOp, uint32_t /*mask*/, int32_t /*loc*/) {}
  // A lane's shuffle `op` (with `mask`) at `loc` reads lane `source` of its warp, which the
  // mask does not name (or which has exited): CUDA leaves the value undefined; simt gives the
  // reading lane its own value.
  virtual void undefined_shuffle(const ThreadContext & /*reader*/, WarpOp, uint32_t /*source*/,
                                 uint32_t /*mask*/, int32_t /*loc*/) {}

  // An access out of an array's bounds under SIMT_BOUNDSCHECK=warn, which goes on (each time a
  // thread makes one; the launch keeps the first of each site).
  virtual void out_of_bounds(ThreadContext &, const OutOfBounds &) {}

  // The launch's first fault. True stops the faulting thread there, before it returns, when it
  // faulted in its own code (post-mortem: its frames are intact); faults the scheduler finds
  // (deadlocks, mismatched barriers) stop no thread.
  virtual bool fault(ThreadContext &, const Fault &) { return false; }
};

// The written flags of the `bytes` of shared memory at `address` of the block on `ctx` (0xff:
// written, 0: not yet), where an observer tracks_shared_writes(); else null.
inline const uint8_t *shared_written(const ThreadContext &ctx, const void *address) {
  return ctx.shared_written_offset == 0
             ? nullptr
             : static_cast<const uint8_t *>(address) + ctx.shared_written_offset;
}

// The call stack of the thread on `ctx`, outermost first (instrumented kernels; else empty).
std::span<const CallFrame> call_stack(const ThreadContext &ctx);

} // namespace simt::sim
