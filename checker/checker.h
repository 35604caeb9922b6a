// `simt check`: one observer of the simulator's launches that runs the checkers a user asked for
// (racecheck, initcheck, synccheck, memcheck) on kernels compiled with the checkers'
// instrumentation (Instrumentation::Check), and the schedule their threads and blocks run in.
// With racecheck or a schedule, launches it observes run on one worker, one block after another
// (cooperative launches: all resident blocks on that worker); without, on every worker.
#pragma once

#include "checker/finding.h"
#include "checker/init_tracker.h"
#include "checker/race_detector.h"
#include "checker/schedule.h"
#include "checker/spin_lock.h"
#include "sim/observer.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace simt::checker {

struct CheckOptions {
  bool race = true, init = true, sync = true, mem = true;
  ScheduleKind schedule = ScheduleKind::InOrder;
  uint64_t seed = 0;
};

// A checker could not allocate its shadow memory: a std::bad_alloc (Python's MemoryError) whose
// message names the tool and the memory it needed.
class ShadowOutOfMemory : public std::bad_alloc {
public:
  explicit ShadowOutOfMemory(std::string message) : message_(std::move(message)) {}
  const char *what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

class Checker final : public sim::Observer {
public:
  explicit Checker(const CheckOptions &options);
  const CheckOptions &options() const { return options_; }
  // The hooks of a launch this checker observes.
  sim::LaunchHooks hooks();

  // Device memory the host allocated for kernels (device_array and its kin): poisoned and
  // tracked by initcheck until freed(); use after freed() is a memcheck error until forgotten.
  // `itemsize`: the elements' (records': dtype U8); `host_scanned`: see InitTracker::track.
  // allocated() and freed() throw ShadowOutOfMemory when the tracking's memory runs out
  // (allocated() then tracks nothing of it).
  void allocated(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                 bool host_scanned);
  // The host wrote [address, address + bytes) of device memory (a copy to the device).
  void written(uintptr_t address, uint64_t bytes);
  void freed(uintptr_t address, uint64_t bytes);
  void forget(uintptr_t address, uint64_t bytes);

  const Findings &findings() const { return findings_; }
  // The most shadow memory racecheck has held at once, in bytes.
  uint64_t peak_shadow_bytes() const { return peak_shadow_bytes_; }
  // After a launch of `kernel`: throws ShadowOutOfMemory when a checker ran out of memory during
  // it. Hooks cannot throw (they run in the launch's workers): the checking stopped there, the
  // kernel ran to its end, and racecheck's shadow was given back.
  void throw_if_out_of_memory(const std::string &kernel);

  bool stops_threads() const override { return false; }
  // Without racecheck (whose shadow one worker keeps), blocks may run on several workers.
  bool thread_safe() const override { return !options_.race; }
  const sim::WatchedPages *watched_pages() const override;
  // initcheck: which bytes of shared memory a block has written, marked by the kernel itself.
  bool tracks_shared_writes() const override { return options_.init; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &fault) override;
  void block_started(const sim::ThreadContext &block) override;
  void block_finished(const sim::ThreadContext &block) override;
  bool memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) override;
  void barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool grid) override;
  void barrier_released(const sim::ThreadContext &block, int32_t loc, bool grid) override;
  void undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                         uint32_t mask, int32_t loc) override;
  void warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask,
                       int32_t loc) override;
  bool fault(sim::ThreadContext &ctx, const sim::Fault &fault) override;

private:
  // An argument array of the launch: its element layout from the header the launch passed.
  struct GlobalArray {
    const sim::NamedArray *array;
    uintptr_t data, low, high; // [low, high): every byte an element occupies
    std::vector<int64_t> shape, strides;
  };
  // A local array one call of a thread made.
  struct LocalArray {
    uintptr_t address;
    uint64_t bytes;
    const sim::NamedArray *array;
  };
  // Where an access falls: "shared array `buf` (buf[3])", and the array (null: unknown memory).
  struct Place {
    std::string text;
    const sim::NamedArray *array = nullptr;
  };
  Place place(const sim::ThreadContext &ctx, uintptr_t address, MemSpace space) const;
  std::string in_blocks(const sim::ThreadContext &ctx, uint64_t other_block) const;
  sim::SourceLocation location(int32_t loc) const;
  // A block's shared memory in this launch: static and dynamic.
  uint64_t shared_bytes() const {
    return uint64_t(kernel_->static_shared_bytes) + config_.dynamic_shared_bytes;
  }
  Side side(const sim::ThreadContext &ctx, std::string action, int32_t loc) const;
  // A finding of the thread on `ctx` (null: of the launch, after its blocks).
  void add(const sim::ThreadContext *ctx, Tool tool, Severity severity, std::string kind,
           std::string subject, std::vector<Side> sides);
  void check_init(sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  void check_memory(sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  void check_race(sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  // Memcheck: watches the pages of an argument whose accesses may be misaligned.
  void watch_alignment(const GlobalArray &global);
  // At a launch's start: the layouts of its array and record arguments (globals_, records_).
  void note_arguments(const sim::KernelCode &kernel, void *const *args);
  // A call made a local array (AccessKind::LocalArray): initcheck tracks it.
  void note_local_array(const sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  // Runs `work`, a part of `tool`'s checking, unless the checking stopped; a std::bad_alloc in
  // it stops the launch's checking (ran_out).
  template <typename Work> void run(Tool tool, Work &&work) noexcept;
  // Records what `tool` held and needed when it ran out of memory (allocating nothing).
  void ran_out(Tool tool) noexcept;
  // The message of `tool` running out of memory while `doing`, which needs `needed` bytes of
  // shadow memory (0: unknown), holding `held`; `then` says what happened next.
  static std::string out_of_memory_text(Tool tool, const std::string &doing, uint64_t needed,
                                        uint64_t held, const char *then = "");

  CheckOptions options_;
  Schedule schedule_;
  sim::Observer *observers_[1] = {this};
  Findings findings_;
  RaceDetector races_;
  // The pages whose accesses initcheck and memcheck need (racecheck needs every access): the
  // trackers' watched states, arguments that may be misaligned.
  sim::WatchedPages watched_;
  std::vector<uintptr_t> alignment_watched_; // pages watched for this launch's arguments
  InitTracker device_;                       // device arrays, from allocation to release
  InitTracker scratch_;                      // local arrays, for one launch
  uint64_t peak_shadow_bytes_ = 0;
  bool any_freed_ = false; // device memory was freed: accesses are looked up
  // A checker ran out of memory in this launch: checking stopped (ran_out).
  std::atomic<bool> out_of_memory_{false};
  struct {
    Tool tool = Tool::Race;
    uint64_t needed = 0, held = 0, arrays = 0; // `arrays`: the bytes the launch's arrays span
  } shortage_;

  const sim::KernelCode *kernel_ = nullptr;
  sim::LaunchConfig config_;
  std::vector<GlobalArray> globals_; // array arguments
  std::vector<GlobalArray> records_; // record arguments (ndim 0): where alignment counts anew
  bool barrier_released_ = false;    // in this launch
  // Synccheck: where a thread of a block waits at a barrier, as of which of the block's releases
  // (older waits are over), to name both sides of a divergent barrier.
  struct Wait {
    int32_t loc = -1;
    uint64_t release = ~uint64_t(0);
  };
  // What the checkers know of a running block (several run at once in cooperative launches and
  // on several workers).
  struct Block {
    std::unordered_map<uint32_t, std::vector<LocalArray>> locals; // by thread of the block
    std::vector<Wait> waiting;                                    // by thread of the block
    uint64_t barriers_released = 0;
    uint64_t findings = 0; // found in the block so far
  };
  Block &block(const sim::ThreadContext &ctx);
  std::unordered_map<uint64_t, Block> blocks_; // by linear index
  // Whether this launch's blocks may run on several workers at once (Finding::order).
  bool parallel_ = false;
  uint64_t launches_ = 0, findings_in_launch_ = 0;
  // The hooks of a launch on several workers take turns (a launch on one needs no lock).
  SpinLock turn_;
  std::unique_lock<SpinLock> take_turn() {
    return parallel_ ? std::unique_lock(turn_) : std::unique_lock<SpinLock>();
  }
};

// An element's text as NumPy prints it ("1.5", "-3", "True"), from its bits.
std::string format_value(uint64_t bits, Scalar dtype);

} // namespace simt::checker
