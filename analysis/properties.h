// What each function of a typed IR module uses (ir::Properties), derived from its statements.
#pragma once

#include "ir/ir.h"

namespace simt::ir {

// Sets each function's Properties from its statements and its callees', and the module's (its
// kernel's): after the typer, and after any transform that changes what a function uses.
void derive_properties(Module &module);

} // namespace simt::ir
