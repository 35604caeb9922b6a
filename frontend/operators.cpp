#include "frontend/operators.h"

#include <array>

namespace simt::ast {

namespace {

const std::array kOperators = {
#define SIMT_OPERATOR(name, spelling, kind, binding, inplace, ir_op, module_name)                  \
  OperatorInfo{spelling, OperatorKind::kind, binding, inplace, ir::Op::ir_op, module_name},
#include "frontend/operators.def"
#undef SIMT_OPERATOR
};

} // namespace

const OperatorInfo &operator_info(Operator op) { return kOperators[size_t(op)]; }

std::optional<Operator> operator_spelled(std::string_view text, OperatorKind kind) {
  for (size_t i = 0; i < kOperators.size(); ++i)
    if (kOperators[i].kind == kind && kOperators[i].spelling == text)
      return Operator(i);
  return std::nullopt;
}

std::optional<Operator> inplace_operator_spelled(std::string_view text) {
  for (size_t i = 0; i < kOperators.size(); ++i)
    if (!kOperators[i].inplace.empty() && kOperators[i].inplace == text)
      return Operator(i);
  return std::nullopt;
}

} // namespace simt::ast
