#include "sim/launch_state.h"

#include "sim/block_scheduler.h"
#include "sim/fiber_switch.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

std::atomic<int32_t> simt_rt_stop_requests{0};

namespace simt::sim {

static_assert(std::atomic<int32_t>::is_always_lock_free &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "JIT code and signal handlers use these atomics as plain words");

namespace {

// simt_rt_stop_requests counts the stopped launches still running, plus the interrupts of the
// running launches. A launch withdraws its own stop; the last launch to end (or the first to
// begin) withdraws the interrupts', which every running launch has seen by then.
std::atomic<uint32_t> interrupts{0};        // interrupt_launches() calls so far
std::atomic<int32_t> interrupt_requests{0}; // their share of simt_rt_stop_requests
std::mutex running_mutex;
uint64_t running_launches = 0; // guarded by running_mutex
std::condition_variable none_running;
std::atomic<bool> exiting_flag{false}; // stop_launches_at_exit() was called

void withdraw_interrupt_requests() {
  simt_rt_stop_requests.fetch_sub(interrupt_requests.exchange(0));
}

} // namespace

void before_fork_launch_registry() { running_mutex.lock(); }

void after_fork_launch_registry(bool in_child) {
  if (in_child)
    running_launches = 0; // the parent's launches run on threads the child does not have
  running_mutex.unlock();
}

void stop_launches_at_exit(std::chrono::milliseconds patience) {
  exiting_flag.store(true);
  interrupt_launches();
  std::unique_lock lock(running_mutex);
  if (!none_running.wait_for(lock, patience, [] { return running_launches == 0; })) {
    std::fprintf(stderr,
                 "simt: %llu kernel launch(es) still running at exit did not stop within"
                 " %lld ms; ending the process\n",
                 static_cast<unsigned long long>(running_launches),
                 static_cast<long long>(patience.count()));
    std::fflush(nullptr);
    std::_Exit(1);
  }
}

bool exiting() { return exiting_flag.load(); }

void park_until_exit() {
  for (;;)
    std::this_thread::sleep_for(std::chrono::hours(1));
}

void interrupt_launches() noexcept {
  interrupts.fetch_add(1);
  interrupt_requests.fetch_add(1);
  simt_rt_stop_requests.fetch_add(1);
}

LaunchState::LaunchState(const KernelCode &kernel, const LaunchConfig &config, void **args,
                         const LaunchHooks &hooks)
    : kernel(kernel), config(config), args(args), block_count(config.grid.count()),
      shared_bytes(uint64_t(kernel.static_shared_bytes) + config.dynamic_shared_bytes),
      hooks_(hooks), tracks_shared_writes_(
                         std::any_of(hooks.observers.begin(), hooks.observers.end(),
                                     [](const Observer *o) { return o->tracks_shared_writes(); })) {
  std::lock_guard lock(running_mutex);
  if (running_launches++ == 0)
    withdraw_interrupt_requests(); // an interrupt that came between launches stops nothing
  interrupts_at_start_ = interrupts.load();
  if (exiting_flag.load()) { // stopped as an interrupted launch is: it reports KeyboardInterrupt
    interrupted_.store(true);
    stop();
  }
}

KernelEntry LaunchState::entry() {
  if (KernelEntry better = upgraded_.load(std::memory_order_acquire))
    return better;
  if (hooks_.upgrade != nullptr)
    if (KernelEntry better = hooks_.upgrade->poll(std::chrono::steady_clock::now() - started_)) {
      upgraded_.store(better, std::memory_order_release);
      return better;
    }
  return kernel.entry();
}

LaunchState::~LaunchState() {
  if (stopped_.load())
    simt_rt_stop_requests.fetch_sub(1);
  std::lock_guard lock(running_mutex);
  if (--running_launches == 0) {
    withdraw_interrupt_requests();
    none_running.notify_all();
  }
}

bool LaunchState::stopped() {
  if (simt_rt_stop_requests.load(std::memory_order_relaxed) != 0 &&
      interrupts.load() != interrupts_at_start_ && !interrupted_.exchange(true))
    stop();
  return stopped_.load(std::memory_order_relaxed);
}

void LaunchState::stop() {
  if (!stopped_.exchange(true))
    simt_rt_stop_requests.fetch_add(1);
}

void LaunchState::stop_thread(ThreadContext *ctx, int32_t loc) {
  ctx->status = 1;
  if (!interrupted_.load())
    return;
  std::lock_guard lock(fault_mutex_);
  if (!interrupt_)
    interrupt_ =
        Fault{"KeyboardInterrupt", "simt: kernel " + kernel.name + " interrupted",
              Dim3{uint32_t(ctx->tid[0]), uint32_t(ctx->tid[1]), uint32_t(ctx->tid[2])},
              Dim3{uint32_t(ctx->ctaid[0]), uint32_t(ctx->ctaid[1]), uint32_t(ctx->ctaid[2])},
              location(loc)};
}

std::optional<uint64_t> LaunchState::next_block() {
  if (stopped())
    return std::nullopt;
  uint64_t block = next_block_.fetch_add(1, std::memory_order_relaxed);
  if (block >= block_count)
    return std::nullopt;
  return block;
}

std::optional<std::pair<uint64_t, uint64_t>> LaunchState::next_blocks(uint64_t count) {
  if (stopped())
    return std::nullopt;
  uint64_t first = next_block_.fetch_add(count, std::memory_order_relaxed);
  if (first >= block_count)
    return std::nullopt;
  return std::make_pair(first, std::min(first + count, block_count));
}

Fault LaunchState::fault_of(const ThreadContext &ctx, std::string exception, std::string message,
                            int32_t loc, codegen::FaultKind kind) const {
  return Fault{std::move(exception),
               std::move(message),
               Dim3{uint32_t(ctx.tid[0]), uint32_t(ctx.tid[1]), uint32_t(ctx.tid[2])},
               Dim3{uint32_t(ctx.ctaid[0]), uint32_t(ctx.ctaid[1]), uint32_t(ctx.ctaid[2])},
               location(loc),
               kind};
}

void LaunchState::out_of_bounds(ThreadContext &ctx, std::string message, std::string access,
                                int32_t loc) {
  const OutOfBounds site{
      fault_of(ctx, "IndexError", std::move(message), loc, codegen::FaultKind::Bounds),
      std::move(access)};
  {
    std::lock_guard lock(fault_mutex_);
    if (out_of_bounds_sites_.insert(loc).second)
      out_of_bounds_.push_back(site);
  }
  notify([&](Observer &o) { o.out_of_bounds(ctx, site); });
}

std::vector<OutOfBounds> LaunchState::take_out_of_bounds() {
  std::lock_guard lock(fault_mutex_);
  return std::move(out_of_bounds_);
}

void LaunchState::record_fault(ThreadContext *ctx, std::string exception, std::string message,
                               int32_t loc, codegen::FaultKind kind) {
  ctx->status = 1;
  stop();
  Fault fault = fault_of(*ctx, std::move(exception), std::move(message), loc, kind);
  {
    std::lock_guard lock(fault_mutex_);
    if (fault_)
      return;
    fault_ = fault;
  }
  bool stop = false;
  for (Observer *observer : observers())
    stop = observer->fault(*ctx, fault) || stop;
  // Post-mortem: the faulting thread waits, frames intact, while it runs its own fiber.
  ThreadState &state = thread_state(ctx);
  if (stop && running_fiber == &state)
    park_stopped(state);
}

bool LaunchState::threads_need_fibers() const {
  return kernel.threads_wait || kernel.local_frame_bytes > max_frame_on_worker_stack ||
         std::any_of(hooks_.observers.begin(), hooks_.observers.end(),
                     [](const Observer *observer) { return observer->stops_threads(); });
}

bool LaunchState::single_worker() const {
  return hooks_.order != nullptr ||
         std::any_of(hooks_.observers.begin(), hooks_.observers.end(),
                     [](const Observer *observer) { return !observer->thread_safe(); });
}

SourceLocation LaunchState::location(int32_t loc) const { return kernel.location(loc); }

std::optional<Fault> LaunchState::take_fault() {
  std::lock_guard lock(fault_mutex_);
  if (fault_ || !interrupted_.load())
    return std::exchange(fault_, std::nullopt);
  if (interrupt_)
    return std::exchange(interrupt_, std::nullopt);
  // Noticed between threads (no block started since): no thread to name.
  return Fault{"KeyboardInterrupt",
               "simt: kernel " + kernel.name + " interrupted",
               Dim3{0, 0, 0},
               Dim3{0, 0, 0},
               {}};
}

ThreadContext LaunchState::block_context() const {
  ThreadContext ctx{};
  ctx.ntid[0] = int32_t(config.block.x);
  ctx.ntid[1] = int32_t(config.block.y);
  ctx.ntid[2] = int32_t(config.block.z);
  ctx.nctaid[0] = int32_t(config.grid.x);
  ctx.nctaid[1] = int32_t(config.grid.y);
  ctx.nctaid[2] = int32_t(config.grid.z);
  ctx.dynamic_shared_bytes = int64_t(config.dynamic_shared_bytes);
  if (hooks_.observers.size() == 1)
    if (const WatchedPages *watched = hooks_.observers[0]->watched_pages())
      ctx.watched_pages = watched->root();
  if (tracks_shared_writes_)
    ctx.shared_written_offset = int64_t(shared_bytes);
  return ctx;
}

void LaunchState::place_block(ThreadContext &ctx, uint64_t index) const {
  const Dim3 &grid = config.grid;
  ctx.ctaid[0] = int32_t(index % grid.x);
  ctx.ctaid[1] = int32_t(index / grid.x % grid.y);
  ctx.ctaid[2] = int32_t(index / (uint64_t(grid.x) * grid.y));
}

void LaunchState::next_block_place(ThreadContext &ctx) const {
  if (uint32_t(++ctx.ctaid[0]) < config.grid.x)
    return;
  ctx.ctaid[0] = 0;
  if (uint32_t(++ctx.ctaid[1]) < config.grid.y)
    return;
  ctx.ctaid[1] = 0;
  ++ctx.ctaid[2];
}

std::string ids_text(const int32_t (&ids)[3]) {
  char text[48];
  std::snprintf(text, sizeof text, "(%d, %d, %d)", ids[0], ids[1], ids[2]);
  return text;
}

std::string file_line(const SourceLocation &where) {
  return where.file + ":" + std::to_string(where.line);
}

} // namespace simt::sim
