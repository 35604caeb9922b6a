// One kernel specialisation as Python sees it: its typed IR, its code for one backend (the
// simulator or the GPU: codegen/backend.h), and launching it.
#pragma once

#include "checker/checker.h"
#include "codegen/backend.h"
#include "frontend/compile.h"
#include "frontend/resolver.h"
#include "ir/ir.h"
#include "ir/types.h"
#include "pybind/debugger_binding.h"
#include "sim/host_backend.h"

#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simt::bindings {

// simt's SIGINT handler (Ctrl-C stops running launches and compiles, then Python's handler
// runs), installed again where something replaced it.
void install_interrupt_handler();

// A launch's fault as Python gets it (simt.compiler.faults): (exception, message, tid, ctaid,
// file, line, col, function, kind).
pybind11::tuple fault_tuple(const sim::Fault &fault);

class CompiledKernel {
public:
  // Compiles `source` for `arg_types` (frontend, then `backend`, with `link`: see
  // codegen::Backend::compile). Throws CompileError.
  CompiledKernel(const FunctionSource &source, std::vector<Type> arg_types,
                 const CompileOptions &options, codegen::Backend &backend,
                 const std::vector<std::string> &link = {});

  // Launches with `args` (a tuple of Python objects). The GIL is released while the kernel runs.
  // Returns None, or the first fault as the tuple
  // (exception, message, tid, ctaid, file, line, col, function).
  // Under the debugger when `debugger` is set, under the checkers when `checker` is (simulator
  // only).
  pybind11::object launch(const std::array<int64_t, 3> &griddim,
                          const std::array<int64_t, 3> &blockdim, int64_t dynamic_shared_bytes,
                          const pybind11::tuple &args, PyDebugger *debugger = nullptr,
                          checker::Checker *checker = nullptr) const;

  const std::string &name() const { return module_.kernel().python_name; }
  const std::vector<Type> &arg_types() const { return arg_types_; }
  int64_t static_shared_bytes() const { return module_.static_shared_bytes; }
  bool uses_barrier() const { return module_.props.uses_barrier; }
  bool uses_atomics() const { return module_.props.uses_atomics; }
  bool uses_breakpoint() const { return module_.props.uses_breakpoint; }
  // How the simulator runs its blocks (sim::BlockStrategy): "flat", "fission" or "fibers"; for
  // the GPU target, "gpu".
  std::string block_strategy() const;
  // Why a kernel with barriers is not run by loop fission (analysis/fission.h); "" when it is
  // or has no barrier.
  std::string fission_obstacle() const;
  // What it was compiled for (CompileOptions::key(): "np,release,O3").
  std::string options() const { return module_.options.key(); }
  // A grid sync is reachable: launches are cooperative (Numba's _Kernel.cooperative).
  bool cooperative() const { return module_.props.uses_grid_sync; }
  // "sim" or "gpu".
  const std::string &target() const { return target_; }
  // The simulator's tier of the code its next launch runs (sim/host_backend.h): "quick" or
  // "full"; the GPU's code is always "full".
  std::string tier() const;
  // Numba's _Kernel.max_cooperative_grid_blocks: `blockdim` an int or a tuple of up to 3 ints.
  uint64_t max_cooperative_grid_blocks(const pybind11::object &blockdim,
                                       int64_t dynamic_shared_bytes) const;
  std::string ir() const;
  // The kernel's Python variables and their types (Type::str), as Numba's typemap lists them.
  std::vector<std::pair<std::string, std::string>> local_types() const;
  std::string llvm_ir() const;

private:
  // The simulator's code (the debugger); std::runtime_error for a kernel of another target.
  sim::HostExecutable &host_executable() const;
  std::vector<Type> arg_types_;
  ir::Module module_;
  std::string target_;
  sim::SimOptions sim_options_; // the host backend's, for its LLVM IR (inspect_sim_llvm)
  std::unique_ptr<codegen::Executable> executable_;
};

} // namespace simt::bindings
