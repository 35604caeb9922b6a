#include "frontend/operators.h"

#include <array>

namespace simt::ast {

namespace {

// operators.def names symbols bare, and None where an operator has no in-place symbol.
using enum Symbol;
constexpr std::nullopt_t None = std::nullopt;

// The spelling column of operators.def: a symbol, or a keyword operator's words.
struct Spelling {
  Spelling(Symbol symbol) : text(simt::spelling(symbol)), symbol(symbol) {}
  Spelling(const char *keywords) : text(keywords) {}
  std::string text;
  std::optional<Symbol> symbol;
};

OperatorInfo info(Spelling spelling, OperatorKind kind, int binding, std::optional<Symbol> inplace,
                  ir::Op ir_op, const char *module_name) {
  return {std::move(spelling.text), spelling.symbol, kind, binding, inplace, ir_op, module_name};
}

const std::array kOperators = {
#define SIMT_OPERATOR(name, spelling, kind, binding, inplace, ir_op, module_name)                  \
  info(spelling, OperatorKind::kind, binding, inplace, ir::Op::ir_op, module_name),
#include "frontend/operators.def"
#undef SIMT_OPERATOR
};

} // namespace

const OperatorInfo &operator_info(Operator op) { return kOperators[size_t(op)]; }

std::optional<Operator> operator_spelled(Symbol symbol, OperatorKind kind) {
  for (size_t i = 0; i < kOperators.size(); ++i)
    if (kOperators[i].kind == kind && kOperators[i].symbol == symbol)
      return Operator(i);
  return std::nullopt;
}

std::optional<Operator> inplace_operator_spelled(Symbol symbol) {
  for (size_t i = 0; i < kOperators.size(); ++i)
    if (kOperators[i].inplace == symbol)
      return Operator(i);
  return std::nullopt;
}

} // namespace simt::ast
