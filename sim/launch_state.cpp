#include "sim/launch_state.h"

#include <algorithm>
#include <cstdio>
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

std::optional<std::pair<uint64_t, uint64_t>> LaunchState::next_blocks(uint64_t count) {
  if (stopped())
    return std::nullopt;
  uint64_t first = next_block_.fetch_add(count, std::memory_order_relaxed);
  if (first >= block_count)
    return std::nullopt;
  return std::make_pair(first, std::min(first + count, block_count));
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

ThreadContext LaunchState::block_context() const {
  ThreadContext ctx{};
  ctx.ntid[0] = int32_t(config.block.x);
  ctx.ntid[1] = int32_t(config.block.y);
  ctx.ntid[2] = int32_t(config.block.z);
  ctx.nctaid[0] = int32_t(config.grid.x);
  ctx.nctaid[1] = int32_t(config.grid.y);
  ctx.nctaid[2] = int32_t(config.grid.z);
  ctx.dynamic_shared_bytes = int64_t(config.dynamic_shared_bytes);
  return ctx;
}

void LaunchState::place_block(ThreadContext &ctx, uint64_t index) const {
  const Dim3 &grid = config.grid;
  ctx.ctaid[0] = int32_t(index % grid.x);
  ctx.ctaid[1] = int32_t(index / grid.x % grid.y);
  ctx.ctaid[2] = int32_t(index / (uint64_t(grid.x) * grid.y));
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
