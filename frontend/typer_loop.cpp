// for loops over arrays, tuples, enumerate() and zip(), and the else clauses of loops.
//
// Each becomes a range() loop over a hidden counter: the iterables are evaluated once before the
// loop, the trip count is the shortest iterable's, and the loop target is assigned the item at
// the counter first in each iteration.
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

namespace {

ir::ExprPtr intrinsic_i64(ir::Intrinsic id, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc) {
  auto e = make_intrinsic(id, Type::scalar_of(Scalar::I64), loc);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

bool is_index_type(const Type &t) {
  return t.is_scalar() && (is_integer(t.scalar) || t.scalar == Scalar::Bool);
}

} // namespace

struct FunctionTyper::Iterable {
  enum class Kind : uint8_t { Array, Tuple, Range, Enumerate, Zip } kind = Kind::Array;
  ir::ExprPtr value;           // Array/Tuple: the (stable) object; Range: start
  ir::ExprPtr stop, step;      // Range (stable)
  ir::ExprPtr start;           // Enumerate: the first count (stable)
  std::vector<Iterable> parts; // Enumerate: one; Zip: each
};

FunctionTyper::Iterable FunctionTyper::iterable(const ast::Expr &e) {
  Iterable it;
  Type i64 = Type::scalar_of(Scalar::I64);
  if (e.kind == ast::ExprKind::Call) {
    Value fn = value(*e.elts[0]);
    std::string name = fn.kind == Value::Kind::Path ? fn.path : "";
    if (name == "builtins.range" || name == "builtins.enumerate" || name == "builtins.zip") {
      std::string short_name = name.substr(9);
      if (!e.keywords.empty())
        error(e.loc, short_name + "() takes no keyword arguments");
      size_t nargs = e.elts.size() - 1;
      if (name == "builtins.range") {
        if (nargs < 1 || nargs > 3)
          error(e.loc, "range expects 1 to 3 arguments, got " + std::to_string(nargs));
        std::vector<ir::ExprPtr> bounds;
        for (size_t i = 1; i <= nargs; ++i) {
          ir::ExprPtr b = rvalue(*e.elts[i]);
          if (!is_index_type(b->type))
            error(b->loc, "range() arguments must be integers, not " + b->type.str());
          bounds.push_back(stable(cast(std::move(b), i64)));
        }
        if (nargs == 1)
          bounds.insert(bounds.begin(), scalar_const(Scalar::I64, 0, 0, e.loc));
        if (nargs < 3)
          bounds.push_back(scalar_const(Scalar::I64, 1, 0, e.loc));
        it.kind = Iterable::Kind::Range;
        it.value = std::move(bounds[0]);
        it.stop = std::move(bounds[1]);
        it.step = std::move(bounds[2]);
        return it;
      }
      if (name == "builtins.enumerate") {
        if (nargs < 1 || nargs > 2)
          error(e.loc, "enumerate expects 1 or 2 arguments, got " + std::to_string(nargs));
        it.kind = Iterable::Kind::Enumerate;
        it.parts.push_back(iterable(*e.elts[1]));
        it.start = scalar_const(Scalar::I64, 0, 0, e.loc);
        if (nargs == 2) {
          ir::ExprPtr start = rvalue(*e.elts[2]);
          if (!start->type.is_scalar() || !is_integer(start->type.scalar))
            error(e.elts[2]->loc, "Only integers supported as start value in enumerate");
          it.start = stable(cast(std::move(start), i64));
        }
        return it;
      }
      if (nargs == 0)
        error(e.loc, "simt: zip() of no iterables is not supported yet");
      it.kind = Iterable::Kind::Zip;
      for (size_t i = 1; i <= nargs; ++i)
        it.parts.push_back(iterable(*e.elts[i]));
      return it;
    }
  }
  ir::ExprPtr v = iterated(e);
  if (v->type.is_array()) {
    if (v->type.ndim == 0)
      error(e.loc, "iteration over a 0-d array");
    it.kind = Iterable::Kind::Array;
  } else if (v->type.is_tuple()) {
    const std::vector<Type> &elems = v->type.elems;
    for (const Type &t : elems)
      if (t != elems.front())
        error(e.loc, "cannot iterate over " + v->type.str() +
                         ": like Numba, simt iterates only over tuples whose elements have one "
                         "type");
    it.kind = Iterable::Kind::Tuple;
  } else {
    error(e.loc, "'" + v->type.str() + "' object is not iterable");
  }
  it.value = stable(std::move(v));
  return it;
}

ir::ExprPtr FunctionTyper::iteration_count(const Iterable &it, ir::Loc loc) {
  switch (it.kind) {
  case Iterable::Kind::Array: {
    auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), loc);
    extent->index = 0;
    extent->args.push_back(clone(*it.value));
    return extent;
  }
  case Iterable::Kind::Tuple:
    return scalar_const(Scalar::I64, static_cast<int64_t>(it.value->type.elems.size()), 0, loc);
  case Iterable::Kind::Range: {
    // max(0, (stop - start + step - sign(step)) // step), after a zero step raised
    if (it.step->kind != ir::ExprKind::Const || it.step->int_value == 0) {
      auto zero =
          make_compare(ir::Op::Eq, clone(*it.step), scalar_const(Scalar::I64, 0, 0, loc), loc);
      ir::Stmt check;
      check.kind = ir::StmtKind::If;
      check.loc = loc;
      check.exprs.push_back(std::move(zero));
      ir::Stmt raise;
      raise.kind = ir::StmtKind::Raise;
      raise.loc = loc;
      raise.exc = "ValueError";
      raise.message = "range() arg 3 must not be zero";
      check.body.push_back(std::move(raise));
      emit(std::move(check));
    }
    auto sign = make_select(
        make_compare(ir::Op::Gt, clone(*it.step), scalar_const(Scalar::I64, 0, 0, loc), loc),
        scalar_const(Scalar::I64, 1, 0, loc), scalar_const(Scalar::I64, -1, 0, loc));
    ir::ExprPtr span =
        make_binary(ir::Op::Sub, Scalar::I64, clone(*it.stop), clone(*it.value), loc);
    span = make_binary(ir::Op::Add, Scalar::I64, std::move(span), clone(*it.step), loc);
    span = make_binary(ir::Op::Sub, Scalar::I64, std::move(span), std::move(sign), loc);
    ir::ExprPtr count =
        make_binary(ir::Op::FloorDiv, Scalar::I64, std::move(span), clone(*it.step), loc);
    return intrinsic_i64(ir::Intrinsic::Imax, std::move(count),
                         scalar_const(Scalar::I64, 0, 0, loc), loc);
  }
  case Iterable::Kind::Enumerate:
    return iteration_count(it.parts[0], loc);
  case Iterable::Kind::Zip: {
    ir::ExprPtr count = iteration_count(it.parts[0], loc);
    for (size_t i = 1; i < it.parts.size(); ++i)
      count = intrinsic_i64(ir::Intrinsic::Imin, std::move(count),
                            iteration_count(it.parts[i], loc), loc);
    return count;
  }
  }
  error(loc, "simt: this iterable is not supported yet");
}

ir::ExprPtr FunctionTyper::iteration_item(const Iterable &it, const ir::Expr &counter,
                                          ir::Loc loc) {
  switch (it.kind) {
  case Iterable::Kind::Array: {
    const Type &type = it.value->type;
    // Numba's ArrayIterator: elements of a 1-D array, 'A' views of the rows otherwise
    ir::ExprKind kind = type.ndim == 1 ? ir::ExprKind::ArrayLoad : ir::ExprKind::ArrayView;
    Type item = type.ndim == 1 ? type.element() : type.view_of(type.ndim - 1, 'A');
    auto e = make_expr(kind, item, loc);
    e->args.push_back(clone(*it.value));
    e->args.push_back(clone(counter));
    return e;
  }
  case Iterable::Kind::Tuple:
    return tuple_index(clone(*it.value), clone(counter), loc);
  case Iterable::Kind::Range:
    return make_binary(ir::Op::Add, Scalar::I64, clone(*it.value),
                       make_binary(ir::Op::Mul, Scalar::I64, clone(counter), clone(*it.step), loc),
                       loc);
  case Iterable::Kind::Enumerate: {
    ir::ExprPtr index =
        make_binary(ir::Op::Add, Scalar::I64, clone(*it.start), clone(counter), loc);
    ir::ExprPtr item = iteration_item(it.parts[0], counter, loc);
    auto t = make_expr(ir::ExprKind::TupleMake, Type::tuple_of({index->type, item->type}), loc);
    t->args.push_back(std::move(index));
    t->args.push_back(std::move(item));
    return t;
  }
  case Iterable::Kind::Zip: {
    std::vector<ir::ExprPtr> items;
    std::vector<Type> types;
    for (const Iterable &part : it.parts) {
      items.push_back(iteration_item(part, counter, loc));
      types.push_back(items.back()->type);
    }
    auto t = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(types), loc);
    t->args = std::move(items);
    return t;
  }
  }
  error(loc, "simt: this iterable is not supported yet");
}

void FunctionTyper::for_each(const ast::Stmt &s) {
  Iterable it = iterable(*s.iter);
  ir::Loc loc = s.iter->loc;
  const auto empty_tuple = [](const Iterable &i) {
    return i.kind == Iterable::Kind::Tuple && i.value->type.elems.empty();
  };
  if (empty_tuple(it)) { // no iteration (the body is not typed: nothing binds its variable)
    for (ir::Stmt &after : block(s.orelse))
      emit(std::move(after));
    return;
  }
  for (const Iterable &part : it.parts)
    if (empty_tuple(part))
      error(loc, "simt: enumerate() or zip() of an empty tuple is not supported yet");
  ir::Stmt loop;
  loop.kind = ir::StmtKind::ForRange;
  loop.loc = s.loc;
  loop.exprs.push_back(scalar_const(Scalar::I64, 0, 0, loc));
  loop.exprs.push_back(iteration_count(it, loc));
  loop.exprs.push_back(scalar_const(Scalar::I64, 1, 0, loc));
  loop.slot = new_temp(Type::scalar_of(Scalar::I64));
  ir::ExprPtr counter = local(loop.slot, loc);
  std::vector<ir::Stmt> *saved = round_.out;
  round_.out = &loop.body;
  ++round_.loop_depth;
  Value item;
  item.kind = Value::Kind::Expr;
  item.expr = iteration_item(it, *counter, loc);
  assign(*s.target, std::move(item), s.target->loc);
  for (ir::Stmt &b : block(s.body))
    loop.body.push_back(std::move(b));
  --round_.loop_depth;
  round_.out = saved;
  loop.orelse = block(s.orelse);
  emit(std::move(loop));
}

std::vector<ir::Stmt> FunctionTyper::looped_over_axes(const ir::Expr &array,
                                                      const std::vector<int> &counters,
                                                      std::vector<ir::Stmt> body, ir::Loc loc) {
  for (size_t axis = counters.size(); axis-- > 0;) {
    ir::Stmt loop = make_stmt(ir::StmtKind::ForRange, loc);
    loop.slot = counters[axis];
    auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), loc);
    extent->index = static_cast<int>(axis);
    extent->args.push_back(clone(array));
    loop.exprs.push_back(scalar_const(Scalar::I64, 0, 0, loc));
    loop.exprs.push_back(std::move(extent));
    loop.exprs.push_back(scalar_const(Scalar::I64, 1, 0, loc));
    loop.body = std::move(body);
    body.clear();
    body.push_back(std::move(loop));
  }
  return body;
}

} // namespace simt
