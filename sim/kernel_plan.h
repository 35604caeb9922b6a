// How the simulator runs a kernel's blocks, decided once per compile (sim/jit.cpp) and read by
// the lowering (HostTarget: which entry point, whether the kernel is fissioned) and the launch
// (KernelCode's entries).
#pragma once

#include "analysis/fission.h"
#include "ir/ir.h"
#include "sim/sim_options.h"

namespace simt::sim {

// Flat: no thread waits for another; one call runs a block, a loop over its threads. Fission:
// threads wait at barriers only, and the kernel splits at them into regions, each a loop over
// the block's threads (analysis/fission.h). Fibers: each thread runs on a fiber of its own,
// switched where it waits (sim/block_scheduler.h).
enum class BlockStrategy { Flat, Fission, Fibers };

struct KernelPlan {
  BlockStrategy strategy = BlockStrategy::Fibers;
  // The kernel's fission plan: its regions, and what keeps it from being fissioned.
  ir::FissionPlan fission;

  bool fibers() const { return strategy == BlockStrategy::Fibers; }
  // The plan the lowering follows: Flat and Fission kernels are both lowered fissioned (a flat
  // kernel is one region).
  const ir::FissionPlan *lowered_fissioned() const { return fibers() ? nullptr : &fission; }
};

// The plan of `module`: fibers for the debugger's variant, for the checkers' that orders every
// thread and for the checkers' of a kernel whose threads may return before a barrier (synccheck
// names the threads a barrier released without), for kernels whose threads wait other than at
// barriers (warp operations, spinning) or whose barriers cannot be fissioned, and where `options`
// turn fission off.
KernelPlan plan_kernel(const ir::Module &module, const SimOptions &options);

} // namespace simt::sim
