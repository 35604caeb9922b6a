// The binary interface between JIT-compiled kernel code and the simulator runtime.
// The host Target (sim/host_target.*) emits code against exactly these layouts and functions; the
// runtime (sim/runtime.*) implements them. Plain C layout: both sides must agree bit for bit.
#pragma once

#include "codegen/backend.h"
#include "ir/intrinsics.h"

#include <atomic>
#include <cstdint>

namespace simt::sim {

// Kernel arguments: the JIT'd entry points receive the host's argument buffer as it is
// (`void **args`, laid out as codegen/backend.h says).
using codegen::ArrayHeader;

// Per-thread state the JIT'd code reads and writes. One per fiber (fiber mode) or one per worker
// reused for every thread of a block (flat mode).
struct ThreadContext {
  int32_t tid[3];     // threadIdx
  int32_t ctaid[3];   // blockIdx
  int32_t ntid[3];    // blockDim
  int32_t nctaid[3];  // gridDim
  char *shared;       // this block's shared memory (static arrays first, then dynamic)
  int32_t status;     // 0 while running; non-zero: return at once (this thread faulted, or the
                      // launch is being stopped). JIT code checks it after every runtime call that
                      // can fault or park, and after every call of a device function.
  int32_t call_depth; // calls of recursive device functions this thread is in (RecursionError)
  void *runtime;      // the runtime's own per-thread state; opaque to JIT code
  int64_t dynamic_shared_bytes = 0; // the launch's dynamic shared memory (sizes the dynamic
                                    // shared array, cuda.shared.array(0, dtype))
  // Instrumented code: the accesses its observers want reported (sim/watched_pages.h, its
  // root table); null: every access.
  const uint8_t *const *watched_pages = nullptr;
  // Instrumented code, where an observer tracks which bytes of shared memory the block has
  // written (Observer::tracks_shared_writes): the distance from a byte of shared memory to its
  // written flag (0xff once written; zeroed as each block starts). 0: none is tracked.
  int64_t shared_written_offset = 0;
};

// Entry points the host Target emits for a kernel named K (exactly one of them):
//   void K.thread(void **args, ThreadContext *ctx)  fiber mode (a barrier is reachable): runs one
//       thread (ctx->tid set by the caller);
//   void K.block(void **args, ThreadContext *ctx)   flat mode (no barrier reachable): runs
//       every thread of the block in x-fastest order, setting ctx->tid, and returns as soon as
//       ctx->status becomes non-zero.
using KernelEntry = void (*)(void **args, ThreadContext *ctx);

// The operations of simt_rt_warp: the warp intrinsics of ir/intrinsics.def, whose comments
// say what each computes. ActiveMask is simt_rt_activemask's own.
using WarpOp = ir::WarpOp;

} // namespace simt::sim

// Runtime functions called from JIT code. `loc` indexes KernelCode::locations.
extern "C" {
// Non-zero while some launch is stopping (a fault, Ctrl-C; sim/launch_state.h): JIT code loads
// it (relaxed) at every loop back-edge and calls simt_rt_poll only when it is set, so a running
// loop costs one load and a predictable branch per iteration.
extern std::atomic<int32_t> simt_rt_stop_requests;
// A loop back-edge found simt_rt_stop_requests set: sets ctx->status when this thread's launch is
// stopping (the JIT code then returns at once).
void simt_rt_poll(simt::sim::ThreadContext *ctx, int32_t loc);
// The back-edge of a loop that may wait for other threads of the block (ir::loop_may_spin; such
// kernels run as fibers): every few calls, lets the block's other threads run. Sets ctx->status
// when the launch is stopping or when no thread of the block makes progress (a deadlock).
void simt_rt_yield(simt::sim::ThreadContext *ctx, int32_t loc);
// Records an IndexError ("index 12 is out of bounds for axis 0 with size 10") and sets status.
void simt_rt_index_error(simt::sim::ThreadContext *ctx, int64_t index, int32_t axis, int64_t size,
                         int32_t loc);
// SIMT_BOUNDSCHECK=warn: reports an access out of bounds (`access`: "__global__ read of size 4
// bytes") once per site, and returns memory of `itemsize` bytes, each 0xFF, for it to use
// instead: a read gives that poison (NaN, -1), a write is lost.
void *simt_rt_out_of_bounds(simt::sim::ThreadContext *ctx, int64_t index, int32_t axis,
                            int64_t size, int32_t loc, int64_t itemsize, const char *access);
// Records an exception of class `exception` ("ZeroDivisionError") with `message` and sets status.
void simt_rt_raise(simt::sim::ThreadContext *ctx, const char *exception, const char *message,
                   int32_t loc);
// cuda.syncthreads(): parks this thread's fiber until every live thread of the block arrives.
void simt_rt_syncthreads(simt::sim::ThreadContext *ctx, int32_t loc);
// cuda.syncthreads_count/and/or(predicate): the barrier of simt_rt_syncthreads that also returns
// the count of the arriving threads' non-zero predicates (reduction 0), whether all of them are
// non-zero (1) or any is (2). Threads that have returned take no part.
int32_t simt_rt_syncthreads_reduce(simt::sim::ThreadContext *ctx, int32_t reduction,
                                   int32_t predicate, int32_t loc);
// Loop fission (analysis/fission.h), instrumented kernels: every live thread of the block has
// reached the barrier at `loc`; its observers see the barrier release, as from the fiber scheduler.
void simt_rt_barrier_passed(simt::sim::ThreadContext *ctx, int32_t loc);
// Loop fission (analysis/fission.h): `bytes` of memory, 64-byte aligned, for the per-thread
// state of the block a fissioned kernel runs; valid until the calling worker runs its next block.
void *simt_rt_block_scratch(simt::sim::ThreadContext *ctx, int64_t bytes);
// An array the kernel allocates (np.empty and kin): `bytes` of memory, 16-byte aligned, zeroed
// when `zeroed`, freed when the launch ends. Null, with a MemoryError recorded at `loc`, when it
// cannot be given (bytes is -1 when its size overflowed int64).
void *simt_rt_allocate(simt::sim::ThreadContext *ctx, int64_t bytes, int32_t zeroed, int32_t loc);
// A warp operation `op` (a WarpOp) of the lanes named in `mask`, which must include the calling
// lane: parks this thread's fiber until every named lane of its warp arrives at the same
// operation with the same mask, then returns the operation's result. `value` is the lane's
// operand as zero-extended bits (a vote's predicate as 0/1), `operand` a shuffle's source lane,
// delta or lane mask. Faults (and returns 0) on a mask without the calling lane, a named lane
// that has exited, or named lanes waiting at another operation or at a barrier.
uint64_t simt_rt_warp(simt::sim::ThreadContext *ctx, int32_t op, uint32_t mask, uint64_t value,
                      int32_t operand, int32_t loc);
// cuda.activemask(): parks this thread's fiber until no other lane of its warp can move on
// without it (every lane has exited or waits somewhere and no other warp operation of the warp can
// complete), then returns the mask of the lanes waiting at this same call of activemask: the
// lanes a GPU would run converged there.
uint32_t simt_rt_activemask(simt::sim::ThreadContext *ctx, int32_t loc);
// cuda.cg.this_grid().sync(): parks this thread's fiber until every live thread of the grid
// arrives (cooperative launches only, see sim/grid_scheduler.h).
void simt_rt_grid_sync(simt::sim::ThreadContext *ctx, int32_t loc);
// print(): each call appends one item (items are separated by spaces); print_end emits the line.
void simt_rt_print_i64(simt::sim::ThreadContext *ctx, int64_t value);
void simt_rt_print_u64(simt::sim::ThreadContext *ctx, uint64_t value);
void simt_rt_print_f64(simt::sim::ThreadContext *ctx, double value);
void simt_rt_print_str(simt::sim::ThreadContext *ctx, const char *text);
void simt_rt_print_end(simt::sim::ThreadContext *ctx);
void simt_rt_print_glue(simt::sim::ThreadContext *ctx);
// Instrumented kernels only (sim/observer.h; codegen/target.h says when each is called):
// entry to function `function` (an index of KernelCode::frames) whose locals are at `frame`,
void simt_rt_enter(simt::sim::ThreadContext *ctx, int32_t function, void *frame);
// the matching return,
void simt_rt_leave(simt::sim::ThreadContext *ctx);
// the statement at `loc` is next (an observer may stop the thread here: its fiber parks),
void simt_rt_statement(simt::sim::ThreadContext *ctx, int32_t loc);
// Python's breakpoint() at `loc` (an observer may stop the thread there),
void simt_rt_breakpoint(simt::sim::ThreadContext *ctx, int32_t loc);
// and an access of `size` bytes at `address`, which a GPU needs `align`ed (`kind` a
// codegen::AccessKind, `space` a MemSpace; `value` a stored scalar's bits) is next.
void simt_rt_access(simt::sim::ThreadContext *ctx, void *address, int32_t size, int32_t align,
                    int32_t kind, int32_t space, uint64_t value, int32_t loc);
}
