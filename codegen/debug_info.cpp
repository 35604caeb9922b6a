#include "codegen/debug_info.h"

#include <llvm/IR/DebugInfoMetadata.h>

#include <filesystem>

namespace simt::codegen {

SourceDebugInfo::SourceDebugInfo(llvm::Module &module, DebugInfo kind, const ir::Function &kernel)
    : builder_(module) {
  module.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  module.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
  unit_ = builder_.createCompileUnit(
      llvm::dwarf::DW_LANG_Python, file(kernel.file), "simt", /*isOptimized=*/true, "", 0, "",
      kind == DebugInfo::Full ? llvm::DICompileUnit::FullDebug
                              : llvm::DICompileUnit::DebugDirectivesOnly);
}

llvm::DIFile *SourceDebugInfo::file(const std::string &path) {
  auto found = files_.find(path);
  if (found != files_.end())
    return found->second;
  const std::filesystem::path p(path);
  return files_[path] =
             builder_.createFile(p.filename().string(),
                                 p.has_parent_path() ? p.parent_path().string() : std::string("."));
}

llvm::DISubprogram *SourceDebugInfo::subprogram(llvm::Function &fn, const std::string &name,
                                                const std::string &path, int line) {
  llvm::DIFile *where = file(path);
  llvm::DISubroutineType *type =
      builder_.createSubroutineType(builder_.getOrCreateTypeArray(std::nullopt));
  llvm::DISubprogram *sp = builder_.createFunction(where, name, fn.getName(), where, unsigned(line),
                                                   type, unsigned(line), llvm::DINode::FlagZero,
                                                   llvm::DISubprogram::SPFlagDefinition);
  fn.setSubprogram(sp);
  return sp;
}

llvm::DISubprogram *SourceDebugInfo::function(llvm::Function &fn, const ir::Function &f) {
  return subprogram(fn, f.python_name, f.file, f.first_line);
}

llvm::DILocation *SourceDebugInfo::location(llvm::DISubprogram *scope, ir::Loc where) const {
  return llvm::DILocation::get(scope->getContext(), unsigned(where.line), unsigned(where.col + 1),
                               scope);
}

void SourceDebugInfo::finish(llvm::Module &module, const ir::Function &kernel) {
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    llvm::DISubprogram *sp = fn.getSubprogram();
    if (sp == nullptr)
      sp = subprogram(fn, kernel.python_name, kernel.file, kernel.first_line);
    llvm::DILocation *at = location(sp, ir::Loc{int(sp->getLine()), 0});
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &instruction : block)
        if (!instruction.getDebugLoc())
          instruction.setDebugLoc(at);
  }
  builder_.finalize();
}

} // namespace simt::codegen
