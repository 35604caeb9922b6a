#include "sim/worker_pool.h"

#include <signal.h>

#include "config/settings.h"
#include "sim/launch_state.h"
#include "sim/stack_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>

namespace simt::sim {

namespace {
std::mutex instance_mutex;
WorkerPool *current_pool = nullptr; // guarded by instance_mutex
} // namespace

unsigned configured_worker_count() {
  if (const std::optional<long> count = config::count(config::Setting::SIMT_THREADS))
    return unsigned(std::min(*count, 4096L));
  return std::max(1u, std::thread::hardware_concurrency());
}

WorkerPool &WorkerPool::instance() {
  std::lock_guard lock(instance_mutex);
  if (current_pool == nullptr) {
    static const bool registered =
        pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0;
    (void)registered;
    // Never destroyed: the detached workers may still wait on its mutex while the process exits.
    current_pool = new WorkerPool(configured_worker_count() - 1);
  }
  return *current_pool;
}

void WorkerPool::before_fork() {
  instance_mutex.lock();
  if (current_pool != nullptr)
    current_pool->mutex_.lock();
  StackPool::instance().before_fork();
  before_fork_launch_registry();
}

void WorkerPool::after_fork_in_parent() {
  after_fork_launch_registry(/*in_child=*/false);
  StackPool::instance().after_fork_in_parent();
  if (current_pool != nullptr)
    current_pool->mutex_.unlock();
  instance_mutex.unlock();
}

void WorkerPool::after_fork_in_child() {
  after_fork_launch_registry(/*in_child=*/true);
  StackPool::instance().after_fork_in_child();
  // The old pool is left as it is (leaked): its threads are gone, its queue may name launches
  // of other threads, its mutex stays locked. The child's first launch creates a new one.
  current_pool = nullptr;
  instance_mutex.unlock();
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
  // Ctrl-C is for the application's threads: a worker that took SIGINT would leave Python's
  // main thread blocked in a read (the debugger's prompt) that Ctrl-C must interrupt. simt's
  // handler runs on whichever thread takes it and stops launches from there.
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  pthread_sigmask(SIG_BLOCK, &interrupt, nullptr);
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
