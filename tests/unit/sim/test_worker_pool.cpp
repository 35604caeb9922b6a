#include "sim/worker_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

using namespace simt::sim;

namespace {
// Takes items from a shared counter, as a launch takes blocks.
class CountingTask final : public WorkerPool::Task {
public:
  explicit CountingTask(int items) : items_(items) {}
  void work() override {
    calls.fetch_add(1);
    while (next_.fetch_add(1) < items_)
      done.fetch_add(1);
  }
  std::atomic<int> calls{0}, done{0};

private:
  const int items_;
  std::atomic<int> next_{0};
};

struct ScopedEnv {
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (saved.empty())
      unsetenv(name);
    else
      setenv(name, saved.c_str(), 1);
  }
  const char *name;
  std::string saved;
};
} // namespace

TEST_CASE("SIMT_THREADS overrides the number of workers") {
  {
    ScopedEnv env("SIMT_THREADS", "3");
    CHECK(configured_worker_count() == 3);
  }
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (const char *invalid : {"0", "-2", "many", ""}) {
    ScopedEnv env("SIMT_THREADS", invalid);
    CHECK(configured_worker_count() == cores);
  }
}

TEST_CASE("the pool runs a task on the caller and its helpers until the work is done") {
  WorkerPool &pool = WorkerPool::instance();
  for (unsigned helpers : {0u, 1u, pool.size() + 5}) {
    CountingTask task(10000);
    pool.run(task, helpers);
    CHECK(task.done.load() == 10000);
    CHECK(task.calls.load() >= 1);
    CHECK(unsigned(task.calls.load()) <= std::min(helpers, pool.size() - 1) + 1);
  }
}
