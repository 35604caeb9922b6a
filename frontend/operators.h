// Python's operators as one enum, with what the parser and typer know of each (operators.def).
#pragma once

#include "ir/ir.h" // ir::Op

#include <optional>
#include <string>
#include <string_view>

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
  OperatorKind kind;
  int binding;
  std::string inplace;
  ir::Op ir_op;
  std::string module_name;
};

const OperatorInfo &operator_info(Operator op);

inline const std::string &spelling(Operator op) { return operator_info(op).spelling; }
inline int binding(Operator op) { return operator_info(op).binding; }
inline ir::Op ir_op(Operator op) { return operator_info(op).ir_op; }

// The operator of `kind` spelled `text` (a token's text, or "not in" / "is not").
std::optional<Operator> operator_spelled(std::string_view text, OperatorKind kind);
// The binary operator whose augmented assignment is spelled `text` ("+=", "//=", ...).
std::optional<Operator> inplace_operator_spelled(std::string_view text);

} // namespace simt::ast
