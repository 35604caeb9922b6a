// Typed IR -> native code for the simulator, through one process-wide ORC LLJIT.
#pragma once

#include "frontend/ir.h"
#include "sim/launch.h"

#include <string>

namespace simt::sim {

// Lowers `module` with the host Target, optimises it, adds it to the process's LLJIT and returns
// its entry points. The block entry is present only when no barrier is reachable (flat mode).
// Thread-safe. Throws std::runtime_error if LLVM rejects the module (a simt bug, not a user error).
KernelCode jit_compile(const ir::Module &module);

// The optimised LLVM IR the host Target produces for `module` (for inspection and tests).
std::string host_llvm_ir(const ir::Module &module);

} // namespace simt::sim
