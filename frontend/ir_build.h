// Small constructors for typed IR nodes, shared by the typer's files.
#pragma once

#include "ir/ir.h"

#include <utility>

namespace simt {

inline ir::ExprPtr make_expr(ir::ExprKind kind, Type type, ir::Loc loc) {
  auto e = std::make_unique<ir::Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->loc = loc;
  return e;
}

inline ir::ExprPtr make_intrinsic(ir::Intrinsic id, Type type, ir::Loc loc) {
  auto e = make_expr(ir::ExprKind::Intrinsic, std::move(type), loc);
  e->intrinsic = id;
  return e;
}

// `a op b` on operands already of `type` (see ir.h: casts are explicit).
inline ir::ExprPtr make_binary(ir::Op op, Scalar type, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc) {
  auto e = make_expr(ir::ExprKind::Binary, Type::scalar_of(type), loc);
  e->op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// `a op b` (Eq, Ne, Lt, ...) on operands of one type: a bool.
inline ir::ExprPtr make_compare(ir::Op op, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc) {
  auto e = make_expr(ir::ExprKind::Compare, Type::scalar_of(Scalar::Bool), loc);
  e->op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// `yes if test else no` (only the chosen branch is evaluated), of `no`'s type.
inline ir::ExprPtr make_select(ir::ExprPtr test, ir::ExprPtr yes, ir::ExprPtr no) {
  auto e = make_expr(ir::ExprKind::Select, no->type, no->loc);
  e->args.push_back(std::move(test));
  e->args.push_back(std::move(yes));
  e->args.push_back(std::move(no));
  return e;
}

// `a op b` on int32 thread/block indices (see Expr::no_wrap).
inline ir::ExprPtr make_index_arithmetic(ir::Op op, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc) {
  auto e = make_binary(op, Scalar::I32, std::move(a), std::move(b), loc);
  e->no_wrap = true;
  return e;
}

// A special register read (threadIdx, blockIdx, blockDim, gridDim) of one axis: int32.
inline ir::ExprPtr make_special(ir::Op op, int axis, ir::Loc loc) {
  auto s = make_expr(ir::ExprKind::Special, Type::scalar_of(Scalar::I32), loc);
  s->op = op;
  s->index = axis;
  return s;
}

inline ir::Stmt make_stmt(ir::StmtKind kind, ir::Loc loc) {
  ir::Stmt s;
  s.kind = kind;
  s.loc = loc;
  return s;
}

// slot = value
inline ir::Stmt make_assign(int slot, ir::ExprPtr value, ir::Loc loc) {
  ir::Stmt s = make_stmt(ir::StmtKind::Assign, loc);
  s.slot = slot;
  s.exprs.push_back(std::move(value));
  return s;
}

} // namespace simt
