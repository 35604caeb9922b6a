#include "sim/grid_scheduler.h"

#include "sim/block_scheduler.h"
#include "sim/stack_pool.h"
#include "sim/thread_state.h"
#include "sim/worker_pool.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace simt::sim {

namespace {

// Compute capability 8.0's limits per multiprocessor, which decide how many blocks are resident.
constexpr uint64_t max_blocks_per_sm = 32;
constexpr uint64_t max_warps_per_sm = 64;
constexpr uint64_t shared_bytes_per_sm = 164 * 1024;
constexpr uint64_t reserved_shared_bytes_per_block = 1024;

// Shared memory aligned for alignment= of shared arrays (their offsets are multiples of it).
constexpr std::align_val_t shared_alignment{ir::max_array_alignment};
struct FreeShared {
  void operator()(char *p) const { ::operator delete[](p, shared_alignment); }
};

// One resident block: its threads and their stacks, its own shared memory, how many threads are
// not finished, and the grid barrier they wait at, if they all do.
struct ResidentBlock {
  ResidentBlock(uint64_t threads, size_t stack_size) : stacks(threads, stack_size) {}
  StackLease stacks;
  BlockScheduler threads;
  std::unique_ptr<char[], FreeShared> shared;
  uint64_t alive = 0;
  std::optional<uint64_t> waits_at; // the generation of the grid barrier its threads wait at
  ThreadContext context{};          // the block's ids and dimensions
};

class CooperativeRunner final : public WorkerPool::Task {
public:
  CooperativeRunner(LaunchState &launch, size_t stack_size)
      : launch_(launch), threads_per_block_(launch.config.block.count()), stack_size_(stack_size),
        live_(launch.block_count * threads_per_block_) {}

  void work() override {
    catch_stack_overflow();
    run_blocks();
  }

private:
  // Runs this worker's blocks until all have finished. A block whose threads spin (maybe waiting
  // for another block, as resident blocks may) hands the worker to its other blocks, and to
  // blocks not yet started; the worker sleeps only when all of its blocks wait at the grid
  // barrier.
  void run_blocks() {
    std::vector<std::unique_ptr<ResidentBlock>> mine;
    for (;;) {
      bool spinning = false;
      for (auto &block : mine)
        if (block->alive > 0 && released(*block))
          spinning = advance(*block) || spinning;
      while (std::optional<uint64_t> index = launch_.next_block()) {
        std::unique_ptr<ResidentBlock> block = resident_block(*index);
        if (block == nullptr)
          break;
        mine.push_back(std::move(block));
        spinning = advance(*mine.back()) || spinning;
      }
      if (std::none_of(mine.begin(), mine.end(), [](auto &block) { return block->alive > 0; }))
        return;
      if (spinning)
        continue;
      std::unique_lock lock(mutex_);
      released_.wait(lock, [&] {
        return launch_.stopped() || std::any_of(mine.begin(), mine.end(), [&](auto &block) {
                 return block->alive > 0 && block->waits_at != generation_;
               });
      });
    }
  }

  // Whether `block` may run: it does not wait at a grid barrier that has not been released.
  bool released(const ResidentBlock &block) {
    std::lock_guard lock(mutex_);
    return block.waits_at != generation_ || launch_.stopped();
  }

  // The block, or null (a fault recorded) when the system refuses memory for its stacks.
  std::unique_ptr<ResidentBlock> resident_block(uint64_t index) {
    ThreadContext ctx = launch_.block_context();
    launch_.place_block(ctx, index);
    std::unique_ptr<ResidentBlock> resident;
    try {
      resident = std::make_unique<ResidentBlock>(threads_per_block_, stack_size_);
    } catch (const std::bad_alloc &) {
      launch_.record_fault(&ctx, "MemoryError",
                           "simt: out of memory for the fiber stacks of block " +
                               ids_text(ctx.ctaid),
                           -1, codegen::FaultKind::Resource);
      std::lock_guard lock(mutex_);
      released_.notify_all(); // the workers asleep at the barrier stop their threads
      return nullptr;
    }
    if (launch_.shared_bytes > 0) {
      // Zero-filled, aligned at least to the 16 bytes CUDA guarantees.
      resident->shared.reset(new (shared_alignment) char[launch_.shared_allocation_bytes()]());
      ctx.shared = resident->shared.get();
    }
    resident->threads.start(launch_, ctx, resident->stacks);
    resident->alive = threads_per_block_;
    resident->context = ctx;
    launch_.notify([&](Observer &o) { o.block_started(ctx); });
    return resident;
  }

  // Runs `block` up to the grid barrier and counts its threads in: finished, or arrived. True
  // when it stopped early because its threads spin.
  bool advance(ResidentBlock &block) {
    const BlockScheduler::Pause pause = block.threads.run_to_grid_barrier(launch_, true);
    const bool spinning = pause.at_grid_barrier < pause.live;
    if (pause.live == 0 && block.alive > 0)
      launch_.notify([&](Observer &o) { o.block_finished(block.context); });
    ThreadContext *waiter = spinning || pause.live == 0 ? nullptr : block.threads.grid_waiter();
    std::lock_guard lock(mutex_);
    live_ -= block.alive - pause.live;
    block.alive = pause.live;
    block.waits_at.reset();
    if (waiter != nullptr) {
      const int32_t loc = thread_state(waiter).barrier_loc;
      if (waiting_ == 0) {
        first_waiter_ = *waiter;
        first_loc_ = loc;
      } else if (loc != first_loc_) {
        launch_.record_fault(
            waiter, "RuntimeError",
            "simt: threads wait at different grid syncs: thread " + ids_text(first_waiter_.tid) +
                " of block " + ids_text(first_waiter_.ctaid) + " at " +
                file_line(launch_.location(first_loc_)) + " and thread " + ids_text(waiter->tid) +
                " of block " + ids_text(waiter->ctaid) + " at " + file_line(launch_.location(loc)),
            loc, codegen::FaultKind::Barrier);
      }
      waiting_ += pause.at_grid_barrier;
      block.waits_at = generation_;
    }
    if (live_ > 0 && waiting_ == live_) {
      ++generation_;
      waiting_ = 0;
      released_.notify_all();
    } else if (launch_.stopped()) {
      released_.notify_all(); // the workers asleep at the barrier stop their threads
    }
    return spinning;
  }

  LaunchState &launch_;
  const uint64_t threads_per_block_;
  const size_t stack_size_;
  std::mutex mutex_;
  std::condition_variable released_;
  uint64_t live_;                // threads not finished, those of blocks not started included
  uint64_t waiting_ = 0;         // threads waiting at the grid barrier
  uint64_t generation_ = 0;      // grid barriers released so far
  ThreadContext first_waiter_{}; // the first thread to wait at this barrier, and its call site
  int32_t first_loc_ = -1;
};

} // namespace

uint64_t max_cooperative_blocks(const KernelCode &kernel, const Dim3 &block,
                                uint64_t dynamic_shared_bytes) {
  const uint64_t threads = block.count();
  if (threads == 0 || threads > max_cooperative_threads)
    return 0;
  const uint64_t warps = (threads + 31) / 32;
  uint64_t per_sm = std::min(max_blocks_per_sm, max_warps_per_sm / warps);
  const uint64_t shared =
      uint64_t(std::max<int64_t>(kernel.static_shared_bytes, 0)) + dynamic_shared_bytes;
  if (shared > 0)
    per_sm = std::min(per_sm, shared_bytes_per_sm / (shared + reserved_shared_bytes_per_block));
  return std::min(per_sm * worker_count(), max_cooperative_threads / threads);
}

void run_cooperative(LaunchState &launch) {
  const LaunchConfig &config = launch.config;
  const uint64_t limit =
      max_cooperative_blocks(launch.kernel, config.block, config.dynamic_shared_bytes);
  if (launch.block_count > limit)
    throw std::invalid_argument(
        "simt: cooperative launch too large: kernel " + launch.kernel.name +
        " uses grid sync, so all of its blocks must be resident at once, and " +
        std::to_string(launch.block_count) + " blocks exceed the " + std::to_string(limit) +
        " blocks of " + std::to_string(config.block.count()) +
        " threads that can be (see max_cooperative_grid_blocks)");
  // Every thread of the grid holds its stack until the grid finishes.
  const size_t stack_size = StackPool::stack_size_for(launch.kernel.local_frame_bytes);
  StackPool::Reservation stacks =
      StackPool::instance().reserve(launch.block_count * config.block.count(), stack_size, 1, 1,
                                    "the cooperative launch of kernel " + launch.kernel.name);
  CooperativeRunner runner(launch, stack_size);
  WorkerPool &pool = WorkerPool::instance();
  // An observer that is not thread-safe sees every block on one worker.
  const uint64_t helpers =
      launch.single_worker() ? 0 : std::min<uint64_t>(launch.block_count - 1, pool.size() - 1);
  pool.run(runner, unsigned(helpers));
}

} // namespace simt::sim
