// A persistent pool of worker threads, one per core (SIMT_THREADS overrides), shared by every
// launch of the process. A child process made by fork() gets a fresh pool on its first launch:
// the parent's workers do not exist there, and its launches' state may be caught mid-change.
#pragma once

#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace simt::sim {

class WorkerPool {
public:
  // Work that several threads run at once, each call taking its share until none is left.
  class Task {
  public:
    virtual void work() = 0;

  protected:
    ~Task() = default;
  };

  // The process's pool, created on first use (again in a forked child).
  static WorkerPool &instance();

  // Workers available to one launch: the pool's threads plus the launching thread.
  unsigned size() const { return unsigned(threads_.size()) + 1; }

  // Runs task.work() on the calling thread and on up to `helpers` pool threads, and returns once
  // every one of those calls has returned. Several threads may call run() at once.
  void run(Task &task, unsigned helpers);

private:
  struct Entry {
    Task *task;
    unsigned open_slots; // pool threads that may still join
    unsigned active;     // pool threads running task->work()
  };

  explicit WorkerPool(unsigned threads);
  // pthread_atfork handlers: no pool or stack-pool lock is held across fork(); the child drops
  // the parent's pool.
  static void before_fork();
  static void after_fork_in_parent();
  static void after_fork_in_child();
  void worker_loop();
  Entry *first_open_entry();

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::condition_variable work_finished_;
  std::list<Entry *> queue_;
  std::vector<std::thread> threads_;
};

// SIMT_THREADS when set to a positive number, else the number of cores.
unsigned configured_worker_count();

} // namespace simt::sim
