// The GPU as a Backend (codegen/backend.h): a kernel compiled to PTX for the device's compute
// capability (gpu/ptx.h), loaded by the CUDA driver (gpu/driver.h) and launched with Numba's
// kernel ABI (gpu/launch_ptx.h); a fault recorded in the device-side exception record comes back
// as the simulator's would.
#pragma once

#include "codegen/backend.h"
#include "gpu/ptx.h"

#include <memory>
#include <mutex>

namespace simt::gpu {

class Module;

class GpuExecutable final : public codegen::Executable {
public:
  GpuExecutable(CompiledPtx compiled, std::vector<std::string> link, const ir::Module &module);
  ~GpuExecutable() override;
  // Copies the arrays to the device, launches (cooperatively when a grid sync is reachable),
  // copies them back, and maps the exception record to a Fault.
  std::optional<codegen::Fault> launch(const codegen::LaunchConfig &config, void **args) override;
  // The driver's occupancy calculator: blocks per multiprocessor times multiprocessors.
  uint64_t max_cooperative_blocks(const codegen::Dim3 &block,
                                  uint64_t dynamic_shared_bytes) override;
  const CompiledPtx &compiled() const { return compiled_; }

private:
  Module &loaded(); // the module on device 0, loaded at the first use (under mutex_)
  CompiledPtx compiled_;
  std::vector<std::string> link_;
  std::vector<Type> param_types_;
  bool cooperative_;
  std::mutex mutex_;               // one launch at a time per kernel (the module's record)
  std::unique_ptr<Module> loaded_; // at the first launch
};

class GpuBackend final : public codegen::Backend {
public:
  // Opens the driver and device 0 (GpuUnavailable, one line, when there is none).
  GpuBackend();
  const char *name() const override { return "gpu"; }
  // `link`: PTX texts linked with the kernel's by the driver's linker.
  std::unique_ptr<codegen::Executable> compile(const ir::Module &module,
                                               const std::vector<std::string> &link) override;
  const std::string &cc() const { return cc_; }

private:
  std::string cc_; // the device's, as "sm_90"
};

// The Fault a device-side exception record (gpu/nvptx_target.h) stands for.
codegen::Fault fault_of_record(const std::vector<int32_t> &record, const CompiledPtx &compiled);

} // namespace simt::gpu
