// The runtime functions JIT-compiled kernels call (see sim/abi.h).
#include "sim/abi.h"
#include "sim/fiber_switch.h"
#include "sim/launch_state.h"
#include "sim/print_format.h"
#include "sim/thread_state.h"

#include <cstdlib>
#include <new>
#include <string>
#include <utility>

using simt::sim::LaunchState;
using simt::sim::ThreadContext;
using simt::sim::ThreadState;

namespace simt::sim {

std::span<const CallFrame> call_stack(const ThreadContext &ctx) {
  return static_cast<const ThreadState *>(ctx.runtime)->call_stack;
}

} // namespace simt::sim

namespace {

// A thread at a spinning loop lets the others run every this many iterations: often enough that
// a waiting thread costs little, rarely enough that a loop merely suspected of spinning (one
// scanning an array) stays fast.
constexpr uint32_t spin_yield_interval = 32;

} // namespace

extern "C" {

void simt_rt_poll(ThreadContext *ctx, int32_t loc) {
  LaunchState &launch = *simt::sim::thread_state(ctx).launch;
  if (launch.stopped())
    launch.stop_thread(ctx, loc);
}

void simt_rt_yield(ThreadContext *ctx, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  if (simt_rt_stop_requests.load(std::memory_order_relaxed) != 0 && state.launch->stopped()) {
    state.launch->stop_thread(ctx, loc);
    return;
  }
  if (!state.fiber_mode || ++state.spin_count < spin_yield_interval)
    return;
  state.spin_count = 0;
  state.spin_loc = loc;
  state.phase = ThreadState::Phase::Yielded;
  simt::sim::switch_to_scheduler(state);
  // Resumed: the block's other threads ran, or the launch is stopping (the scheduler has set
  // ctx->status) and the JIT code returns at once.
}

void simt_rt_index_error(ThreadContext *ctx, int64_t index, int32_t axis, int64_t size,
                         int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  state.launch->record_fault(ctx, "IndexError",
                             simt::codegen::index_error_message(index, axis, size), loc,
                             simt::codegen::FaultKind::Bounds);
}

void *simt_rt_out_of_bounds(ThreadContext *ctx, int64_t index, int32_t axis, int64_t size,
                            int32_t loc, int64_t itemsize, const char *access) {
  ThreadState &state = simt::sim::thread_state(ctx);
  state.launch->out_of_bounds(*ctx, simt::codegen::index_error_message(index, axis, size), access,
                              loc);
  // Per worker thread: between this call and the access no other thread runs on it.
  thread_local std::vector<uint8_t> poison;
  poison.assign(size_t(itemsize), 0xFF);
  return poison.data();
}

void simt_rt_raise(ThreadContext *ctx, const char *exception, const char *message, int32_t loc) {
  simt::sim::thread_state(ctx).launch->record_fault(ctx, exception, message, loc);
}

void simt_rt_syncthreads(ThreadContext *ctx, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  if (!state.fiber_mode) {
    // The JIT only picks the flat mode when no barrier is reachable; reaching one is a JIT bug,
    // reported rather than silently ignored.
    state.launch->record_fault(
        ctx, "RuntimeError", "simt: syncthreads reached in a kernel launched without fibers", loc);
    return;
  }
  state.barrier_loc = loc;
  if (state.observed)
    state.launch->notify(
        [&](simt::sim::Observer &o) { o.barrier_arrived(*ctx, loc, state.at_grid_barrier); });
  state.phase = ThreadState::Phase::Parked;
  simt::sim::switch_to_scheduler(state);
  // Resumed: either the barrier released (status unchanged) or the launch is stopping, in which
  // case the scheduler has set ctx->status and the JIT code returns at once.
}

void simt_rt_grid_sync(ThreadContext *ctx, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  if (!state.fiber_mode || !state.launch->kernel.cooperative) {
    state.launch->record_fault(
        ctx, "RuntimeError", "simt: grid sync reached in a kernel not launched cooperatively", loc);
    return;
  }
  state.at_grid_barrier = true;
  simt_rt_syncthreads(ctx, loc); // the grid scheduler releases it (sim/grid_scheduler.cpp)
}

void simt_rt_barrier_passed(ThreadContext *ctx, int32_t loc) {
  simt::sim::thread_state(ctx).launch->notify(
      [&](simt::sim::Observer &o) { o.barrier_released(*ctx, loc, false); });
}

void *simt_rt_allocate(ThreadContext *ctx, int64_t bytes, int32_t zeroed, int32_t loc) {
  LaunchState &launch = *simt::sim::thread_state(ctx).launch;
  if (void *data = launch.heap.allocate(bytes, zeroed != 0,
                                        simt::sim::linear_block(ctx->ctaid, ctx->nctaid)))
    return data;
  launch.record_fault(ctx, "MemoryError",
                      bytes < 0
                          ? std::string("array is too big: its size in bytes overflows int64")
                          : "Allocation failed (probably too large): " + std::to_string(bytes) +
                                " bytes, with " + std::to_string(launch.heap.held_bytes()) +
                                " bytes of the kernel's arrays held (at most " +
                                std::to_string(simt::sim::KernelHeap::limit_bytes) + ")",
                      loc);
  return nullptr;
}

void *simt_rt_block_scratch(ThreadContext *ctx, int64_t bytes) {
  // The worker's buffer as its ThreadState last saw it: a thread_local costs a call into the
  // dynamic linker (__tls_get_addr) in a shared library, once per block here.
  ThreadState &state = *static_cast<ThreadState *>(ctx->runtime);
  if (bytes <= state.block_scratch_bytes)
    return state.block_scratch;
  // One buffer per worker thread, reused by every block it runs (a worker runs one at a time).
  struct Scratch {
    void *data = nullptr;
    int64_t size = 0;
    ~Scratch() { std::free(data); }
  };
  thread_local Scratch scratch;
  if (bytes > scratch.size) {
    std::free(scratch.data);
    // Aligned for alignment= of local arrays (their offsets in it are multiples of it).
    constexpr int64_t alignment = simt::ir::max_array_alignment;
    const int64_t rounded = (bytes + alignment - 1) / alignment * alignment;
    scratch.data = std::aligned_alloc(size_t(alignment), size_t(rounded));
    if (!scratch.data)
      throw std::bad_alloc();
    scratch.size = rounded;
  }
  state.block_scratch = scratch.data;
  state.block_scratch_bytes = scratch.size;
  return scratch.data;
}

int32_t simt_rt_syncthreads_reduce(ThreadContext *ctx, int32_t reduction, int32_t predicate,
                                   int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  state.barrier_predicate = predicate;
  simt_rt_syncthreads(ctx, loc);
  switch (reduction) {
  case 0:
    return state.barrier_count;
  case 1:
    return state.barrier_count == state.barrier_arrived ? 1 : 0;
  default:
    return state.barrier_count > 0 ? 1 : 0;
  }
}

void simt_rt_enter(ThreadContext *ctx, int32_t function, void *frame) {
  ThreadState &state = simt::sim::thread_state(ctx);
  state.call_stack.push_back(simt::sim::CallFrame{function, frame, -1, -1});
  state.launch->notify(
      [&](simt::sim::Observer &o) { o.function_entered(*ctx, state.call_stack.back()); });
}

void simt_rt_leave(ThreadContext *ctx) {
  ThreadState &state = simt::sim::thread_state(ctx);
  state.launch->notify([&](simt::sim::Observer &o) { o.function_left(*ctx); });
  state.call_stack.pop_back();
}

void simt_rt_statement(ThreadContext *ctx, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  if (!state.call_stack.empty()) {
    simt::sim::CallFrame &frame = state.call_stack.back();
    frame.previous_loc = std::exchange(frame.loc, loc);
  }
  bool stop = false;
  state.launch->notify([&](simt::sim::Observer &o) { stop = o.statement(*ctx, loc) || stop; });
  if (stop)
    simt::sim::park_stopped(state);
}

void simt_rt_breakpoint(ThreadContext *ctx, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  bool stop = false;
  state.launch->notify(
      [&](simt::sim::Observer &o) { stop = o.breakpoint_called(*ctx, loc) || stop; });
  if (stop)
    simt::sim::park_stopped(state);
}

void simt_rt_access(ThreadContext *ctx, void *address, int32_t size, int32_t align, int32_t kind,
                    int32_t space, uint64_t value, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  const simt::sim::MemoryAccess access{address,
                                       uint32_t(size),
                                       uint32_t(align),
                                       simt::codegen::AccessKind(kind),
                                       simt::MemSpace(space),
                                       value,
                                       loc};
  bool stop = false;
  state.launch->notify(
      [&](simt::sim::Observer &o) { stop = o.memory_access(*ctx, access) || stop; });
  if (stop)
    simt::sim::park_stopped(state);
}

void simt_rt_print_i64(ThreadContext *ctx, int64_t value) {
  simt::sim::thread_state(ctx).print_line.append(simt::sim::format_int(value));
}

void simt_rt_print_u64(ThreadContext *ctx, uint64_t value) {
  simt::sim::thread_state(ctx).print_line.append(simt::sim::format_uint(value));
}

void simt_rt_print_f64(ThreadContext *ctx, double value) {
  simt::sim::thread_state(ctx).print_line.append(simt::sim::format_float(value));
}

void simt_rt_print_str(ThreadContext *ctx, const char *text) {
  simt::sim::thread_state(ctx).print_line.append(text);
}

void simt_rt_print_glue(ThreadContext *ctx) { simt::sim::thread_state(ctx).print_line.glue(); }

void simt_rt_print_end(ThreadContext *ctx) { simt::sim::thread_state(ctx).print_line.emit(); }

} // extern "C"
