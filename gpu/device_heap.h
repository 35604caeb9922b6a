// Arrays a kernel allocates on the GPU (ir::ExprKind::ArrayAlloc): CUDA's device-side malloc,
// each block chained into one module-wide list, and a kernel that frees the list, which the GPU
// backend launches after each launch of the kernel (as the simulator frees them at the launch's
// end: an array never outlives its thread).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string>

namespace simt::gpu {

// The name of the kernel that frees the arrays kernel `entry` allocated.
std::string free_arrays_entry(const std::string &entry);

// `bytes` (i64; negative when the size overflowed) from the device heap, 16-byte aligned and
// zeroed when `zeroed`, chained into the module's list; a null pointer when malloc fails.
// Branches: the builder continues after it.
llvm::Value *device_allocate(llvm::IRBuilder<> &b, llvm::Value *bytes, bool zeroed);

// Adds the kernel free_arrays_entry(entry) when the module allocates; returns whether it did.
bool emit_free_arrays_kernel(llvm::Module &module, const std::string &entry);

} // namespace simt::gpu
