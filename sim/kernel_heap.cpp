#include "sim/kernel_heap.h"

#include <cstdlib>
#include <cstring>

namespace simt::sim {

std::atomic<uint64_t> KernelHeap::allocations{0}, KernelHeap::frees{0};

KernelHeap::~KernelHeap() {
  for (auto &[block, arrays] : by_block_) {
    for (auto [data, bytes] : arrays)
      std::free(data);
    frees += arrays.size();
  }
}

void *KernelHeap::allocate(int64_t bytes, bool zeroed, uint64_t block) {
  if (bytes < 0 || bytes > limit_bytes)
    return nullptr;
  const int64_t rounded = (bytes + 15) / 16 * 16 + (bytes == 0 ? 16 : 0);
  {
    std::lock_guard lock(mutex_);
    if (held_ + rounded > limit_bytes)
      return nullptr;
    held_ += rounded;
  }
  void *data = std::aligned_alloc(16, size_t(rounded));
  if (data && zeroed)
    std::memset(data, 0, size_t(rounded));
  std::lock_guard lock(mutex_);
  if (!data) {
    held_ -= rounded;
    return nullptr;
  }
  by_block_[block].emplace_back(data, rounded);
  used_.store(true, std::memory_order_relaxed);
  ++allocations;
  return data;
}

void KernelHeap::release_block(uint64_t block) {
  if (!used_.load(std::memory_order_relaxed))
    return;
  std::vector<std::pair<void *, int64_t>> arrays;
  {
    std::lock_guard lock(mutex_);
    auto found = by_block_.find(block);
    if (found == by_block_.end())
      return;
    arrays = std::move(found->second);
    by_block_.erase(found);
    for (auto [data, bytes] : arrays)
      held_ -= bytes;
  }
  for (auto [data, bytes] : arrays)
    std::free(data);
  frees += arrays.size();
}

int64_t KernelHeap::held_bytes() {
  std::lock_guard lock(mutex_);
  return held_;
}

} // namespace simt::sim
