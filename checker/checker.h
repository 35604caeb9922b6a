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

#include <cstdint>
#include <map>
#include <mutex>
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

class Checker final : public sim::Observer {
public:
  explicit Checker(const CheckOptions &options);
  const CheckOptions &options() const { return options_; }
  // The hooks of a launch this checker observes.
  sim::LaunchHooks hooks();

  // Device memory the host allocated for kernels (device_array and its kin): poisoned and
  // tracked by initcheck until freed(); use after freed() is a memcheck error until forgotten.
  // `itemsize`: the elements' (records': dtype U8); `host_scanned`: see InitTracker::track.
  void allocated(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                 bool host_scanned);
  // The host wrote [address, address + bytes) of device memory (a copy to the device).
  void written(uintptr_t address, uint64_t bytes);
  void freed(uintptr_t address, uint64_t bytes);
  void forget(uintptr_t address, uint64_t bytes);

  const Findings &findings() const { return findings_; }
  // The most shadow memory racecheck has held at once, in bytes.
  uint64_t peak_shadow_bytes() const { return peak_shadow_bytes_; }

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
