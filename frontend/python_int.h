// Python's unbounded ints where the frontend needs them: the int constants CPython folds operator
// expressions of int literals into before Numba (or simt) sees them (CPython 3.11's
// Python/ast_opt.c), and the exact value of a constant array shape.
#pragma once

#include "frontend/ast.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simt {

// An int constant of any size.
struct FoldedInt {
  std::string decimal;    // its value, in decimal
  bool fits = false;      // within int64 or uint64: a constant Numba can type
  bool is_uint64 = false; // it fits only as a uint64 (past INT64_MAX), as Numba types it
  int64_t bits = 0;       // its two's complement bits, when it fits
  bool negative = false;
  double approx = 0; // the nearest double
};

// The int CPython folds `e` into: an int literal, or `-x`, `+x`, `~x`, `x op y` of such when
// CPython folds each operation. Nothing for anything else: a name, a float or bool operand, an
// operation that raises (a division by zero, a negative shift), `**` with a negative exponent (a
// float), or one whose result CPython deems too large to fold (past 128 bits), left to run time.
std::optional<FoldedInt> python_folded_int(const ast::Expr &e);

// CPython's folding of a left-associative chain (a + b + c is (a + b) + c): `spine` holds its
// operators outermost first, spine[i + 1] being spine[i]'s left operand. `links` of its innermost
// operators fold with the innermost left operand into `value` (nothing, and no links, when that
// operand is no int constant). Iterative: a chain of any length takes no stack.
struct FoldedChain {
  size_t links = 0;
  std::optional<FoldedInt> value;
};
FoldedChain python_folded_chain(const std::vector<const ast::Expr *> &spine);

// The operators of the left-associative chain whose outermost operator is `e` (a BinOp),
// outermost first, down to the first left operand that is no BinOp.
std::vector<const ast::Expr *> left_spine(const ast::Expr &e);

// Whether the constant int expression `x` (typed int constants and Unary, Binary and int Cast
// nodes of them: a shape as `constant_int` reads it) has a value past int64 with Python's
// unbounded ints: then its value in decimal ("" when longer than a few thousand bits).
std::optional<std::string> overflowing_constant(const ir::Expr &x);

// CPython's text of the operator expression `e` of int literals (for messages), shortened to
// about `limit` characters.
std::string int_expression_text(const ast::Expr &e, size_t limit = 60);

} // namespace simt
