#include "sim/worker_pool.h"

#include <algorithm>
#include <cstdlib>

namespace simt::sim {

unsigned configured_worker_count() {
  if (const char *text = std::getenv("SIMT_THREADS")) {
    char *end = nullptr;
    long count = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && count >= 1)
      return unsigned(std::min(count, 4096L));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

WorkerPool &WorkerPool::instance() {
  // Never destroyed: the detached workers may still wait on its mutex while the process exits.
  static WorkerPool *pool = new WorkerPool(configured_worker_count() - 1);
  return *pool;
}

WorkerPool::WorkerPool(unsigned threads) {
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { worker_loop(); });
    threads_.back().detach();
  }
}

WorkerPool::Entry *WorkerPool::first_open_entry() {
  for (Entry *entry : queue_)
    if (entry->open_slots > 0)
      return entry;
  return nullptr;
}

void WorkerPool::worker_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    Entry *entry;
    work_available_.wait(lock, [&] { return (entry = first_open_entry()) != nullptr; });
    --entry->open_slots;
    ++entry->active;
    lock.unlock();
    entry->task->work();
    lock.lock();
    if (--entry->active == 0)
      work_finished_.notify_all();
  }
}

void WorkerPool::run(Task &task, unsigned helpers) {
  helpers = std::min(helpers, unsigned(threads_.size()));
  Entry entry{&task, helpers, 0};
  if (helpers > 0) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(&entry);
    }
    if (helpers == threads_.size())
      work_available_.notify_all();
    else
      for (unsigned i = 0; i < helpers; ++i)
        work_available_.notify_one();
  }
  // The entry lives on this stack: it must leave the queue, and its helpers finish, before return.
  auto retire = [&] {
    if (helpers == 0)
      return;
    std::unique_lock lock(mutex_);
    queue_.remove(&entry);
    work_finished_.wait(lock, [&] { return entry.active == 0; });
  };
  try {
    task.work();
  } catch (...) {
    retire();
    throw;
  }
  retire();
}

} // namespace simt::sim
