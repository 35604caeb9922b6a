// The simulator as a Backend (codegen/backend.h): the host Target's code JIT-compiled by ORC, and
// launched by the fiber runtime (sim/launch.h).
//
// Tiered compilation: a release kernel is compiled first at the Quick tier (sim/jit.h), so its
// first launch waits milliseconds, not O3's tens of them. Once its launches have run for
// SIMT_TIER_UP_MS milliseconds in all (default 20, about what an O3 compile of a small kernel
// costs, so a kernel never spends much more than twice the better choice's time), it is
// recompiled at its full level on a background thread: launches that start after that compile
// finished run the full code, and one running meanwhile runs it from its next blocks on (a long
// launch queues the recompile itself once it has run that long; one of 2**20 threads or more, long
// enough to repay an O3 compile by itself, queues it as it starts). No launch waits for O3.
// SIMT_OPT_TIER=quick keeps every kernel at the Quick tier, SIMT_OPT_TIER=full compiles at the
// full level at once (as without tiers); the default is auto. Kernels compiled with fastmath
// (whose results O3 may reassociate), with opt=False or with the debugger's instrumentation are
// compiled at their own level only.
#pragma once

#include "codegen/backend.h"
#include "sim/launch.h"
#include "sim/sim_options.h"

#include <memory>

namespace simt::sim {

// A kernel's pending recompile at its full level (host_backend.cpp).
struct TierUp;

class HostExecutable final : public codegen::Executable {
public:
  // `tier_up` null: `code` is what every launch runs.
  explicit HostExecutable(KernelCode code, std::shared_ptr<TierUp> tier_up = nullptr)
      : code_(std::move(code)), tier_up_(std::move(tier_up)) {}
  std::optional<Fault> launch(const LaunchConfig &config, void **args) override {
    return launch(config, args, {});
  }
  // With observers (the debugger) and a fiber schedule.
  std::optional<Fault> launch(const LaunchConfig &config, void **args, const LaunchHooks &hooks);
  uint64_t max_cooperative_blocks(const Dim3 &block, uint64_t dynamic_shared_bytes) override {
    return sim::max_cooperative_blocks(code_, block, dynamic_shared_bytes);
  }
  // The code the next launch runs.
  const KernelCode &code() const;

private:
  KernelCode code_;
  std::shared_ptr<TierUp> tier_up_;
};

// The simulator as a backend, configured by its SimOptions (one backend per set: pybind keeps
// them by their options).
class HostBackend final : public codegen::Backend {
public:
  explicit HostBackend(const SimOptions &options = {}) : options_(options) {}
  const char *name() const override { return "sim"; }
  const SimOptions &options() const { return options_; }
  // Loads the `link` libraries (their symbols global, for the JIT to resolve; never unloaded),
  // then JIT-compiles at the tier SIMT_OPT_TIER and the module's options allow.
  std::unique_ptr<codegen::Executable> compile(const ir::Module &module,
                                               const std::vector<std::string> &link) override;

private:
  SimOptions options_;
};

// Waits until no recompile is queued or running (tests and benchmarks, for a known tier).
void finish_tier_ups();

// Recompiles no more: drops the queued recompiles and waits for the one running. For the end of
// the process, before static objects are destroyed (Python's interpreter exit: pybind).
void stop_tier_ups();

} // namespace simt::sim
