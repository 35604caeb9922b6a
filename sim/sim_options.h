// How the simulator runs a kernel's blocks, beyond what its code is compiled for (CompileOptions,
// which every backend honours): the host backend's own configuration. The options decide the
// kernel's plan (sim/kernel_plan.h), so the JIT's cache keys hold them.
#pragma once

#include <cstdint>
#include <string>

namespace simt::sim {

// Which threads of the checkers' variant run on fibers of their own; the others run as loops over
// the block's threads (by loop fission where they wait at barriers, which then report each
// barrier's release as the fiber schedulers do).
enum class CheckedFibers : uint8_t {
  None, // those that release code runs on fibers: the loops report what the checkers need
  All,  // every thread, so that a schedule may order them (`simt check --schedule`)
};

struct SimOptions {
  // Kernels with barriers in block-uniform control flow run by loop fission
  // (analysis/fission.h); off (SIMT_FISSION=0): as fibers, as other barrier kernels do (the tests
  // compare the two).
  bool fission = true;
  // Instrumentation::Check: which threads run on fibers.
  CheckedFibers checked_fibers = CheckedFibers::None;

  // A short text naming the options that differ from the defaults, for cache keys ("" or
  // ",fibers,scheduled").
  std::string key() const {
    return std::string(fission ? "" : ",fibers") +
           (checked_fibers == CheckedFibers::All ? ",scheduled" : "");
  }
  bool operator==(const SimOptions &) const = default;
};

} // namespace simt::sim
