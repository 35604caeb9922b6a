#include "sim/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace simt::sim {

namespace {
size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// One mapping: a PROT_NONE guard page below the usable stack, so an overflow faults instead of
// corrupting the neighbouring stack.
void *map_stack() {
  size_t total = StackPool::stack_size + page_size();
  void *base = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    throw std::bad_alloc();
  if (mprotect(static_cast<char *>(base) + page_size(), StackPool::stack_size,
               PROT_READ | PROT_WRITE) != 0) {
    munmap(base, total);
    throw std::bad_alloc();
  }
  return base;
}
} // namespace

StackPool::~StackPool() {
  for (void *base : free_)
    munmap(base, stack_size + page_size());
}

void StackPool::trim(size_t keep) {
  while (free_.size() > keep) {
    munmap(free_.back(), stack_size + page_size());
    free_.pop_back();
  }
}

StackPool &StackPool::for_this_thread() {
  thread_local StackPool pool;
  return pool;
}

boost::context::stack_context StackPool::allocate() {
  void *base;
  if (free_.empty()) {
    base = map_stack();
  } else {
    base = free_.back();
    free_.pop_back();
  }
  boost::context::stack_context stack;
  stack.size = stack_size;
  stack.sp = static_cast<char *>(base) + page_size() + stack_size; // stacks grow down
  return stack;
}

void StackPool::deallocate(boost::context::stack_context &stack) {
  free_.push_back(static_cast<char *>(stack.sp) - stack_size - page_size());
}

} // namespace simt::sim
