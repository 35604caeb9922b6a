// The state one launch shares between its workers: the kernel, the block counter, the stop flag
// and the first fault; and stopping launches from outside (Ctrl-C).
#pragma once

#include "sim/kernel_heap.h"
#include "sim/launch.h"
#include "sim/observer.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace simt::sim {

class LaunchState {
public:
  // A launch is running from construction to destruction (interrupt_launches() stops it).
  LaunchState(const KernelCode &kernel, const LaunchConfig &config, void **args,
              const LaunchHooks &hooks = {});
  ~LaunchState();
  LaunchState(const LaunchState &) = delete;
  LaunchState &operator=(const LaunchState &) = delete;

  const KernelCode &kernel;
  const LaunchConfig &config;
  void **const args;
  const uint64_t block_count;
  const uint64_t shared_bytes; // static + dynamic, per block
  // What a block's shared memory takes: shared_bytes, followed by as many written flags where an
  // observer tracks shared writes (ThreadContext::shared_written_offset). Zero-filled per block.
  uint64_t shared_allocation_bytes() const {
    return tracks_shared_writes_ ? 2 * shared_bytes : shared_bytes;
  }

  // Hands out the next block's linear index, or nothing once every block is taken or the launch
  // has stopped.
  std::optional<uint64_t> next_block();
  // Hands out up to `count` consecutive blocks [first, last), or nothing as next_block. One atomic
  // operation per chunk: workers claiming thousands of small blocks one by one would spend much of
  // a flat kernel's time bouncing the counter's cache line between cores.
  std::optional<std::pair<uint64_t, uint64_t>> next_blocks(uint64_t count);

  // The entry the blocks starting now run: the kernel's (block_entry in flat mode, else
  // thread_entry), or better code that became ready during the launch (LaunchHooks::upgrade).
  KernelEntry entry();

  // Whether the launch is stopping; notices an interrupt_launches() since the launch began.
  bool stopped();

  // Stops the launch: no block starts any more, and every running thread returns at its next
  // loop back-edge, barrier, warp operation or call that can fault. Idempotent; any thread.
  void stop();

  // The thread running on `ctx` found the launch stopping at `loc`: marks it done (ctx->status),
  // and when the launch was interrupted, remembers the first such thread and place.
  void stop_thread(ThreadContext *ctx, int32_t loc);

  // Records a fault of the thread running on `ctx` (the first one of the launch wins), marks the
  // thread as done (ctx->status) and stops the launch.
  void record_fault(ThreadContext *ctx, std::string exception, std::string message, int32_t loc,
                    codegen::FaultKind kind = codegen::FaultKind::Exception);

  // SIMT_BOUNDSCHECK=warn: the thread on `ctx` made an access out of bounds at `loc` (`message`
  // an IndexError's, `access` what it was); the launch keeps the first of each site.
  void out_of_bounds(ThreadContext &ctx, std::string message, std::string access, int32_t loc);
  // The sites out_of_bounds() kept, in the order first reached.
  std::vector<OutOfBounds> take_out_of_bounds();

  // The source location of `loc`, or an empty one when the kernel has no such entry.
  SourceLocation location(int32_t loc) const;

  // A context with the launch's dimensions (ntid, nctaid, dynamic shared bytes) and zero ids.
  ThreadContext block_context() const;
  // Sets ctx.ctaid to the block with linear index `index` (x fastest).
  void place_block(ThreadContext &ctx, uint64_t index) const;
  // Moves ctx.ctaid to the next block in that order (no divisions: blocks of a chunk are
  // consecutive).
  void next_block_place(ThreadContext &ctx) const;

  // The first fault; else, when the launch was interrupted, a KeyboardInterrupt naming where.
  std::optional<Fault> take_fault();

  // What observes the launch (sim/observer.h), and the policy of its fiber schedulers.
  std::span<Observer *const> observers() const { return hooks_.observers; }
  bool observed() const { return !hooks_.observers.empty(); }
  // Whether the threads of a fiber-mode kernel need fibers: they may park (they wait for each
  // other, or an observer may stop them), or their local arrays need more stack than a worker's
  // (max_frame_on_worker_stack). When not, the block scheduler runs each to its end on its own
  // stack.
  bool threads_need_fibers() const;
  // Whether an observer needs its hooks called from one worker at a time, or the blocks run in an
  // order of their own.
  bool single_worker() const;
  // Null: round-robin (sim/block_scheduler.h).
  FiberChoice *fiber_choice() const { return hooks_.choice; }
  // Null: blocks run in order of their linear index.
  BlockOrder *block_order() const { return hooks_.order; }
  // The arrays the kernel allocates (simt_rt_allocate), freed when the launch ends.
  KernelHeap heap;
  // Shuffle reads of lanes that CUDA leaves undefined (Observer::undefined_shuffle).
  std::atomic<uint64_t> undefined_shuffles{0};

  // Calls event(observer) for each observer.
  template <typename Event> void notify(Event event) const {
    for (Observer *observer : hooks_.observers)
      event(*observer);
  }

private:
  Fault fault_of(const ThreadContext &ctx, std::string exception, std::string message, int32_t loc,
                 codegen::FaultKind kind) const;

  const LaunchHooks hooks_;
  const bool tracks_shared_writes_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<KernelEntry> upgraded_{nullptr}; // the better code, once an upgrade gave it
  std::atomic<uint64_t> next_block_{0};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> interrupted_{false};
  uint32_t interrupts_at_start_; // interrupt_launches() calls before this launch began
  std::mutex fault_mutex_;
  std::optional<Fault> fault_;
  std::optional<Fault> interrupt_; // where the interrupt was noticed first
  std::vector<OutOfBounds> out_of_bounds_;
  std::set<int32_t> out_of_bounds_sites_;
};

// Stops every launch running now, as Ctrl-C does; each reports a KeyboardInterrupt fault unless
// it faulted first. Async-signal-safe (it only updates lock-free atomics): a SIGINT handler calls
// it.
void interrupt_launches() noexcept;

// The process is exiting (Python's atexit, before static objects are destroyed: the JIT's code
// and the worker pool go then): stops every running launch, makes launches that start later stop
// at once, and waits until none runs. A launch that does not stop within `patience` (one stuck in
// a link= library's code, which never polls) ends the process with a message: returning would
// let exit() unmap code that is still running.
void stop_launches_at_exit(std::chrono::milliseconds patience);
// Whether stop_launches_at_exit() was called.
bool exiting();
// For a (daemon) thread whose launch stopped at exit: it never returns. Taking the GIL back would
// print the stop as an exception in the thread or, once the interpreter is finalizing, end the
// thread by unwinding it through destructors that cannot be unwound (std::terminate); parked, the
// thread ends with the process, as Python's own daemon threads do.
[[noreturn]] void park_until_exit();

// fork() (sim/worker_pool.cpp's pthread_atfork handlers): the registry of running launches is
// locked across it, so no other thread holds it then; the child starts with no running launch.
void before_fork_launch_registry();
void after_fork_launch_registry(bool in_child);

// "(x, y, z)": thread and block ids as fault messages print them.
std::string ids_text(const int32_t (&ids)[3]);
// "file.py:12".
std::string file_line(const SourceLocation &where);

} // namespace simt::sim
