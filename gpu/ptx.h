// Typed IR -> PTX text, with LLVM 19's NVPTX backend (CUDA's libNVVM only takes LLVM-7-era IR).
// Works on any machine: no GPU or driver is needed, only libdevice for math functions.
#pragma once

#include "frontend/ir.h"

#include <string>

namespace simt::gpu {

struct PtxOptions {
  std::string cc = "sm_75"; // the compute capability ("sm_75" ... "sm_90a")
  bool fastmath = false;    // fast-math flags, and libdevice's flush-to-zero (nvvm-reflect-ftz)
};

// The PTX of `module`'s kernel, an `.entry` named `entry_name`. Throws std::runtime_error for
// what the GPU target cannot compile yet, or when libdevice is needed but not found
// ($SIMT_LIBDEVICE, else $CUDA_HOME or /usr/local/cuda's nvvm/libdevice/libdevice.10.bc).
std::string compile_ptx(const ir::Module &module, const PtxOptions &options,
                        std::string *entry_name = nullptr);

} // namespace simt::gpu
