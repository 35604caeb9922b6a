// The simulator as a Backend (codegen/backend.h): the host Target's code JIT-compiled by ORC, and
// launched by the fiber runtime (sim/launch.h).
#pragma once

#include "codegen/backend.h"
#include "sim/launch.h"

namespace simt::sim {

class HostExecutable final : public codegen::Executable {
public:
  explicit HostExecutable(KernelCode code) : code_(std::move(code)) {}
  std::optional<Fault> launch(const LaunchConfig &config, void **args) override {
    return sim::launch(code_, config, args);
  }
  // With observers (the debugger) and a fiber schedule.
  std::optional<Fault> launch(const LaunchConfig &config, void **args, const LaunchHooks &hooks) {
    return sim::launch(code_, config, args, hooks);
  }
  uint64_t max_cooperative_blocks(const Dim3 &block, uint64_t dynamic_shared_bytes) override {
    return sim::max_cooperative_blocks(code_, block, dynamic_shared_bytes);
  }
  const KernelCode &code() const { return code_; }

private:
  KernelCode code_;
};

class HostBackend final : public codegen::Backend {
public:
  const char *name() const override { return "sim"; }
  // Loads the `link` libraries (their symbols global, for the JIT to resolve; never unloaded),
  // then JIT-compiles.
  std::unique_ptr<codegen::Executable> compile(const ir::Module &module,
                                               const std::vector<std::string> &link) override;
};

} // namespace simt::sim
