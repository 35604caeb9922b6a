// Numba types each definition of a variable on its own (its SSA pass renames them; a phi unifies
// the definitions that meet at a join). simt types a local by the unification of all its
// assignments, so this pass first gives each *web* of a variable its own name: the definitions
// that reach a common use (through branches and loops) stay one variable, the others are
// renamed "x.2", "x.3", ... Then `acc = b[0]` (float32) summed in a loop and later rebound to
// `acc / math.sqrt(2.0)` (float64) keeps the loop in float32, as on a GPU.
#pragma once

#include "frontend/ast.h"

#include <map>
#include <string>
#include <utility>

namespace simt {

// Renames the webs of `def`'s locals apart. Left whole: names a nested def or lambda mentions
// (read when it is called), names of global/nonlocal statements, and the parameters' webs (a
// parameter keeps its name). `lines` gets the first and last line each new name is mentioned on
// (the debugger shows it by its Python name there).
void split_variable_webs(ast::FunctionDef &def, std::map<std::string, std::pair<int, int>> &lines);

} // namespace simt
