// The names Numba gives a kernel's shared and local arrays in its LLVM IR (`_cudapy_smem_<n>`,
// `_cudapy_lmem`), kept through optimisation and printed as Numba (llvmlite) prints them, so code
// reading inspect_llvm() for them (numba-cuda's test_array_alignment) finds them.
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace simt::gpu {

// Renames the allocas of local arrays named `_cudapy_lmem` that inlining suffixed
// (`_cudapy_lmem.i`) back to `_cudapy_lmem` (LLVM numbers a second one in a function).
void restore_local_array_names(llvm::Module &module);

// `text` (a printed module) with the names `@_cudapy_smem_<n>` and `%_cudapy_lmem` quoted, as
// llvmlite writes every name: `@"_cudapy_smem_<n>"`, `%"_cudapy_lmem"`.
std::string quote_array_names(const std::string &text);

} // namespace simt::gpu
