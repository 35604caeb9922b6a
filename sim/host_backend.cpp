#include "sim/host_backend.h"

#include "config/settings.h"
#include "sim/jit.h"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace simt::sim {

struct TierUp final : CodeUpgrade, std::enable_shared_from_this<TierUp> {
  // Takes over what keeps `quick`'s code mapped (quick_code, made before `full` copies the rest):
  // it is freed once the full code replaces it.
  TierUp(UnoptimisedModule kernel, KernelCode &quick, std::chrono::nanoseconds after)
      : kernel(std::move(kernel)), after(after), quick_code(std::move(quick.keep_alive)),
        full(quick) {}
  const UnoptimisedModule kernel;       // compiled again at its full level
  const std::chrono::nanoseconds after; // of launches at the Quick tier before the recompile
  std::atomic<int64_t> run_ns{0};       // of the launches that have finished
  std::atomic<bool> queued{false};
  std::mutex quick_mutex;
  std::shared_ptr<const void> quick_code; // null once `ready`; launches of it hold a copy
  KernelCode full; // the Quick code's, its entry, tier and code replaced before `ready` is set
  std::atomic<bool> ready{false};

  // The Quick code for a launch to hold while it runs, or null once the full code replaced it.
  std::shared_ptr<const void> pin_quick() {
    std::lock_guard<std::mutex> lock(quick_mutex);
    return quick_code;
  }

  // Queues the recompile on the background thread, once.
  void queue();

  // A launch of Quick code that has run `ran` queues the recompile once the kernel's launches
  // have run `after` in all, and switches to the full code when it is ready.
  KernelEntry poll(std::chrono::nanoseconds ran) override {
    if (ready.load(std::memory_order_acquire))
      return full.entry();
    if (run_ns.load(std::memory_order_relaxed) + ran.count() >= after.count())
      queue();
    return nullptr;
  }
};

namespace {

enum class TierMode { Auto, Quick, Full };

TierMode tier_mode() {
  const std::string mode = config::text(config::Setting::SIMT_OPT_TIER);
  if (mode == "auto")
    return TierMode::Auto;
  if (mode == "quick")
    return TierMode::Quick;
  if (mode == "full")
    return TierMode::Full;
  throw std::invalid_argument("simt: SIMT_OPT_TIER must be auto, quick or full, not '" + mode +
                              "'");
}

std::chrono::nanoseconds tier_up_after() {
  const std::optional<double> ms = config::number(config::Setting::SIMT_TIER_UP_MS);
  if (!ms)
    throw std::invalid_argument(std::string("simt: SIMT_TIER_UP_MS must be a number of "
                                            "milliseconds, not '") +
                                config::raw(config::Setting::SIMT_TIER_UP_MS) + "'");
  return std::chrono::nanoseconds(int64_t(std::min(*ms, 1e12) * 1e6)); // 1e12 ms: never
}

// The one background thread that recompiles kernels at their full level, started by the first
// recompile. It runs LLVM only, never Python. stop() drops what is queued and waits for the
// compile in progress: it must run before the process's static objects are destroyed, as the
// compile may use statics made after this one (first used by that very compile), which exit()
// destroys first; the destructor stops it too, for programs that never call stop(). A fork waits
// for the compile in progress, so that no lock of the JIT or LLVM is held in the child, which
// starts without the thread.
class TierUpWorker {
public:
  // Made by the first recompile, after the JIT it uses.
  static TierUpWorker &instance() {
    static TierUpWorker worker;
    started.store(&worker);
    return worker;
  }
  static inline std::atomic<TierUpWorker *> started{nullptr};

  void submit(std::shared_ptr<TierUp> job) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
      return; // the kernel keeps its Quick code
    queue_.push_back(std::move(job));
    if (!thread_)
      thread_ = std::make_unique<std::thread>([this] { run(); });
    wake_.notify_one();
  }

  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      queue_.clear();
    }
    wake_.notify_one();
    if (thread_ && thread_->joinable())
      thread_->join();
  }

  ~TierUpWorker() { stop(); }

  TierUpWorker(const TierUpWorker &) = delete;
  TierUpWorker &operator=(const TierUpWorker &) = delete;

  // Compiles `job` at its full level (queued once: TierUp::queue).
  static void recompile(TierUp &job) {
    try {
      FullCode code = jit_compile_full(job.kernel);
      job.full.entry() = code.entry;
      job.full.keep_alive = std::move(code.keep_alive);
      job.full.tier = Tier::Full;
      job.ready.store(true, std::memory_order_release);
      std::shared_ptr<const void> quick; // freed out of the lock, unless a launch still runs it
      {
        std::lock_guard<std::mutex> lock(job.quick_mutex);
        quick.swap(job.quick_code);
      }
    } catch (const std::exception &error) {
      // The Quick code stays: it gives the same results.
      std::fprintf(stderr, "simt: warning: recompiling kernel %s at its full level failed: %s\n",
                   job.kernel.name.c_str(), error.what());
    }
  }

private:
  TierUpWorker() {
    pthread_atfork([] { instance().before_fork(); }, [] { instance().mutex_.unlock(); },
                   [] { instance().in_child(); });
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      std::shared_ptr<TierUp> job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      if (job.use_count() > 1) // else the kernel is gone
        recompile(*job);
      job.reset();
      lock.lock();
      busy_ = false;
      idle_.notify_all();
    }
  }

  // Holds the lock until the fork is done, with no recompile running.
  void before_fork() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !busy_; });
    lock.release();
  }

  void in_child() {
    (void)thread_.release(); // the parent's thread: not in this process
    queue_.clear();
    mutex_.unlock();
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::shared_ptr<TierUp>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::unique_ptr<std::thread> thread_;
};

} // namespace

void TierUp::queue() {
  if (!queued.exchange(true))
    TierUpWorker::instance().submit(shared_from_this());
}

std::optional<Fault> HostExecutable::launch(const LaunchConfig &config, void **args,
                                            const LaunchHooks &hooks) {
  const KernelCode &code = this->code();
  if (code.tier == Tier::Full || tier_up_ == nullptr)
    return sim::launch(code, config, args, hooks);
  // A launch this large is long enough to repay the recompile within itself: it is queued at
  // once, and the launch's blocks switch to the full code when it is ready.
  constexpr uint64_t kRecompileAtOnceThreads = uint64_t(1) << 20;
  if (config.grid.count() * config.block.count() >= kRecompileAtOnceThreads)
    tier_up_->queue();
  const std::shared_ptr<const void> quick = tier_up_->pin_quick(); // mapped while this runs
  if (quick == nullptr) // the full code replaced it since code()
    return sim::launch(tier_up_->full, config, args, hooks);
  LaunchHooks upgrading = hooks;
  upgrading.upgrade = tier_up_.get();
  const auto start = std::chrono::steady_clock::now();
  std::optional<Fault> fault = sim::launch(code, config, args, upgrading);
  const int64_t ran = (std::chrono::steady_clock::now() - start).count();
  if (tier_up_->run_ns.fetch_add(ran) + ran >= tier_up_->after.count())
    tier_up_->queue();
  return fault;
}

const KernelCode &HostExecutable::code() const {
  if (tier_up_ != nullptr && tier_up_->ready.load(std::memory_order_acquire))
    return tier_up_->full;
  return code_;
}

std::unique_ptr<codegen::Executable> HostBackend::compile(const ir::Module &module,
                                                          const std::vector<std::string> &link) {
  for (const std::string &library : link)
    if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
      throw std::runtime_error("simt: cannot load " + library + ": " + dlerror());
  const TierMode mode = tier_mode();
  const CompileOptions &options = module.options;
  const bool tiered = mode != TierMode::Full && options.instrumentation == Instrumentation::None &&
                      !options.fastmath && options.opt_level > 0;
  UnoptimisedModule unoptimised;
  KernelCode code = jit_compile(module, tiered ? Tier::Quick : Tier::Full, &unoptimised, options_);
  std::shared_ptr<TierUp> tier_up;
  if (code.tier == Tier::Quick && mode == TierMode::Auto)
    tier_up = std::make_shared<TierUp>(std::move(unoptimised), code, tier_up_after());
  return std::make_unique<HostExecutable>(std::move(code), std::move(tier_up));
}

void stop_tier_ups() {
  if (TierUpWorker *worker = TierUpWorker::started.load())
    worker->stop();
}

void finish_tier_ups() {
  if (TierUpWorker *worker = TierUpWorker::started.load())
    worker->wait_idle();
}

} // namespace simt::sim
