#include "sim/launch.h"

#include "sim/block_scheduler.h"
#include "sim/grid_scheduler.h"
#include "sim/launch_state.h"
#include "sim/thread_state.h"
#include "sim/worker_pool.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

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
  static constexpr std::align_val_t alignment{64}; // at least the 16 bytes CUDA guarantees
  struct Free {
    void operator()(char *p) const { ::operator delete(p, alignment); }
  };
  std::unique_ptr<char, Free> buffer_;
  uint64_t capacity_ = 0;
};

class BlockRunner final : public WorkerPool::Task {
public:
  BlockRunner(LaunchState &launch, uint64_t chunk) : launch_(launch), chunk_(chunk) {}

  void work() override {
    ThreadContext ctx = launch_.block_context();
    ThreadState state;
    state.launch = &launch_;
    ctx.runtime = &state;
    SharedMemory &shared = SharedMemory::for_this_thread();
    const KernelEntry block_entry = launch_.kernel.block_entry;
    while (auto blocks = launch_.next_blocks(chunk_)) {
      for (uint64_t index = blocks->first; index < blocks->second && !launch_.stopped(); ++index) {
        launch_.place_block(ctx, index);
        ctx.shared = shared.fresh_block(launch_.shared_bytes);
        if (block_entry != nullptr) {
          ctx.status = 0;
          block_entry(launch_.args, &ctx);
          if (ctx.status != 0)
            state.print_line.clear();
        } else {
          BlockScheduler::for_this_thread().run(launch_, ctx);
        }
      }
    }
  }

private:
  LaunchState &launch_;
  const uint64_t chunk_;
};

} // namespace

std::optional<Fault> launch(const KernelCode &kernel, const LaunchConfig &config, void **args) {
  validate(kernel, config);
  LaunchState state(kernel, config, args);
  if (kernel.cooperative) {
    run_cooperative(state);
    return state.take_fault();
  }
  WorkerPool &pool = WorkerPool::instance();
  // Chunks small enough that every worker gets many of them (the load stays balanced when blocks
  // differ in cost), large enough that claiming them costs little.
  const uint64_t chunk = std::clamp<uint64_t>(state.block_count / (8 * pool.size()), 1, 16);
  BlockRunner runner(state, chunk);
  const uint64_t helpers = std::min<uint64_t>(state.block_count - 1, pool.size() - 1);
  pool.run(runner, unsigned(helpers));
  return state.take_fault();
}

unsigned worker_count() { return WorkerPool::instance().size(); }

} // namespace simt::sim
