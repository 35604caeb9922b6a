// Arrays a kernel allocates (ir::ExprKind::ArrayAlloc): their byte size and their array value.
#pragma once

#include "codegen/target.h"

namespace simt::codegen {

// The array of `type` (C-contiguous) over the storage the target allocated for `extents` (i64
// each, not negative: the typer checked them), or a CompileError at `where` of `file` when the
// target does not allocate.
llvm::Value *allocated_array(Emitter &e, Target &target, const Type &type,
                             llvm::ArrayRef<llvm::Value *> extents, bool zeroed,
                             const std::string &file, ir::Loc where, int32_t loc);

} // namespace simt::codegen
