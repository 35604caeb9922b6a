// What the checkers know of the launch they check, shared by every tool (checker/checker.h
// keeps it up to date before the tools hear of an event): the kernel, its configuration, the
// layouts of its array arguments and of the local arrays its threads made, and the names reports
// give to places in memory ("shared array `buf` (buf[3])") and to threads.
#pragma once

#include "checker/finding.h"
#include "checker/race_detector.h" // linear_block, linear_thread
#include "sim/observer.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simt::checker {

// "read", "write", "atomic": an access as reports name it.
const char *action_name(AccessType type);
AccessType access_type(codegen::AccessKind kind);
// "(1,0,0)": ids as reports print them.
std::string ids(const sim::Dim3 &d);
sim::Dim3 dim3(const int32_t (&v)[3]);
// The ids of the `linear`-th (x fastest) of `extent`.
sim::Dim3 unravel(uint64_t linear, const sim::Dim3 &extent);
// The bytes of a shared array in a launch with `dynamic_bytes` of dynamic shared memory (a
// dynamic array: as many elements as its memory holds).
int64_t shared_array_bytes(const sim::NamedArray &array, uint64_t dynamic_bytes);

class LaunchView {
public:
  // An argument array of the launch: its element layout from the header the launch passed.
  struct GlobalArray {
    const sim::NamedArray *array;
    uintptr_t data, low, high; // [low, high): every byte an element occupies
    std::vector<int64_t> shape, strides;
  };

  // `parallel`: whether its blocks may run on several workers at once (Finding::order).
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      bool parallel);
  // The layouts of the launch's array and record arguments (globals(), records()).
  void note_arguments(void *const *args);
  // A call made a local array (AccessKind::LocalArray): reports name it from now on.
  void note_local_array(const sim::ThreadContext &ctx, const sim::MemoryAccess &access);
  void block_finished(const sim::ThreadContext &block) { locals_.erase(linear_block(block)); }
  void launch_finished();

  // The kernel of the launch running (null between launches).
  const sim::KernelCode *kernel() const { return kernel_; }
  const sim::LaunchConfig &config() const { return config_; }
  bool parallel() const { return parallel_; }
  // A block's shared memory in this launch: static and dynamic.
  uint64_t shared_bytes() const {
    return uint64_t(kernel_->static_shared_bytes) + config_.dynamic_shared_bytes;
  }
  const std::vector<GlobalArray> &globals() const { return globals_; }
  // Record arguments (ndim 0): where alignment counts anew.
  const std::vector<GlobalArray> &records() const { return records_; }
  // The bytes of memory the launch's arrays span: a block's shared memory and the arguments'
  // (0 between launches).
  uint64_t spanned_bytes() const;
  // The local array an AccessKind::LocalArray event announces (null: none the kernel names).
  const sim::NamedArray *announced_local(const sim::MemoryAccess &access) const;

  // Where an access falls: "shared array `buf` (buf[3])", and the array (null: unknown memory).
  struct Place {
    std::string text;
    const sim::NamedArray *array = nullptr;
  };
  Place place(const sim::ThreadContext &ctx, uintptr_t address, MemSpace space) const;
  // "in block (0,0,0)", or "between blocks (1,0,0) and (0,0,0)".
  std::string in_blocks(const sim::ThreadContext &ctx, uint64_t other_block) const;
  sim::SourceLocation location(int32_t loc) const;
  // What the thread on `ctx` did at `loc`.
  Side side(const sim::ThreadContext &ctx, std::string action, int32_t loc) const;

private:
  // A local array one call of a thread made.
  struct LocalArray {
    uintptr_t address;
    uint64_t bytes;
    const sim::NamedArray *array;
  };

  const sim::KernelCode *kernel_ = nullptr;
  sim::LaunchConfig config_;
  bool parallel_ = false;
  std::vector<GlobalArray> globals_; // array arguments
  std::vector<GlobalArray> records_; // record arguments
  // Of the running blocks (by linear index): each thread's local arrays (by thread of the block).
  std::unordered_map<uint64_t, std::unordered_map<uint32_t, std::vector<LocalArray>>> locals_;
};

} // namespace simt::checker
