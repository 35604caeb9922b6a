#include "sim/kernel_heap.h"

#include <cstdlib>
#include <cstring>

namespace simt::sim {

std::atomic<uint64_t> KernelHeap::allocations{0}, KernelHeap::frees{0};

KernelHeap::~KernelHeap() {
  for (void *block : blocks_)
    std::free(block);
  frees += blocks_.size();
}

void *KernelHeap::allocate(int64_t bytes, bool zeroed) {
  if (bytes < 0 || bytes > limit_bytes)
    return nullptr;
  const int64_t rounded = (bytes + 15) / 16 * 16 + (bytes == 0 ? 16 : 0);
  {
    std::lock_guard lock(mutex_);
    if (held_ + rounded > limit_bytes)
      return nullptr;
    held_ += rounded;
  }
  void *block = std::aligned_alloc(16, size_t(rounded));
  if (block && zeroed)
    std::memset(block, 0, size_t(rounded));
  std::lock_guard lock(mutex_);
  if (!block)
    held_ -= rounded;
  else
    blocks_.push_back(block);
  if (block)
    ++allocations;
  return block;
}

int64_t KernelHeap::held_bytes() {
  std::lock_guard lock(mutex_);
  return held_;
}

} // namespace simt::sim
