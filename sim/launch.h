// Launching a compiled kernel on the simulator: blocks over a worker pool, threads as a flat loop
// or as fibers, and the first fault of the launch reported back.
#pragma once

#include "codegen/backend.h"
#include "codegen/frame_layout.h"
#include "sim/abi.h"
#include "sim/kernel_plan.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace simt::sim {

using codegen::Dim3;
using codegen::Fault;
using codegen::LaunchConfig;
using SourceLocation = codegen::CodeLocation;

// How much work the JIT put into a kernel's code (sim/jit.h). Both tiers give the same results.
enum class Tier : uint8_t {
  Quick, // a few cheap passes and LLVM's fast instruction selector: compiles in milliseconds
  Full,  // the kernel's CompileOptions::opt_level (O3 by default) and full code generation
};

// An array that checkers name in their reports (instrumented kernels only): a kernel parameter,
// whose ArrayHeader is the launch's args[parameter] (a record parameter, ndim 0: the address of
// its bytes), or a shared or local array.
struct NamedArray {
  std::string name;
  MemSpace space = MemSpace::Global;
  int parameter = -1;   // Global: the kernel parameter
  int64_t offset = 0;   // Shared: its byte offset in the block's shared memory
  bool dynamic = false; // Shared: the launch's dynamic shared memory (its size is the launch's)
  int function = 0;     // Local: the function (ir::Module::functions) that declares it
  Scalar dtype = Scalar::U8;
  bool record = false; // elements are records of `itemsize` bytes
  int64_t itemsize = 1;
  int ndim = 1;
  std::vector<int64_t> shape; // Shared (static) and Local; Global ones come with the launch
};

// The named arrays of `module`'s kernel, in the order above: parameters, shared, local arrays.
std::vector<NamedArray> named_arrays(const ir::Module &module);

// What the JIT produced for one kernel specialisation.
struct KernelCode {
  std::string name;
  Tier tier = Tier::Full;
  KernelEntry thread_entry = nullptr; // fiber mode: a barrier is reachable
  KernelEntry block_entry = nullptr;  // flat mode: no barrier; the entry loops over the threads
  // The one of the two entries the kernel has.
  KernelEntry &entry() { return block_entry != nullptr ? block_entry : thread_entry; }
  KernelEntry entry() const { return block_entry != nullptr ? block_entry : thread_entry; }
  // Keeps the JIT's code of the entries mapped (sim/jit.h): it is freed when the last copy goes.
  // Null for code not from the JIT.
  std::shared_ptr<const void> keep_alive;
  int64_t static_shared_bytes = 0;
  // A thread's worst-case local arrays: its own plus those of the deepest chain of device
  // functions it calls (sim/local_frame.h). Sizes fiber stacks, and the stack a flat kernel runs
  // on.
  int64_t local_frame_bytes = 0;
  // A grid sync is reachable: every block of the grid is resident at once (sim/grid_scheduler.h)
  // and a launch of more blocks than max_cooperative_blocks() is refused.
  bool cooperative = false;
  // Fiber mode: a thread may wait for others (a barrier, a warp operation, a spinning loop is
  // reachable). When none can, and no observer stops threads, each runs to its end without a
  // fiber of its own (instrumented kernels run in fiber mode whatever they do).
  bool threads_wait = true;
  // How its blocks run (sim/kernel_plan.h), and why a kernel with barriers is not fissioned
  // ("" when it is, or has none): for inspection (CompiledKernel.block_strategy).
  BlockStrategy strategy = BlockStrategy::Fibers;
  std::string fission_obstacle;
  std::vector<SourceLocation> locations; // indexed by the `loc` argument of runtime calls
  // The source location of `loc`, or an empty one when there is no such entry.
  SourceLocation location(int32_t loc) const {
    if (loc < 0 || size_t(loc) >= locations.size())
      return {};
    return locations[size_t(loc)];
  }
  // Kernels compiled with instrumentation: each function's frame (CallFrame::function indexes
  // it); else empty.
  std::vector<codegen::FrameLayout> frames;
  // Kernels compiled with instrumentation: the arrays reports name (named_arrays).
  std::vector<NamedArray> arrays;
};

// Better code for the kernel that may become ready while it runs: the host backend's recompile at
// the full level (sim/host_backend.h). A launch asks between chunks of blocks; the blocks it
// starts after an answer run the better code (both give the same results).
class CodeUpgrade {
public:
  virtual ~CodeUpgrade() = default;
  // `ran`: how long the launch has run. The better code's entry (of the kernel's kind: block or
  // thread) once it is ready, else null. Called by every worker; thread-safe.
  virtual KernelEntry poll(std::chrono::nanoseconds ran) = 0;
};

// The order a launch runs its blocks in: a schedule that explores orders (`simt check
// --schedule`). A launch with one runs its blocks on one worker, one after another (cooperative
// launches, whose blocks are all resident at once, ignore it).
class BlockOrder {
public:
  virtual ~BlockOrder() = default;
  // The linear index (x fastest) of the block to run `position`-th of `count`.
  virtual uint64_t block(uint64_t position, uint64_t count) = 0;
};

// What observes one launch (sim/observer.h), how its blocks' fibers are scheduled
// (sim/block_scheduler.h; null: round-robin), the order of its blocks (null: in order), and
// better code it may switch to (null: none).
class Observer;
class FiberChoice;
struct LaunchHooks {
  std::span<Observer *const> observers;
  FiberChoice *choice = nullptr;
  BlockOrder *order = nullptr;
  CodeUpgrade *upgrade = nullptr;
};

// Checks `config` (throws std::invalid_argument: more than 1024 threads per block, a zero
// dimension, a block dimension over the CUDA limits), runs every block, and returns the first
// fault, if any. Safe to call from several host threads at once.
std::optional<Fault> launch(const KernelCode &kernel, const LaunchConfig &config, void **args,
                            const LaunchHooks &hooks = {});

// An access out of an array's bounds under SIMT_BOUNDSCHECK=warn (CompileOptions::bounds_check):
// its site with the first thread that reached it (an IndexError's fault, FaultKind::Bounds) and
// what it was, as compute-sanitizer names it ("__global__ read of size 4 bytes").
struct OutOfBounds {
  Fault fault;
  std::string access;
};

// The out-of-bounds sites of the last launch this host thread made, one per site, in the order
// they were first reached; once (the next call, before another launch, gives none).
std::vector<OutOfBounds> take_out_of_bounds_of_last_launch();

// How many shuffles of the last launch this host thread made read a lane CUDA leaves undefined
// (Observer::undefined_shuffle): their results hold simt's choice, not a GPU's.
uint64_t undefined_shuffles_of_last_launch();

// A kernel whose threads' local arrays take more runs them on pooled stacks sized for them (a
// flat kernel its block loop, a fiber-mode kernel each thread): the launching thread's stack,
// and a worker's, may be too small.
inline constexpr int64_t max_frame_on_worker_stack = 64 * 1024;

// Number of worker threads blocks are spread over (SIMT_THREADS, else one per core).
unsigned worker_count();

// The most blocks of `block` threads and `dynamic_shared_bytes` a cooperative launch of `kernel`
// may have (Numba's max_cooperative_grid_blocks): the blocks that fit on one simulated
// multiprocessor (compute capability 8.0 limits: 32 blocks, 2048 threads, 164 KiB of shared
// memory) times the multiprocessors (worker_count(), as the device reports), and at most
// max_cooperative_threads threads in all (each keeps a fiber stack while the grid runs).
uint64_t max_cooperative_blocks(const KernelCode &kernel, const Dim3 &block,
                                uint64_t dynamic_shared_bytes);
inline constexpr uint64_t max_cooperative_threads = 8192;

} // namespace simt::sim
