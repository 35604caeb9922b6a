// A compact S-expression rendering of the syntax tree, for tests and debugging:
//   (BinOp + (Name x) (Int 1))
#pragma once

#include "frontend/ast.h"

#include <string>

namespace simt::ast {

std::string dump(const Expr &expr);
std::string dump(const Stmt &stmt);
// (FunctionDef name (params a (b (Int 1)) *) (decorators ...) (body ...)); `*` marks varargs.
std::string dump(const FunctionDef &function);

} // namespace simt::ast
