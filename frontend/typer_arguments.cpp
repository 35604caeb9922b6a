// The arguments of calls bound and typed, with the messages of Python's and Numba's refusals: by
// parameter names (call_args), by position (positional_args), and the typing every call of a
// function of numbers starts with (type_scalar_call).
#include "frontend/typer.h"

#include <algorithm>

namespace simt {

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::vector<const ast::Expr *> FunctionTyper::call_args(const ast::Expr &e, const std::string &fn,
                                                        const std::vector<std::string> &params,
                                                        size_t required) {
  std::vector<const ast::Expr *> args(params.size(), nullptr);
  size_t positional = e.elts.size() - 1;
  size_t given = positional + e.keywords.size();
  if (positional > params.size() || given < required || given > params.size()) {
    std::string expected = required == params.size() ? plural(required, "argument")
                                                     : std::to_string(required) + " to " +
                                                           plural(params.size(), "argument");
    error(e.loc, "function " + fn + " expects " + expected + ", got " + std::to_string(given));
  }
  for (size_t i = 0; i < positional; ++i)
    args[i] = e.elts[i + 1].get();
  for (const ast::Keyword &k : e.keywords) {
    auto it = std::find(params.begin(), params.end(), k.name);
    if (it == params.end())
      error(k.loc, "function " + fn + " got an unexpected keyword argument '" + k.name + "'");
    size_t i = it - params.begin();
    if (args[i])
      error(k.loc, "function " + fn + " got multiple values for argument '" + k.name + "'");
    args[i] = k.value.get();
  }
  for (size_t i = 0; i < required; ++i)
    if (!args[i])
      error(e.loc, "function " + fn + " is missing the argument '" + params[i] + "'");
  return args;
}

std::vector<const ast::Expr *> FunctionTyper::positional_ast_args(const ast::Expr &e,
                                                                  const Callee &fn, size_t count) {
  if (!e.keywords.empty())
    error(fn.at_keyword ? e.keywords.front().loc : e.loc,
          "function " + fn.name + " takes no keyword arguments" + fn.note);
  if (e.elts.size() - 1 != count)
    error(e.loc, "function " + fn.name + " expects " + plural(count, "argument") + ", got " +
                     std::to_string(e.elts.size() - 1) + fn.note);
  std::vector<const ast::Expr *> args;
  for (size_t i = 1; i < e.elts.size(); ++i)
    args.push_back(e.elts[i].get());
  return args;
}

std::vector<ir::ExprPtr> FunctionTyper::positional_args(const ast::Expr &e, const std::string &fn,
                                                        size_t count) {
  std::vector<ir::ExprPtr> args;
  for (const ast::Expr *arg : positional_ast_args(e, {.name = fn}, count))
    args.push_back(rvalue(*arg));
  return args;
}

ScalarCall FunctionTyper::type_scalar_call(const ast::Expr &e, const Callee &fn, size_t arity,
                                           const std::function<bool(const Type &)> &accepts) {
  ScalarCall call;
  for (const ast::Expr *arg : positional_ast_args(e, fn, arity)) {
    ir::ExprPtr value = rvalue(*arg);
    if (!value->type.is_scalar() || (accepts && !accepts(value->type)))
      refuse_argument(*arg, value->type, fn);
    call.types.push_back(value->type.scalar);
    call.args.push_back(std::move(value));
  }
  return call;
}

void FunctionTyper::refuse_argument(const ast::Expr &arg, const Type &type,
                                    const Callee &fn) const {
  error(arg.loc, "function " + fn.name + " does not accept " + type.str() + fn.note);
}

} // namespace simt
