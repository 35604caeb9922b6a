// Typed IR -> PTX text, with LLVM 19's NVPTX backend (CUDA's libNVVM only takes LLVM-7-era IR).
// Works on any machine: no GPU or driver is needed, only libdevice for math functions.
#pragma once

#include "codegen/lower.h"
#include "gpu/nvptx_target.h"
#include "ir/ir.h"

#include <string>
#include <vector>

namespace simt::gpu {

struct PtxOptions {
  std::string cc = "sm_75"; // the compute capability ("sm_75" ... "sm_90a")
  bool opt = true;          // LLVM's O3 pipeline, else none before instruction selection
  EntryAbi abi;             // the function's kind, ABI and name (by default the Python name)
  bool llvm_ir = false;     // also give the optimised NVVM-dialect LLVM IR (inspect_llvm)
};

// A compiled module: its PTX text, the name of its function, and what the device-side exception
// record's fields refer to (gpu/nvptx_target.h).
struct CompiledPtx {
  std::string ptx;
  std::string entry;
  std::vector<codegen::CodeLocation> locations; // by the record's site index
  std::vector<RaiseSite> raised;                // by the record's code - first_raise_code
  std::string llvm_ir;                          // when PtxOptions::llvm_ir
  // The kernel that frees the arrays `entry` allocated (gpu/device_heap.h), launched after each
  // launch of it; empty when it allocates none.
  std::string free_arrays;
};

// The PTX of `module`'s kernel (or device function: options.abi). Its CompileOptions say whether
// to emit line tables or DWARF (debug_info) and fast math (fast-math flags, flush-to-zero in
// libdevice by nvvm-reflect-ftz, approximate division, square root and math functions). Throws
// std::runtime_error for what the GPU target cannot compile yet, or when libdevice is needed but
// not found ($SIMT_LIBDEVICE, else $CUDA_HOME or /usr/local/cuda's nvvm/libdevice/libdevice.10.bc),
// std::invalid_argument for an abi_name or external function's name that PTX cannot spell, and
// codegen::LlvmFatalError when LLVM reports a fatal error anyway (with the handler the Python
// module installs: pybind/fatal_error.h). The entry's name is the Python name as
// codegen::symbol_name writes it (`<lambda>`: `$3clambda$3e`) unless abi.name gives one.
CompiledPtx compile_ptx(const ir::Module &module, const PtxOptions &options);

// Tests of LLVM's fatal errors only: the PTX of an empty function named `name` as it is, compiled
// as compile_ptx compiles (a name PTX cannot spell is a fatal error in LLVM's NVPTX backend, which
// compile_ptx's names never are): LlvmFatalError (codegen/llvm_errors.h) when the handler is in.
std::string empty_function_ptx_for_tests(const std::string &name, const std::string &cc);

} // namespace simt::gpu
