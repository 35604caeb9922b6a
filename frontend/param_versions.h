// Numba types each definition of a variable on its own (SSA), so `seed = uint64(seed)` at the top
// of a function gives `seed` the type uint64 whatever the argument's type. simt types a local by
// the unification of all its assignments; these passes keep Numba's typing for the idioms where
// that differs: a parameter redefined at the top, and loops that each bind a variable afresh.
#pragma once

#include "frontend/ast.h"
#include "ir/slot_name.h"

#include <map>
#include <string>
#include <utility>

namespace simt {

// For each parameter p whose first mention is a top-level `p = value` statement, renames the
// parameter to "$p" and the reads of p in that value to "$p", so the local p is typed by its own
// assignments only; `lines` gets the lines where p means the local (after that statement).
void split_redefined_parameters(ast::FunctionDef &def,
                                std::map<std::string, std::pair<int, int>> &lines);

// Where `name` is only ever mentioned as the target of two or more `for` loops and in their
// bodies (so no value flows from one loop's variable to another's, or out of a loop), renames it
// in each loop after the first to "name.2", "name.3", ... so each loop's variable is typed on its
// own: `for v in (a2, b2): ...` then `for v in (a3, b3): ...` over vectors of other lengths.
// False (nothing renamed) where `name` is mentioned anywhere else.
// `lines` gets the lines of each renamed loop (its first and last statement's) by the new name.
// (The debugger shows the variable a name means where a thread stands: ir::Slot's lines.)
bool split_loop_variable(ast::FunctionDef &def, const std::string &name,
                         std::map<std::string, std::pair<int, int>> &lines);

} // namespace simt
