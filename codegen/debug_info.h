// Source-level debug information for lowered code (CompileOptions::debug_info): a compile unit,
// one subprogram per function of the typed IR, and each statement's Python line and column on
// the instructions lowered from it. The GPU backend turns it into .file/.loc directives
// (lineinfo) or DWARF sections (debug); code without it is unchanged.
#pragma once

#include "ir/compile_options.h"
#include "ir/ir.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <memory>
#include <string>

namespace simt::codegen {

class SourceDebugInfo {
public:
  // Starts the compile unit of `module` (kind must not be None), named after the kernel's file.
  SourceDebugInfo(llvm::Module &module, DebugInfo kind, const ir::Function &kernel);
  // The subprogram of `fn`, lowered from `f`, attached to `fn`.
  llvm::DISubprogram *function(llvm::Function &fn, const ir::Function &f);
  // The location of `where` in `scope`.
  llvm::DILocation *location(llvm::DISubprogram *scope, ir::Loc where) const;
  // Gives every other defined function of the module (the target's entry points, helpers) a
  // subprogram at the kernel's first line, and every instruction without a location its
  // function's first line (LLVM requires one on calls that may be inlined); then finalises.
  void finish(llvm::Module &module, const ir::Function &kernel);

private:
  llvm::DIFile *file(const std::string &path);
  llvm::DISubprogram *subprogram(llvm::Function &fn, const std::string &name,
                                 const std::string &path, int line);
  llvm::DIBuilder builder_;
  llvm::DICompileUnit *unit_ = nullptr;
  std::map<std::string, llvm::DIFile *> files_;
};

} // namespace simt::codegen
