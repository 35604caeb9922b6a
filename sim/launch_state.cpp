#include "sim/launch_state.h"

#include <utility>

namespace simt::sim {

LaunchState::LaunchState(const KernelCode &kernel, const LaunchConfig &config, void **args)
    : kernel(kernel), config(config), args(args), block_count(config.grid.count()),
      shared_bytes(uint64_t(kernel.static_shared_bytes) + config.dynamic_shared_bytes) {}

std::optional<uint64_t> LaunchState::next_block() {
  if (stopped())
    return std::nullopt;
  uint64_t block = next_block_.fetch_add(1, std::memory_order_relaxed);
  if (block >= block_count)
    return std::nullopt;
  return block;
}

void LaunchState::record_fault(ThreadContext *ctx, std::string exception, std::string message,
                               int32_t loc) {
  ctx->status = 1;
  std::lock_guard lock(fault_mutex_);
  stopped_.store(true, std::memory_order_relaxed);
  if (fault_)
    return;
  fault_ = Fault{std::move(exception), std::move(message),
                 Dim3{uint32_t(ctx->tid[0]), uint32_t(ctx->tid[1]), uint32_t(ctx->tid[2])},
                 Dim3{uint32_t(ctx->ctaid[0]), uint32_t(ctx->ctaid[1]), uint32_t(ctx->ctaid[2])},
                 location(loc)};
}

SourceLocation LaunchState::location(int32_t loc) const {
  if (loc < 0 || size_t(loc) >= kernel.locations.size())
    return {};
  return kernel.locations[size_t(loc)];
}

std::optional<Fault> LaunchState::take_fault() {
  std::lock_guard lock(fault_mutex_);
  return std::exchange(fault_, std::nullopt);
}

} // namespace simt::sim
