// Concise construction of typed IR by hand, for backend tests that must not depend on the
// frontend. Every helper returns a complete node; types follow the IR's rules (operands already
// of the operation's type).
#pragma once

#include "ir/ir.h"

#include <string>
#include <utility>
#include <vector>

namespace simt::irb {

using ir::ExprPtr;
using ir::Op;
using ir::Stmt;

inline Type scalar(Scalar s) { return Type::scalar_of(s); }
inline Type i32() { return scalar(Scalar::I32); }
inline Type i64() { return scalar(Scalar::I64); }
inline Type u32() { return scalar(Scalar::U32); }
inline Type f32() { return scalar(Scalar::F32); }
inline Type f64() { return scalar(Scalar::F64); }
inline Type boolean() { return scalar(Scalar::Bool); }
inline Type array(Scalar dtype, int ndim, char layout = 'C', MemSpace space = MemSpace::Global) {
  return Type::array_of(dtype, ndim, layout, space);
}

template <typename... Args> std::vector<ExprPtr> list(Args &&...args) {
  std::vector<ExprPtr> out;
  (out.push_back(std::forward<Args>(args)), ...);
  return out;
}

inline ExprPtr node(ir::ExprKind kind, Type type, std::vector<ExprPtr> args = {}, Op op = Op::None,
                    int index = -1) {
  auto e = std::make_unique<ir::Expr>();
  e->kind = kind;
  e->type = std::move(type);
  e->args = std::move(args);
  e->op = op;
  e->index = index;
  e->loc = {1, 1};
  return e;
}

inline ExprPtr at(ExprPtr e, int line, int col = 1) {
  e->loc = {line, col};
  return e;
}

inline ExprPtr int_const(int64_t value, Type type = i64()) {
  ExprPtr e = node(ir::ExprKind::Const, std::move(type));
  e->int_value = value;
  return e;
}
inline ExprPtr float_const(double value, Type type = f64()) {
  ExprPtr e = node(ir::ExprKind::Const, std::move(type));
  e->float_value = value;
  return e;
}
inline ExprPtr bool_const(bool value) { return int_const(value, boolean()); }
inline ExprPtr text(std::string value) {
  ExprPtr e = node(ir::ExprKind::String, Type::none());
  e->name = std::move(value);
  return e;
}
inline ExprPtr local(int slot, Type type) {
  return node(ir::ExprKind::Local, std::move(type), {}, Op::None, slot);
}
inline ExprPtr unary(Op op, ExprPtr x) {
  Type type = op == Op::Not ? boolean() : x->type;
  return node(ir::ExprKind::Unary, type, list(std::move(x)), op);
}
inline ExprPtr binary(Op op, ExprPtr x, ExprPtr y) {
  Type type = x->type;
  return node(ir::ExprKind::Binary, type, list(std::move(x), std::move(y)), op);
}
inline ExprPtr compare(Op op, ExprPtr x, ExprPtr y) {
  return node(ir::ExprKind::Compare, boolean(), list(std::move(x), std::move(y)), op);
}
inline ExprPtr cast(ExprPtr x, Type to) {
  return node(ir::ExprKind::Cast, std::move(to), list(std::move(x)));
}
inline ExprPtr special(Op op, int axis = 0) {
  return node(ir::ExprKind::Special, i32(), {}, op, axis);
}
// cuda.grid(1) as int64: blockIdx.x * blockDim.x + threadIdx.x.
inline ExprPtr grid_x() {
  return binary(
      Op::Add,
      binary(Op::Mul, cast(special(Op::BlockIdx), i64()), cast(special(Op::BlockDim), i64())),
      cast(special(Op::ThreadIdx), i64()));
}
inline ExprPtr load(ExprPtr array, std::vector<ExprPtr> indices) {
  Type type = array->type.element();
  std::vector<ExprPtr> args = list(std::move(array));
  for (ExprPtr &index : indices)
    args.push_back(std::move(index));
  return node(ir::ExprKind::ArrayLoad, type, std::move(args));
}
inline ExprPtr shape(ExprPtr array, int axis) {
  return node(ir::ExprKind::ArrayShape, i64(), list(std::move(array)), Op::None, axis);
}
inline ExprPtr size(ExprPtr array) {
  return node(ir::ExprKind::ArraySize, i64(), list(std::move(array)));
}
inline ExprPtr tuple(std::vector<ExprPtr> elems) {
  std::vector<Type> types;
  for (const ExprPtr &e : elems)
    types.push_back(e->type);
  return node(ir::ExprKind::TupleMake, Type::tuple_of(types), std::move(elems));
}
inline ExprPtr get(ExprPtr tuple, int index) {
  Type type = tuple->type.elems[index];
  return node(ir::ExprKind::TupleGet, type, list(std::move(tuple)), Op::None, index);
}
inline ExprPtr call(int function, Type result, std::vector<ExprPtr> args) {
  return node(ir::ExprKind::Call, std::move(result), std::move(args), Op::None, function);
}
inline ExprPtr intrinsic(ir::Intrinsic id, Type result, std::vector<ExprPtr> args) {
  ExprPtr e = node(ir::ExprKind::Intrinsic, std::move(result), std::move(args));
  e->intrinsic = id;
  return e;
}
inline ExprPtr shared_array(int index, const ir::SharedArrayDecl &decl) {
  int ndim = decl.dynamic ? 1 : int(decl.shape.size());
  return node(ir::ExprKind::SharedArray, array(decl.elements.dtype, ndim, 'C', MemSpace::Shared),
              {}, Op::None, index);
}
inline ExprPtr local_array(int index, const ir::LocalArrayDecl &decl) {
  return node(ir::ExprKind::LocalArray,
              array(decl.elements.dtype, int(decl.shape.size()), 'C', MemSpace::Local), {},
              Op::None, index);
}
inline ExprPtr const_array(int index, const ir::ConstArrayDecl &decl) {
  return node(ir::ExprKind::ConstArray,
              array(decl.dtype, int(decl.shape.size()), 'C', MemSpace::Const), {}, Op::None, index);
}
// cuda.atomic.<op>(array, indices, values...): yields the old value.
inline ExprPtr atomic(Op op, ExprPtr array, std::vector<ExprPtr> indices,
                      std::vector<ExprPtr> values) {
  Type type = array->type.element();
  std::vector<ExprPtr> args = list(std::move(array));
  for (ExprPtr &index : indices)
    args.push_back(std::move(index));
  for (ExprPtr &value : values)
    args.push_back(std::move(value));
  return node(ir::ExprKind::Atomic, type, std::move(args), op);
}

inline Stmt stmt(ir::StmtKind kind, std::vector<ExprPtr> exprs = {}, int line = 1) {
  Stmt s;
  s.kind = kind;
  s.exprs = std::move(exprs);
  s.loc = {line, 1};
  return s;
}
inline Stmt assign(int slot, ExprPtr value, int line = 1) {
  Stmt s = stmt(ir::StmtKind::Assign, list(std::move(value)), line);
  s.slot = slot;
  return s;
}
inline Stmt store(ExprPtr array, std::vector<ExprPtr> indices, ExprPtr value, int line = 1) {
  std::vector<ExprPtr> exprs = list(std::move(array));
  for (ExprPtr &index : indices)
    exprs.push_back(std::move(index));
  exprs.push_back(std::move(value));
  return stmt(ir::StmtKind::Store, std::move(exprs), line);
}
inline Stmt eval(ExprPtr e, int line = 1) {
  return stmt(ir::StmtKind::Eval, list(std::move(e)), line);
}
template <typename... Stmts> std::vector<Stmt> block(Stmts &&...stmts) {
  std::vector<Stmt> out;
  (out.push_back(std::forward<Stmts>(stmts)), ...);
  return out;
}
inline Stmt if_(ExprPtr cond, std::vector<Stmt> body, std::vector<Stmt> orelse = {}) {
  Stmt s = stmt(ir::StmtKind::If, list(std::move(cond)));
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return s;
}
inline Stmt while_(ExprPtr cond, std::vector<Stmt> body) {
  Stmt s = stmt(ir::StmtKind::While, list(std::move(cond)));
  s.body = std::move(body);
  return s;
}
inline Stmt for_range(int slot, ExprPtr start, ExprPtr stop, ExprPtr step, std::vector<Stmt> body,
                      int line = 1) {
  Stmt s =
      stmt(ir::StmtKind::ForRange, list(std::move(start), std::move(stop), std::move(step)), line);
  s.slot = slot;
  s.body = std::move(body);
  return s;
}
inline Stmt ret(ExprPtr value = nullptr) {
  return value ? stmt(ir::StmtKind::Return, list(std::move(value))) : stmt(ir::StmtKind::Return);
}
inline Stmt print(std::vector<ExprPtr> items, int line = 1) {
  return stmt(ir::StmtKind::Print, std::move(items), line);
}
inline Stmt syncthreads(int line = 1) { return stmt(ir::StmtKind::SyncThreads, {}, line); }
inline Stmt raise(std::string exception, std::string message, int line = 1) {
  Stmt s = stmt(ir::StmtKind::Raise, {}, line);
  s.exc = std::move(exception);
  s.message = std::move(message);
  return s;
}

// A function under construction: parameters first, then locals.
struct FunctionBuilder {
  ir::Function f;

  FunctionBuilder(std::string name, bool kernel, Type result = Type::none()) {
    f.name = name;
    f.python_name = name;
    f.file = "kernel.py";
    f.first_line = 1;
    f.is_kernel = kernel;
    f.return_type = std::move(result);
  }
  int param(std::string name, Type type) {
    f.slots.push_back({std::move(name), std::move(type)});
    return f.num_params++;
  }
  int var(std::string name, Type type) {
    f.slots.push_back({std::move(name), std::move(type)});
    return int(f.slots.size()) - 1;
  }
  ExprPtr get(int slot) const { return local(slot, f.slots[slot].type); }
};

// A module whose kernel is `kernel` followed by `device` functions (called by index 1, 2, ...).
template <typename... Device> ir::Module module_of(ir::Function kernel, Device &&...device) {
  ir::Module m;
  m.functions.push_back(std::move(kernel));
  (m.functions.push_back(std::forward<Device>(device)), ...);
  m.props = m.functions[0].props;
  return m;
}

} // namespace simt::irb
