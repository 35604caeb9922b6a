// Python's operators as one enum, with what the parser and typer know of each (operators.def).
#pragma once

#include "frontend/symbols.h"
#include "ir/ir.h" // ir::Op

#include <optional>
#include <string>

namespace simt::ast {

enum class Operator : uint8_t {
#define SIMT_OPERATOR(name, spelling, kind, binding, inplace, ir_op, module_name) name,
#include "frontend/operators.def"
#undef SIMT_OPERATOR
};

inline constexpr size_t kOperatorCount = 0
#define SIMT_OPERATOR(name, spelling, kind, binding, inplace, ir_op, module_name) +1
#include "frontend/operators.def"
#undef SIMT_OPERATOR
    ;

enum class OperatorKind : uint8_t { Unary, Binary, Comparison, Boolean };

struct OperatorInfo {
  std::string spelling;
  std::optional<Symbol> symbol; // the token it is written with; none for a keyword operator
  OperatorKind kind;
  int binding;
  std::optional<Symbol> inplace; // the augmented assignment's token, if it has one
  ir::Op ir_op;
  std::string module_name;
};

const OperatorInfo &operator_info(Operator op);

inline const std::string &spelling(Operator op) { return operator_info(op).spelling; }
inline int binding(Operator op) { return operator_info(op).binding; }
inline ir::Op ir_op(Operator op) { return operator_info(op).ir_op; }

// The operator of `kind` written with `symbol` (keyword operators are the parser's to find).
std::optional<Operator> operator_spelled(Symbol symbol, OperatorKind kind);
// The binary operator whose augmented assignment is written with `symbol` (+=, //=, ...).
std::optional<Operator> inplace_operator_spelled(Symbol symbol);

} // namespace simt::ast
