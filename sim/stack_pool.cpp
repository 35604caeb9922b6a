#include "sim/stack_pool.h"

#include "sim/chained_signal.h"

#include "sim/fiber_switch.h"
#include "sim/launch_state.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace simt::sim {

namespace {

// Linux >= 6.13 (include/uapi/asm-generic/mman-common.h); older headers lack the name.
constexpr int madv_guard_install = 102;

// Stacks per slab: a slab of at least this many bytes, so that small stacks come in bulk.
constexpr size_t slab_bytes = size_t(16) << 20;

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

std::string mebibytes(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string kibibytes(uint64_t bytes) { return std::to_string(bytes >> 10) + " KiB"; }

void on_fault(int signal, siginfo_t *info, void *context);

// The signal mask of the thread whose fiber overflowed, to restore: the handler, and the
// scheduler that abandons the fiber, run on one worker thread.
thread_local sigset_t mask_before_overflow;

// Chained to for every other fault; replaces even SIG_DFL (whose effect on_fault restores).
// Checked at every call: a handler installed after this one (a test framework's, Python's
// faulthandler, a forked child's) would hide stack overflows.
ChainedSignalHandler fault_handler(SIGSEGV, on_fault, /*replace_default=*/true,
                                   std::chrono::milliseconds(0));

void on_fault(int signal, siginfo_t *info, void *context) {
  ThreadState *state = running_fiber;
  const char *address = static_cast<const char *>(info->si_addr);
  if (state != nullptr && state->context != nullptr) {
    const char *bottom = static_cast<const char *>(state->fiber_stack.bottom);
    if (address < bottom && address >= bottom - page_size()) {
      // The fiber's stack is exhausted: back to its scheduler, never to return here.
      state->stack_overflowed = true;
      mask_before_overflow = static_cast<const ucontext_t *>(context)->uc_sigmask;
      switch_to_scheduler(*state);
      abort(); // unreachable: the scheduler never resumes an overflowed fiber
    }
  }
  // Whatever the fault, it is handled as before simt installed this handler.
  if (!fault_handler.call_replaced(signal, info, context)) {
    // Returning re-runs the faulting instruction, which now ends the process.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(signal, &default_action, nullptr);
  }
}

} // namespace

void abandon_overflowed_fiber(ThreadState &state) {
  // The handler's continuation must not be destroyed (that would unwind it); it is moved into
  // storage that is never destroyed instead, the next overflow on this thread reusing it.
  alignas(
      boost::context::fiber) thread_local unsigned char abandoned[sizeof(boost::context::fiber)];
  new (abandoned) boost::context::fiber(std::move(state.self));
  pthread_sigmask(SIG_SETMASK, &mask_before_overflow, nullptr);
  state.stack_overflowed = false;
  state.phase = ThreadState::Phase::Finished;
  const std::string stack = std::to_string(state.fiber_stack.size >> 10) + " KiB";
  state.launch->record_fault(state.context, "RecursionError",
                             "simt: stack overflow in kernel " + state.launch->kernel.name +
                                 ": the thread's stack of " + stack +
                                 " is exhausted (device functions nested too deeply)",
                             -1, codegen::FaultKind::Resource);
}

void catch_stack_overflow() {
  thread_local bool has_signal_stack = false;
  if (!has_signal_stack) {
    // The handler cannot run on the overflowed stack. Kept when the thread has one (Python's
    // faulthandler installs one); never freed: it is the thread's for life.
    constexpr size_t size = 64 * 1024;
    stack_t current{};
    sigaltstack(nullptr, &current);
    void *memory =
        (current.ss_flags & SS_DISABLE) == 0
            ? MAP_FAILED
            : mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) {
      stack_t stack{};
      stack.ss_sp = memory;
      stack.ss_size = size;
      sigaltstack(&stack, nullptr);
    }
    has_signal_stack = true;
  }
  fault_handler.ensure_installed();
}

bool StackPool::guard_install_supported() {
  static const bool supported = [] {
    void *probe = mmap(nullptr, page_size(), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe == MAP_FAILED)
      return false;
    const bool works = madvise(probe, page_size(), madv_guard_install) == 0;
    munmap(probe, page_size());
    return works;
  }();
  return supported;
}

size_t StackPool::budget_stacks() {
  // With mprotect every stack costs two mappings: 8192 stacks (a full cooperative grid) take a
  // quarter of the default vm.max_map_count, leaving the rest to the JIT and the process.
  return guard_install_supported() ? 16384 : 8192;
}

size_t StackPool::stack_size_for(int64_t frame_bytes) {
  constexpr size_t step = 64 * 1024;
  const size_t frame = size_t(std::max<int64_t>(frame_bytes, 0));
  return base_stack_size + (frame + step - 1) / step * step;
}

StackPool &StackPool::instance() {
  // Never destroyed: workers may still return stacks while the process exits.
  static StackPool *pool = new StackPool();
  return *pool;
}

StackPool::Reservation::Reservation(Reservation &&other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), workers_(other.workers_), stacks_(other.stacks_),
      bytes_(other.bytes_) {}

StackPool::Reservation::~Reservation() {
  if (pool_ == nullptr)
    return;
  {
    std::lock_guard lock(pool_->mutex_);
    pool_->reserved_stacks_ -= stacks_;
    pool_->reserved_bytes_ -= bytes_;
  }
  pool_->released_.notify_all();
}

StackPool::Reservation StackPool::reserve(uint64_t per_worker, size_t stack_size,
                                          unsigned min_workers, unsigned max_workers,
                                          const std::string &what) {
  Reservation reservation;
  reservation.workers_ = max_workers;
  if (per_worker == 0)
    return reservation;
  const uint64_t share_bytes = per_worker * stack_size;
  const uint64_t fits = std::min(budget_stacks() / per_worker, budget_bytes / share_bytes);
  if (fits < min_workers)
    throw std::invalid_argument(
        "simt: " + what + " needs " + std::to_string(per_worker * min_workers) +
        " fiber stacks of " + kibibytes(stack_size) + " at once (" +
        mebibytes(share_bytes * min_workers) + "), more than the " +
        std::to_string(budget_stacks()) + " stacks and " + mebibytes(budget_bytes) +
        " simt allows (see Limits in docs/user-guide.md: fewer threads or smaller local arrays)");
  std::unique_lock lock(mutex_);
  auto available = [&] {
    return std::min((budget_stacks() - reserved_stacks_) / per_worker,
                    (budget_bytes - reserved_bytes_) / share_bytes);
  };
  // Other launches hold the rest of the budget: they finish, and give it back, without this one.
  released_.wait(lock, [&] { return available() >= min_workers; });
  reservation.pool_ = this;
  reservation.workers_ = unsigned(std::min<uint64_t>(max_workers, available()));
  reservation.stacks_ = per_worker * reservation.workers_;
  reservation.bytes_ = share_bytes * reservation.workers_;
  reserved_stacks_ += reservation.stacks_;
  reserved_bytes_ += reservation.bytes_;
  return reservation;
}

StackPool::Slab &StackPool::map_slab(size_t count, size_t stack_size) {
  const size_t stride = page_size() + stack_size;
  char *base = static_cast<char *>(mmap(nullptr, count * stride, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  if (base == MAP_FAILED)
    throw std::bad_alloc();
  const bool guard_install = guard_install_supported();
  for (size_t i = 0; i < count; ++i) {
    char *guard = base + i * stride;
    if ((guard_install ? madvise(guard, page_size(), madv_guard_install)
                       : mprotect(guard, page_size(), PROT_NONE)) != 0) {
      munmap(base, count * stride);
      throw std::bad_alloc();
    }
  }
  Slab slab{base, stack_size, count, 0};
  auto at = std::upper_bound(slabs_.begin(), slabs_.end(), base,
                             [](const char *b, const Slab &s) { return b < s.base; });
  at = slabs_.insert(at, slab);
  std::vector<char *> &free = free_[stack_size];
  for (size_t i = count; i-- > 0;)
    free.push_back(base + i * stride + page_size());
  free_bytes_ += count * stack_size;
  return *at;
}

StackPool::Slab *StackPool::slab_of(const char *bottom) {
  auto at = std::upper_bound(slabs_.begin(), slabs_.end(), bottom,
                             [](const char *b, const Slab &s) { return b < s.base; });
  return &*--at;
}

std::vector<Stack> StackPool::take(size_t count, size_t stack_size) {
  std::lock_guard lock(mutex_);
  std::vector<char *> &free = free_[stack_size];
  if (free.size() < count)
    map_slab(std::max(count - free.size(), slab_bytes / (page_size() + stack_size) + 1),
             stack_size);
  std::vector<Stack> stacks;
  stacks.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    char *bottom = free.back();
    free.pop_back();
    ++slab_of(bottom)->in_use;
    stacks.push_back(Stack{bottom, stack_size});
  }
  free_bytes_ -= count * stack_size;
  return stacks;
}

void StackPool::give_back(std::vector<Stack> &stacks) {
  std::lock_guard lock(mutex_);
  for (const Stack &stack : stacks) {
    forget_stack_frames(stack.bottom, stack.size);
    --slab_of(stack.bottom)->in_use;
    free_[stack.size].push_back(stack.bottom);
    free_bytes_ += stack.size;
  }
  stacks.clear();
  trim();
}

void StackPool::trim() {
  for (size_t i = slabs_.size(); i-- > 0 && free_bytes_ > kept_bytes;) {
    const Slab slab = slabs_[i];
    if (slab.in_use > 0)
      continue;
    const size_t stride = page_size() + slab.stack_size;
    char *const end = slab.base + slab.count * stride;
    std::vector<char *> &free = free_[slab.stack_size];
    std::erase_if(free, [&](char *bottom) { return bottom >= slab.base && bottom < end; });
    munmap(slab.base, slab.count * stride);
    slabs_.erase(slabs_.begin() + std::ptrdiff_t(i));
    free_bytes_ -= slab.count * slab.stack_size;
  }
}

void StackPool::before_fork() {
  fault_handler.before_fork();
  mutex_.lock();
}

void StackPool::after_fork_in_parent() {
  mutex_.unlock();
  fault_handler.after_fork();
}

void StackPool::after_fork_in_child() {
  // Other threads' waits on released_ are copied into it and never end: a fresh one.
  new (&released_) std::condition_variable();
  reserved_stacks_ = 0;
  reserved_bytes_ = 0;
  // Their stacks stay marked in use (the memory is the child's copy): their slabs stay mapped.
  mutex_.unlock();
  fault_handler.after_fork();
}

size_t StackPool::mapped_stacks() {
  std::lock_guard lock(mutex_);
  size_t count = 0;
  for (const Slab &slab : slabs_)
    count += slab.count;
  return count;
}

size_t StackPool::slab_count() {
  std::lock_guard lock(mutex_);
  return slabs_.size();
}

} // namespace simt::sim
