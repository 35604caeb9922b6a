// The generic lowering of the typed IR to LLVM IR, shared by every backend (see target.h).
#pragma once

#include "codegen/frame_layout.h"
#include "codegen/target.h"
#include "ir/ir.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace simt::codegen {

// A source position that runtime error reports refer to by index (the `loc` operand).
struct CodeLocation {
  std::string file;
  int line = 0;
  int col = 0;
  std::string function; // the Python function's name
};

struct LoweredModule {
  std::unique_ptr<llvm::Module> module;
  std::string symbol; // the kernel's module-unique name (entry points derive from it)
  std::vector<CodeLocation> locations;
  // Instrumented modules: the frame of each function (ir::Module::functions' order); else empty.
  std::vector<FrameLayout> frames;
};

// Lowers `module` for `target` into a new LLVM module in `ctx`. Every global name starts with
// `prefix`, so modules lowered with different prefixes can share one JIT. Throws
// std::runtime_error ("simt: ... is not supported yet") for IR the lowering cannot express.
// functions[0] is the kernel, or a device function compiled alone (compile_device_function).
LoweredModule lower(const ir::Module &module, Target &target, llvm::LLVMContext &ctx,
                    const std::string &prefix);

// The kernel's module-unique name in the module `lower` makes with `prefix`
// (LoweredModule::symbol), known without lowering it.
std::string kernel_symbol(const ir::Module &module, const std::string &prefix);

} // namespace simt::codegen
