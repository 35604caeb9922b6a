// The operator module's functions (operator.add, operator.lt, ...), called directly or through a
// name bound to them: each is typed as the Python operator it stands for, as Numba types it.
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

#include <map>

namespace simt {

namespace {

struct OperatorForm {
  ast::ExprKind kind;
  Operator op; // UnaryOp, BinOp, Compare
};

// operator.<name> -> the expression it evaluates (in-place forms act as the plain operator on
// the immutable scalars kernels hold, as in Numba).
const std::map<std::string, OperatorForm> &operator_forms() {
  using K = ast::ExprKind;
  static const std::map<std::string, OperatorForm> forms = [] {
    std::map<std::string, OperatorForm> m = {{"inv", {K::UnaryOp, Operator::Invert}},
                                             {"getitem", {K::Subscript, {}}}};
    for (size_t i = 0; i < ast::kOperatorCount; ++i) {
      const Operator op = Operator(i);
      const std::string &name = ast::operator_info(op).module_name;
      if (name.empty())
        continue;
      switch (ast::operator_info(op).kind) {
      case ast::OperatorKind::Unary:
        m[name] = {K::UnaryOp, op};
        break;
      case ast::OperatorKind::Binary:
        m[name] = {K::BinOp, op};
        m["i" + (name.back() == '_' ? name.substr(0, name.size() - 1) : name)] = {K::BinOp, op};
        break;
      default:
        m[name] = {K::Compare, op};
      }
    }
    return m;
  }();
  return forms;
}

} // namespace

CallFamily FunctionTyper::operator_calls() {
  return {"operator module",
          {{"operator.abs", [](FunctionTyper &t, const std::string &,
                               const ast::Expr &e) { return t.call_builtin("abs", e); }},
           {"operator.truth", [](FunctionTyper &t, const std::string &,
                                 const ast::Expr &e) { return t.call_builtin("bool", e); }},
           {"operator.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_operator(name, e);
            }}}};
}

Value FunctionTyper::call_operator(const std::string &name, const ast::Expr &e) {
  auto form = operator_forms().find(name);
  if (form == operator_forms().end() && name != "contains")
    error(e.loc, "simt: operator." + name + " is not supported yet");
  bool unary = form != operator_forms().end() && form->second.kind == ast::ExprKind::UnaryOp;
  auto args =
      positional_ast_args(e, {.name = "operator." + name, .at_keyword = true}, unary ? 1 : 2);
  auto expr = std::make_unique<ast::Expr>();
  expr->loc = e.loc;
  if (name == "contains") { // contains(a, b) is `b in a`
    expr->kind = ast::ExprKind::Compare;
    expr->ops = {Operator::In};
    expr->elts.push_back(copy_ast(*args[1]));
    expr->elts.push_back(copy_ast(*args[0]));
    return value(*expr);
  }
  expr->kind = form->second.kind;
  if (expr->kind == ast::ExprKind::Compare)
    expr->ops = {form->second.op};
  else
    expr->op = form->second.op;
  for (const ast::Expr *arg : args)
    expr->elts.push_back(copy_ast(*arg));
  return value(*expr);
}

} // namespace simt
