// Fiber stacks reused across blocks: each worker thread keeps the stacks its fibers used, so
// creating a fiber costs a pop from a free list instead of an mmap.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace simt::sim {

class StackPool {
public:
  // Usable bytes per stack; pages are committed only when touched (MAP_NORESERVE).
  static constexpr size_t stack_size = 256 * 1024;

  StackPool() = default;
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;
  ~StackPool();

  // The calling thread's pool. Fibers run on the thread that created them, so a stack always
  // returns to the pool it came from.
  static StackPool &for_this_thread();

  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context &stack);

  size_t cached() const { return free_.size(); }
  // Unmaps the cached stacks beyond `keep` (a cooperative launch may have used many more than
  // ordinary blocks need; every stack costs two of the process's limited memory mappings).
  void trim(size_t keep);

private:
  std::vector<void *> free_; // the lowest address (guard page) of each cached mapping
};

// The StackAllocator Boost.Context expects, drawing from a StackPool.
class PooledStackAllocator {
public:
  explicit PooledStackAllocator(StackPool &pool) : pool_(&pool) {}
  boost::context::stack_context allocate() { return pool_->allocate(); }
  void deallocate(boost::context::stack_context &stack) { pool_->deallocate(stack); }

private:
  StackPool *pool_;
};

} // namespace simt::sim
