// The typed IR's one traversal: every statement of a body (nested blocks included) and every
// expression of a statement or expression, in source order, parents before their children.
// Analyses and transforms visit what they need through these rather than recursing by hand; each
// takes the IR const or mutable, and hands `visit` references of the same constness.
#pragma once

#include "ir/ir.h"

#include <type_traits>

namespace simt::ir {

// `e` and each expression under it (its arguments, theirs, ...).
template <typename E, typename Visit> void walk_expr(E &e, Visit &&visit) {
  static_assert(std::is_same_v<std::remove_const_t<E>, Expr>);
  visit(e);
  for (auto &arg : e.args)
    walk_expr(static_cast<E &>(*arg), visit);
}

template <typename Body, typename Visit> void walk_stmts(Body &body, Visit &&visit);

// Statement `s` and each statement of the blocks nested in it, a body before its else clause.
template <typename S, typename Visit> void walk_stmt(S &s, Visit &&visit) {
  static_assert(std::is_same_v<std::remove_const_t<S>, Stmt>);
  visit(s);
  walk_stmts(s.body, visit);
  walk_stmts(s.orelse, visit);
}

// Each statement of `body` (a std::vector<Stmt>) as walk_stmt visits them.
template <typename Body, typename Visit> void walk_stmts(Body &body, Visit &&visit) {
  for (auto &s : body)
    walk_stmt(s, visit);
}

// Each expression of statement `s` itself (not of its nested blocks).
template <typename S, typename Visit> void walk_stmt_exprs(S &s, Visit &&visit) {
  static_assert(std::is_same_v<std::remove_const_t<S>, Stmt>);
  using E = std::conditional_t<std::is_const_v<S>, const Expr, Expr>;
  for (auto &e : s.exprs)
    walk_expr(static_cast<E &>(*e), visit);
}

// Each expression of every statement of `body`, nested blocks included.
template <typename Body, typename Visit> void walk_exprs(Body &body, Visit &&visit) {
  walk_stmts(body, [&](auto &s) { walk_stmt_exprs(s, visit); });
}

// Whether `e` or an expression under it satisfies `test` (stops at the first that does).
template <typename Test> bool any_expr(const Expr &e, Test &&test) {
  if (test(e))
    return true;
  for (const ExprPtr &arg : e.args)
    if (any_expr(*arg, test))
      return true;
  return false;
}

// The number of statements in `body`, nested ones included.
inline size_t statement_count(const std::vector<Stmt> &body) {
  size_t count = 0;
  walk_stmts(body, [&](const Stmt &) { ++count; });
  return count;
}

} // namespace simt::ir
