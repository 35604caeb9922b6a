// Numba prunes branches whose condition is a constant of the function's globals, closure or
// compile-time arguments (`if b_is_tuple is True:`, `if bias is None:`) before it builds SSA and
// types the function; a top-level `if` of such a condition is here replaced by the branch taken
// before parameters are split (param_versions.h), so `b = b[0]` in a branch always taken
// rebinds the parameter to a local of its own type, as it does in Numba.
#include "frontend/typer.h"

#include <algorithm>

namespace simt {

namespace {

// A constant's Python value, as far as comparisons of constants need it.
struct Constant {
  enum class Kind { None, Number } kind = Kind::None;
  double number = 0;    // ints and bools exactly up to 2^53, which is all `is True` needs
  bool boolean = false; // Number: a bool (True is True; 1 is not True)
};

} // namespace

std::optional<bool> FunctionTyper::constant_condition(const ast::Expr &e,
                                                      const Bindings &bindings) const {
  auto constant = [&](const ast::Expr &x) -> std::optional<Constant> {
    Constant c;
    switch (x.kind) {
    case ast::ExprKind::None:
      return c;
    case ast::ExprKind::Bool:
    case ast::ExprKind::Int:
      if (x.int_overflow || x.int_uint64)
        return std::nullopt;
      c.kind = Constant::Kind::Number;
      c.number = static_cast<double>(x.int_value);
      c.boolean = x.kind == ast::ExprKind::Bool;
      return c;
    case ast::ExprKind::Name: {
      const bool parameter = std::any_of(def_.params.begin(), def_.params.end(),
                                         [&](const ast::Param &p) { return p.name == x.id; });
      GlobalValue g;
      if (auto bound = statics_.find(x.id); bound != statics_.end())
        g = bound->second.value;
      else if (parameter || bindings.count(x.id) || !source_.resolver)
        return std::nullopt;
      else
        g = source_.resolver->resolve(x.id);
      if (g.kind == GlobalValue::Kind::None)
        return c;
      if (g.kind != GlobalValue::Kind::Bool && g.kind != GlobalValue::Kind::Int)
        return std::nullopt;
      c.kind = Constant::Kind::Number;
      c.number = static_cast<double>(g.int_value);
      c.boolean = g.kind == GlobalValue::Kind::Bool;
      return c;
    }
    default:
      return std::nullopt;
    }
  };
  switch (e.kind) {
  case ast::ExprKind::UnaryOp:
    if (e.op == Operator::Not)
      if (std::optional<bool> inner = constant_condition(*e.elts[0], bindings))
        return !*inner;
    return std::nullopt;
  case ast::ExprKind::Compare: {
    if (e.ops.size() != 1)
      return std::nullopt;
    std::optional<Constant> a = constant(*e.elts[0]), b = constant(*e.elts[1]);
    if (!a || !b)
      return std::nullopt;
    const Operator op = e.ops[0];
    const bool same_kind = a->kind == b->kind;
    const bool equal = same_kind && a->number == b->number;
    if (op == Operator::Eq || op == Operator::NotEq)
      return (op == Operator::Eq) == equal;
    // None is None; True is True (bools are singletons)
    if (op == Operator::Is || op == Operator::IsNot)
      return (op == Operator::Is) ==
             (equal && (a->kind == Constant::Kind::None || (a->boolean && b->boolean)));
    return std::nullopt;
  }
  default: {
    std::optional<Constant> c = constant(e);
    if (!c)
      return std::nullopt;
    return c->kind == Constant::Kind::Number && c->number != 0;
  }
  }
}

void FunctionTyper::prune_constant_branches() {
  const Bindings bound = collect_bindings(def_.body);
  std::vector<ast::StmtPtr> pruned;
  for (ast::StmtPtr &s : def_.body) {
    std::optional<bool> taken;
    if (s->kind == ast::StmtKind::If)
      taken = constant_condition(*s->test, bound);
    // a branch that returns or raises on every path stays an `if`: the typer then knows the
    // statements after it unreachable
    if (!taken || !may_complete(*taken ? s->body : s->orelse)) {
      pruned.push_back(std::move(s));
      continue;
    }
    for (ast::StmtPtr &kept : *taken ? s->body : s->orelse)
      pruned.push_back(std::move(kept));
  }
  if (pruned.empty()) { // every statement was in a branch not taken
    pruned.push_back(std::make_unique<ast::Stmt>());
    pruned.back()->loc = def_.loc;
  }
  def_.body = std::move(pruned);
}

} // namespace simt
