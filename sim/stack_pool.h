// Fiber stacks, shared by every launch of the process and bounded.
//
// Stacks are carved out of few large mappings (slabs), each stack with a guard page below it,
// installed with madvise(MADV_GUARD_INSTALL) where the kernel has it (Linux >= 6.13: no extra
// memory mapping) and with mprotect otherwise (two mappings per stack). A process may map only
// vm.max_map_count regions (65530 by default), so the stacks launches hold at once are bounded by
// a budget: a launch reserves its share before it runs (workers that would exceed the budget sit
// it out, a launch that cannot fit even alone is refused), and what the pool keeps between
// launches is bounded too.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace simt::sim {

struct ThreadState;

// One fiber stack: [bottom, bottom + size), with a guard page just below bottom.
struct Stack {
  char *bottom = nullptr;
  size_t size = 0;
  char *top() const { return bottom + size; } // stacks grow down
};

class StackPool {
public:
  // Usable bytes of a fiber stack when a thread's local arrays need none.
  static constexpr size_t base_stack_size = 256 * 1024;
  // At most this many stacks, and this many bytes of them, are held by launches at once.
  static size_t budget_stacks();
  static constexpr uint64_t budget_bytes = uint64_t(8) << 30;
  // Stacks beyond this many bytes, left free by finished launches, are unmapped.
  static constexpr uint64_t kept_bytes = uint64_t(512) << 20;

  // The size of the stacks for threads whose local arrays take `frame_bytes` (the worst case
  // over the device functions they may call): the base size plus the frame, in 64 KiB steps.
  static size_t stack_size_for(int64_t frame_bytes);

  // True when guard pages cost no memory mapping (MADV_GUARD_INSTALL works on this kernel).
  static bool guard_install_supported();

  static StackPool &instance();

  // Stacks a launch holds: `workers` shares of `per_worker` stacks of `stack_size` bytes.
  class Reservation {
  public:
    Reservation() = default;
    Reservation(Reservation &&other) noexcept;
    Reservation &operator=(Reservation &&) = delete;
    ~Reservation();
    unsigned workers() const { return workers_; }

  private:
    friend class StackPool;
    StackPool *pool_ = nullptr;
    unsigned workers_ = 0;
    uint64_t stacks_ = 0, bytes_ = 0;
  };

  // Reserves shares of `per_worker` stacks of `stack_size` bytes for as many workers as the
  // budget allows, between `min_workers` and `max_workers`. Waits while other launches hold the
  // budget; throws std::invalid_argument (naming `what`) when `min_workers` shares exceed the
  // whole budget.
  Reservation reserve(uint64_t per_worker, size_t stack_size, unsigned min_workers,
                      unsigned max_workers, const std::string &what);

  // `count` stacks of `stack_size` bytes (within a reservation); throws std::bad_alloc when the
  // system refuses the memory.
  std::vector<Stack> take(size_t count, size_t stack_size);
  // Returns stacks from take(); free stacks beyond kept_bytes are unmapped.
  void give_back(std::vector<Stack> &stacks);

  // fork() (sim/worker_pool.cpp registers these): no thread is inside the pool while the process
  // is copied; in the child, the reservations and stacks of the parent's other threads, which
  // do not exist there, are forgotten.
  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();

  // What the pool has mapped: stacks in all, and the mappings (slabs).
  size_t mapped_stacks();
  size_t slab_count();

private:
  struct Slab {
    char *base = nullptr; // the mapping: count times (guard page, stack)
    size_t stack_size = 0;
    size_t count = 0;
    size_t in_use = 0;
  };

  StackPool() = default;
  Slab &map_slab(size_t count, size_t stack_size);
  Slab *slab_of(const char *bottom);
  void trim();

  std::mutex mutex_;
  std::condition_variable released_;
  uint64_t reserved_stacks_ = 0, reserved_bytes_ = 0;
  std::vector<Slab> slabs_;                    // sorted by base address
  std::map<size_t, std::vector<char *>> free_; // free stack bottoms, by stack size
  uint64_t free_bytes_ = 0;
};

// Makes a fault in the guard page of the stack the calling thread's fiber runs on end that fiber
// rather than the process: the SIGSEGV handler (on an alternate signal stack) switches back to the
// fiber's scheduler, which abandons it and records a RecursionError fault naming the thread
// (sim/fiber_switch.h: resume_fiber). Called by each worker of a launch that runs fibers:
// installs the SIGSEGV handler unless it is the current one (sim/chained_signal.h: other faults
// go to the handler it replaces) and this thread's alternate signal stack (once per thread).
void catch_stack_overflow();

// The scheduler's side of an overflow: `state`'s fiber switched back from the SIGSEGV handler. Its
// frames are abandoned (never unwound: they end in a signal frame), the signal mask the handler
// changed is restored, the thread is finished and the fault recorded.
void abandon_overflowed_fiber(ThreadState &state);

// Stacks held for the life of a scope (a worker's share of a launch, or a resident block).
class StackLease {
public:
  StackLease(size_t count, size_t stack_size)
      : stacks_(StackPool::instance().take(count, stack_size)) {}
  StackLease(const StackLease &) = delete;
  StackLease &operator=(const StackLease &) = delete;
  ~StackLease() { StackPool::instance().give_back(stacks_); }
  const Stack &operator[](size_t i) const { return stacks_[i]; }
  size_t size() const { return stacks_.size(); }

private:
  std::vector<Stack> stacks_;
};

} // namespace simt::sim
