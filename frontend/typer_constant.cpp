// Names Numba treats as compile-time constants where it needs one (array shapes): a local
// assigned exactly once from a constant (`N = 100` ... `cuda.shared.array(N, int32)`), as
// Numba's get_definition / guard(find_const) follow a variable's single definition.
#include "frontend/typer.h"

namespace simt {

ast::ExprPtr copy_ast(const ast::Expr &e) {
  auto copy = std::make_unique<ast::Expr>();
  copy->kind = e.kind;
  copy->loc = e.loc;
  copy->id = e.id;
  copy->op = e.op;
  copy->ops = e.ops;
  copy->int_value = e.int_value;
  copy->int_overflow = e.int_overflow;
  copy->int_uint64 = e.int_uint64;
  copy->float_value = e.float_value;
  copy->imaginary = e.imaginary;
  copy->text = e.text;
  for (const ast::ExprPtr &elt : e.elts)
    copy->elts.push_back(elt ? copy_ast(*elt) : nullptr);
  for (const ast::Keyword &k : e.keywords)
    copy->keywords.push_back(ast::Keyword{k.name, copy_ast(*k.value), k.loc});
  return copy;
}

namespace {

// Counts the bindings of `name` in `body`; `value` is the last plain `name = value` one.
void count_bindings(const std::vector<ast::StmtPtr> &body, const std::string &name, int &count,
                    const ast::Expr *&value) {
  auto binds = [&](const ast::Expr &target, auto &self) -> bool {
    if (target.kind == ast::ExprKind::Name)
      return target.id == name;
    if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
      for (const auto &elt : target.elts)
        if (self(*elt, self))
          return true;
    return false;
  };
  for (const auto &s : body) {
    for (const auto &t : s->targets)
      if (binds(*t, binds)) {
        ++count;
        value = t->kind == ast::ExprKind::Name && s->kind == ast::StmtKind::Assign ? s->value.get()
                                                                                   : nullptr;
      }
    if (s->target && binds(*s->target, binds)) {
      ++count;
      value = nullptr;
    }
    count_bindings(s->body, name, count, value);
    count_bindings(s->orelse, name, count, value);
  }
}

// Whether evaluating `e` again is free of effects (literals, names, attributes, tuples of them).
bool is_plain(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Int:
  case ast::ExprKind::Name:
    return true;
  case ast::ExprKind::Attribute:
  case ast::ExprKind::UnaryOp:
  case ast::ExprKind::Tuple:
    for (const auto &elt : e.elts)
      if (!is_plain(*elt))
        return false;
    return true;
  default:
    return false;
  }
}

} // namespace

ast::ExprPtr FunctionTyper::constant_definition(const ast::Expr &e, int depth) {
  if (e.kind == ast::ExprKind::Name && locals_.count(e.id) && depth < 16) {
    for (const ast::Param &param : def_.params)
      if (param.name == e.id)
        return copy_ast(e);
    int count = 0;
    const ast::Expr *value = nullptr;
    count_bindings(def_.body, e.id, count, value);
    if (count == 1 && value && is_plain(*value))
      return constant_definition(*value, depth + 1);
    return copy_ast(e);
  }
  auto copy = copy_ast(e);
  if (e.kind == ast::ExprKind::Tuple || e.kind == ast::ExprKind::UnaryOp)
    for (auto &elt : copy->elts)
      elt = constant_definition(*elt, depth + 1);
  return copy;
}

} // namespace simt
