#include "sim/launch.h"

#include "sim/block_scheduler.h"
#include "sim/fiber_switch.h"
#include "sim/grid_scheduler.h"
#include "sim/launch_state.h"
#include "sim/stack_pool.h"
#include "sim/thread_state.h"
#include "sim/worker_pool.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace simt::sim {

namespace {

constexpr uint64_t max_threads_per_block = 1024;
constexpr uint32_t max_block_dim[3] = {1024, 1024, 64};
constexpr uint64_t max_grid_dim[3] = {(uint64_t(1) << 31) - 1, 65535, 65535};
// Hopper's opt-in maximum of shared memory per block (227 KiB).
constexpr uint64_t max_shared_bytes = 227 * 1024;

std::string describe(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

void check_dims(const char *what, const Dim3 &dims, const uint64_t (&limits)[3]) {
  const uint32_t values[3] = {dims.x, dims.y, dims.z};
  const char names[3] = {'x', 'y', 'z'};
  for (int i = 0; i < 3; ++i)
    if (values[i] > limits[i])
      throw std::invalid_argument(std::string("simt: ") + what + " dimension " + names[i] + "=" +
                                  std::to_string(values[i]) + " exceeds the limit of " +
                                  std::to_string(limits[i]));
}

void validate(const KernelCode &kernel, const LaunchConfig &config) {
  if (kernel.block_entry == nullptr && kernel.thread_entry == nullptr)
    throw std::invalid_argument("simt: kernel " + kernel.name + " has no compiled entry point");
  const Dim3 &grid = config.grid, &block = config.block;
  if (grid.count() == 0 || block.count() == 0)
    throw std::invalid_argument("simt: launch configuration has a zero dimension: grid=" +
                                describe(grid) + " block=" + describe(block));
  if (block.count() > max_threads_per_block)
    throw std::invalid_argument("simt: " + std::to_string(block.count()) +
                                " threads per block exceeds the limit of " +
                                std::to_string(max_threads_per_block));
  const uint64_t block_limits[3] = {max_block_dim[0], max_block_dim[1], max_block_dim[2]};
  check_dims("block", block, block_limits);
  check_dims("grid", grid, max_grid_dim);
  // cuda.grid() is int32 arithmetic the compiler may assume does not wrap (ir::Expr::no_wrap).
  const uint64_t grid_dims[3] = {grid.x, grid.y, grid.z},
                 block_dims[3] = {block.x, block.y, block.z};
  for (int i = 0; i < 3; ++i)
    if (grid_dims[i] * block_dims[i] > uint64_t(INT32_MAX))
      throw std::invalid_argument(
          std::string("simt: ") + std::to_string(grid_dims[i] * block_dims[i]) + " threads along " +
          "xyz"[i] + " (grid " + std::to_string(grid_dims[i]) + " x block " +
          std::to_string(block_dims[i]) + ") are not supported yet: at most 2**31 - 1");
  if (kernel.static_shared_bytes < 0)
    throw std::invalid_argument("simt: kernel " + kernel.name + " has negative shared memory");
  const uint64_t shared = uint64_t(kernel.static_shared_bytes) + config.dynamic_shared_bytes;
  if (config.dynamic_shared_bytes > max_shared_bytes || shared > max_shared_bytes)
    throw std::invalid_argument("simt: " + std::to_string(shared) +
                                " bytes of shared memory per block exceeds the limit of " +
                                std::to_string(max_shared_bytes));
}

// A worker's shared memory, kept between blocks and zero-filled for each.
class SharedMemory {
public:
  static SharedMemory &for_this_thread() {
    thread_local SharedMemory memory;
    return memory;
  }

  char *fresh_block(uint64_t bytes) {
    if (bytes == 0)
      return nullptr;
    if (bytes > capacity_) {
      buffer_.reset(static_cast<char *>(::operator new(bytes, alignment)));
      capacity_ = bytes;
    }
    std::memset(buffer_.get(), 0, bytes);
    return buffer_.get();
  }

private:
  // At least the 16 bytes CUDA guarantees; alignment= of shared arrays is relative to it.
  static constexpr std::align_val_t alignment{ir::max_array_alignment};
  struct Free {
    void operator()(char *p) const { ::operator delete(p, alignment); }
  };
  std::unique_ptr<char, Free> buffer_;
  uint64_t capacity_ = 0;
};

// Fiber stacks each worker of a launch holds: one per thread of a block in fiber mode, one for the
// block loop of a flat kernel with large local arrays, else none.
uint64_t stacks_per_worker(const KernelCode &kernel, const LaunchConfig &config) {
  if (kernel.block_entry == nullptr)
    return config.block.count();
  return kernel.local_frame_bytes > max_frame_on_worker_stack ? 1 : 0;
}

class BlockRunner final : public WorkerPool::Task {
public:
  BlockRunner(LaunchState &launch, uint64_t chunk, uint64_t stacks_per_worker)
      : launch_(launch), chunk_(chunk), stacks_per_worker_(stacks_per_worker),
        stack_size_(StackPool::stack_size_for(launch.kernel.local_frame_bytes)) {}

  void work() override {
    ThreadContext ctx = launch_.block_context();
    ThreadState state;
    state.launch = &launch_;
    state.context = &ctx;
    ctx.runtime = &state;
    if (stacks_per_worker_ == 0) {
      run_blocks(ctx, state, nullptr);
      return;
    }
    catch_stack_overflow();
    std::optional<StackLease> stacks;
    try {
      stacks.emplace(stacks_per_worker_, stack_size_);
    } catch (const std::bad_alloc &) {
      launch_.record_fault(&ctx, "MemoryError",
                           "simt: out of memory for " + std::to_string(stacks_per_worker_) +
                               " fiber stacks of " + std::to_string(stack_size_ >> 10) + " KiB",
                           -1, codegen::FaultKind::Resource);
      return;
    }
    if (launch_.kernel.block_entry == nullptr) {
      run_blocks(ctx, state, &*stacks);
      return;
    }
    // A flat kernel with large local arrays: the block loop runs on a stack known to be big
    // enough, as one fiber that finishes before work() returns.
    create_fiber(state, (*stacks)[0], [&] { run_blocks(ctx, state, nullptr); });
    resume_fiber(state);
  }

private:
  void run_blocks(ThreadContext &ctx, ThreadState &state, const StackLease *stacks) {
    SharedMemory &shared = SharedMemory::for_this_thread();
    const bool flat = launch_.kernel.block_entry != nullptr;
    while (auto blocks = launch_.next_blocks(chunk_)) {
      const KernelEntry block_entry = flat ? launch_.entry() : nullptr;
      BlockOrder *order = launch_.block_order();
      launch_.place_block(ctx,
                          order ? order->block(blocks->first, launch_.block_count) : blocks->first);
      for (uint64_t index = blocks->first; index < blocks->second && !launch_.stopped(); ++index) {
        if (index != blocks->first) {
          if (order != nullptr)
            launch_.place_block(ctx, order->block(index, launch_.block_count));
          else
            launch_.next_block_place(ctx);
        }
        ctx.shared = shared.fresh_block(launch_.shared_allocation_bytes());
        launch_.notify([&](Observer &o) { o.block_started(ctx); });
        if (block_entry != nullptr) {
          ctx.status = 0;
          block_entry(launch_.args, &ctx);
          if (ctx.status != 0)
            state.print_line.clear();
        } else {
          BlockScheduler::for_this_thread().run(launch_, ctx, *stacks);
        }
        launch_.notify([&](Observer &o) { o.block_finished(ctx); });
        launch_.heap.release_block(linear_block(ctx.ctaid, ctx.nctaid)); // its arrays are dead
      }
    }
  }

  LaunchState &launch_;
  const uint64_t chunk_;
  const uint64_t stacks_per_worker_;
  const size_t stack_size_;
};

// Runs every block of the launch on the worker pool (cooperative launches: all resident).
std::optional<Fault> run_launch(LaunchState &state) {
  const KernelCode &kernel = state.kernel;
  const LaunchConfig &config = state.config;
  if (kernel.cooperative) {
    run_cooperative(state);
    return state.take_fault();
  }
  WorkerPool &pool = WorkerPool::instance();
  // Chunks small enough that every worker gets many of them (the load stays balanced when blocks
  // differ in cost), large enough that claiming them costs little.
  const uint64_t chunk = std::clamp<uint64_t>(state.block_count / (8 * pool.size()), 1, 16);
  const uint64_t per_worker = stacks_per_worker(kernel, config);
  const uint64_t workers =
      std::min<uint64_t>(state.block_count, state.single_worker() ? 1 : pool.size());
  // As many workers as the fiber-stack budget allows take part (sim/stack_pool.h).
  StackPool::Reservation stacks = StackPool::instance().reserve(
      per_worker, StackPool::stack_size_for(kernel.local_frame_bytes), 1, unsigned(workers),
      "a launch of kernel " + kernel.name + " with " + std::to_string(config.block.count()) +
          " threads per block");
  BlockRunner runner(state, chunk, per_worker);
  pool.run(runner, stacks.workers() - 1);
  return state.take_fault();
}

thread_local uint64_t last_launch_undefined_shuffles = 0;
thread_local std::vector<OutOfBounds> last_launch_out_of_bounds;

} // namespace

uint64_t undefined_shuffles_of_last_launch() { return last_launch_undefined_shuffles; }

std::vector<OutOfBounds> take_out_of_bounds_of_last_launch() {
  return std::exchange(last_launch_out_of_bounds, {});
}

std::optional<Fault> launch(const KernelCode &kernel, const LaunchConfig &config, void **args,
                            const LaunchHooks &hooks) {
  validate(kernel, config);
  LaunchState state(kernel, config, args, hooks);
  for (Observer *observer : hooks.observers)
    observer->launch_started(kernel, config, args);
  std::optional<Fault> fault = run_launch(state);
  last_launch_undefined_shuffles = state.undefined_shuffles.load();
  last_launch_out_of_bounds = state.take_out_of_bounds();
  for (Observer *observer : hooks.observers)
    observer->launch_finished(fault);
  return fault;
}
unsigned worker_count() { return WorkerPool::instance().size(); }

} // namespace simt::sim
