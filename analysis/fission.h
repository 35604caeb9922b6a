// Loop fission at barriers: whether a kernel with barriers can run as a sequence of loops over
// its block's threads instead of one fiber per thread, and how.
//
// A barrier orders every thread's statements before it ahead of every thread's statements after
// it, and between barriers the threads' order is free. So a kernel whose barriers sit in
// block-uniform control flow (the kernel's top level, and ifs and loops whose conditions every
// thread of the block computes alike) can run each barrier-free stretch of statements (a region)
// for every thread in turn, then the next: the barriers themselves vanish. The control flow that
// holds barriers runs once per block; the locals it reads are block-level (one value per block);
// a local that a thread keeps from one region to another lives in a per-thread array.
//
// cuda.syncthreads_count/and/or become a region that evaluates every live thread's predicate and
// reduces it. A thread that returns in a region leaves the block's later regions (threads that
// exited count as arrived at barriers, as on current GPUs). Kernels of other shapes keep fibers:
// a barrier under a thread-dependent branch or loop (the fiber path reports it), a barrier in a
// device function, warp collectives, grid sync, loops that may wait for other threads.
#pragma once

#include "ir/ir.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace simt::ir {

struct FissionPlan {
  // Empty when the kernel can be fissioned; else what prevents it, for inspection and tests.
  std::string obstacle;
  // Per slot of the kernel: a block-level local, assigned only by block-level statements, one
  // value for the whole block.
  std::vector<bool> block_level_slots;
  // Per slot: a thread's local that a region may read before assigning it (its value comes from
  // an earlier region, or an earlier iteration of a block-level loop), kept in a per-thread array.
  std::vector<bool> per_thread_slots;
  // Per slot: for a thread's local assigned once, at a region's top level, from the thread's and
  // block's indices and block constants alone (`tid = cuda.threadIdx.x`, `i = cuda.grid(1)`),
  // that value, which each region recomputes rather than keeping it; null for other slots.
  std::vector<const Expr *> recomputed;
  // Whether a thread may return in a region; if not, every thread runs every region.
  bool threads_return = false;
  // The statements that run once per block: barriers, the ifs and loops that hold them, the
  // assignments of block-level locals, and the breaks, continues and returns among them. The
  // others run in regions, once per live thread.
  std::unordered_set<const Stmt *> block_level;

  bool fissionable() const { return obstacle.empty(); }
};

// The plan for `module`'s kernel. One that needs lockstep in other ways (warp collectives, grid
// sync, loops that may spin) gets an obstacle. A kernel without barriers is one region: its
// threads run one after another, as a loop the lowering can bound and LLVM vectorise.
FissionPlan plan_fission(const Module &module);

// Whether `e` is cuda.syncthreads_count/and/or.
bool is_barrier_reduction(const Expr &e);
// Whether `e` has one value for the whole block, given which slots are block-level (a barrier
// reduction's result has).
bool is_block_uniform(const Expr &e, const std::vector<bool> &block_level_slots);

} // namespace simt::ir
