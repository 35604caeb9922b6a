// Numba types each definition of a variable on its own (SSA), so `seed = uint64(seed)` at the top
// of a function gives `seed` the type uint64 whatever the argument's type. simt types a local by
// the unification of all its assignments; this pass keeps Numba's typing for that common idiom.
#pragma once

#include "frontend/ast.h"

namespace simt {

// For each parameter p whose first mention is a top-level `p = value` statement, renames the
// parameter to "$p" and the reads of p in that value to "$p", so the local p is typed by its own
// assignments only.
void split_redefined_parameters(ast::FunctionDef &def);

} // namespace simt
