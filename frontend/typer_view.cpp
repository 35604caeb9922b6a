// Array subscripts that make views (partial integer indexing, slices) and stores through them,
// typed with Numba's layout rules (numba/core/typing/arraydecl.py, get_array_index_type).
#include "frontend/builtins.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

#include <limits>

namespace simt {

namespace {

// How one index keeps or drops contiguity: an integer, a slice without or with a step.
enum class IndexKind : uint8_t { Integer, Slice, SteppedSlice };

// Numba's keeps_contiguity/check_contiguity over indices from the outermost physical axis in.
bool keeps_contiguity(const std::vector<IndexKind> &outer_to_inner) {
  for (size_t i = 0; i < outer_to_inner.size(); ++i) {
    bool innermost = i + 1 == outer_to_inner.size();
    IndexKind k = outer_to_inner[i];
    if (k != IndexKind::Integer && !(innermost && k == IndexKind::Slice))
      return false;
  }
  return true;
}

// The layout of a view of a `layout` array indexed by `kinds` (Numba's rules, no ellipsis).
char view_layout(char layout, int ndim, const std::vector<IndexKind> &kinds) {
  if (layout == 'C')
    return keeps_contiguity(kinds) ? 'C' : 'A';
  if (layout == 'F') {
    // only a full index list can keep F order (integers on the right)
    if (static_cast<int>(kinds.size()) != ndim)
      return 'A';
    std::vector<IndexKind> reversed(kinds.rbegin(), kinds.rend());
    return keeps_contiguity(reversed) ? 'F' : 'A';
  }
  return 'A';
}

// -1 parses as neg(1): fold it, so a constant step picks the defaults (and codegen) statically.
ir::ExprPtr fold_negation(ir::ExprPtr e) {
  if (e->kind == ir::ExprKind::Unary && e->op == ir::Op::Neg &&
      e->args[0]->kind == ir::ExprKind::Const && e->type == e->args[0]->type) {
    ir::ExprPtr c = std::move(e->args[0]);
    c->int_value = static_cast<int64_t>(0 - static_cast<uint64_t>(c->int_value));
    c->loc = e->loc;
    return c;
  }
  return e;
}

} // namespace

ir::ExprPtr FunctionTyper::slice_operand(const ast::Expr &slice) {
  Type i64 = Type::scalar_of(Scalar::I64);
  auto part = [&](const ast::Expr *p) -> ir::ExprPtr {
    if (!p)
      return nullptr;
    ir::ExprPtr v = rvalue(*p);
    if (!v->type.is_scalar() || !is_integer(v->type.scalar))
      error(p->loc, "slice indices must be integers or None, not " + v->type.str());
    return fold_negation(cast(std::move(v), i64));
  };
  ir::ExprPtr start = part(slice.elts[0].get());
  ir::ExprPtr stop = part(slice.elts[1].get());
  ir::ExprPtr step = part(slice.elts[2].get());
  if (!step)
    step = scalar_const(Scalar::I64, 1, 0, slice.loc);
  if ((!start || !stop) && step->kind != ir::ExprKind::Const)
    step = stable(std::move(step));
  // Numba's defaults (cpython/slicing.py get_defaults), chosen by the step's sign
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto by_sign = [&](int64_t positive, int64_t negative) -> ir::ExprPtr {
    if (step->kind == ir::ExprKind::Const)
      return scalar_const(Scalar::I64, step->int_value < 0 ? negative : positive, 0, slice.loc);
    return make_select(make_compare(ir::Op::Lt, clone(*step),
                                    scalar_const(Scalar::I64, 0, 0, slice.loc), slice.loc),
                       scalar_const(Scalar::I64, negative, 0, slice.loc),
                       scalar_const(Scalar::I64, positive, 0, slice.loc));
  };
  if (!start)
    start = by_sign(0, kMax);
  if (!stop)
    stop = by_sign(kMax, kMin);
  auto s = make_expr(ir::ExprKind::Slice, Type::none(), slice.loc);
  s->args.push_back(std::move(start));
  s->args.push_back(std::move(stop));
  s->args.push_back(std::move(step));
  return s;
}

ir::ExprPtr FunctionTyper::array_subscript(ir::ExprPtr array, const ast::Expr &index, ir::Loc loc) {
  auto is_ellipsis = [](const ast::Expr &x) { return x.kind == ast::ExprKind::Ellipsis; };
  bool any_ellipsis = is_ellipsis(index);
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &elt : index.elts)
      any_ellipsis |= is_ellipsis(*elt);
  if (any_ellipsis)
    return ellipsis_subscript(std::move(array), index, loc);
  auto is_slice = [](const ast::Expr &x) { return x.kind == ast::ExprKind::Slice; };
  bool any_slice = is_slice(index);
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &elt : index.elts)
      any_slice |= is_slice(*elt);
  const Type type = array->type;
  if (!any_slice) {
    auto indices = array_indices(*array, index, loc, /*allow_partial=*/true);
    int remaining = type.ndim - static_cast<int>(indices.size());
    ir::ExprKind kind = remaining == 0 ? ir::ExprKind::ArrayLoad : ir::ExprKind::ArrayView;
    std::vector<IndexKind> kinds(indices.size(), IndexKind::Integer);
    Type result = remaining == 0
                      ? type.element()
                      : type.view_of(remaining, view_layout(type.layout, type.ndim, kinds));
    auto e = make_expr(kind, result, loc);
    e->args.push_back(std::move(array));
    for (auto &i : indices)
      e->args.push_back(std::move(i));
    return e;
  }
  std::vector<const ast::Expr *> items;
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &elt : index.elts)
      items.push_back(elt.get());
  else
    items.push_back(&index);
  if (static_cast<int>(items.size()) > type.ndim)
    error(loc, "cannot index " + type.str() + " with " + std::to_string(items.size()) + " indices");
  auto view = make_expr(ir::ExprKind::ArrayView, Type::none(), loc);
  view->args.push_back(std::move(array));
  std::vector<IndexKind> kinds;
  int kept = type.ndim;
  for (const ast::Expr *item : items) {
    if (is_slice(*item)) {
      view->args.push_back(slice_operand(*item));
      kinds.push_back(item->elts[2] ? IndexKind::SteppedSlice : IndexKind::Slice);
      continue;
    }
    ir::ExprPtr i = zero_d_index(rvalue(*item));
    if (!i->type.is_scalar() || !is_integer(i->type.scalar))
      error(i->loc, "array indices must be integers or slices, not " + i->type.str());
    view->args.push_back(cast(std::move(i), Type::scalar_of(Scalar::I64)));
    kinds.push_back(IndexKind::Integer);
    --kept;
  }
  view->type = type.view_of(kept, view_layout(type.layout, type.ndim, kinds));
  return view;
}

// a[view index] = scalar: the scalar is stored into every element of the view.
void FunctionTyper::store_into_view(ir::ExprPtr view, ir::ExprPtr value, ir::Loc loc) {
  if (value->type.is_tuple())
    return store_tuple_into_view(std::move(view), std::move(value), loc);
  if (!value->type.is_scalar())
    error(value->loc, "simt: storing " + value->type.str() +
                          " into an array slice is not supported, as in Numba's CUDA target "
                          "(it needs NRT); copy the elements in a loop");
  Type dtype = view->type.element();
  value = stable(cast(std::move(value), dtype)); // Python evaluates the value first
  view = stable(std::move(view));
  int ndim = view->type.ndim;
  ir::Stmt store;
  store.kind = ir::StmtKind::Store;
  store.loc = loc;
  store.exprs.push_back(clone(*view));
  std::vector<int> counters;
  for (int axis = 0; axis < ndim; ++axis) {
    counters.push_back(new_temp(Type::scalar_of(Scalar::I64)));
    store.exprs.push_back(local(counters.back(), loc));
  }
  store.exprs.push_back(std::move(value));
  std::vector<ir::Stmt> body;
  body.push_back(std::move(store));
  for (ir::Stmt &s : looped_over_axes(*view, counters, std::move(body), loc))
    emit(std::move(s));
}

ir::ExprPtr FunctionTyper::tuple_index(ir::ExprPtr tuple, ir::ExprPtr index, ir::Loc loc) {
  const std::vector<Type> &elems = tuple->type.elems;
  for (const Type &t : elems)
    if (t != elems.front())
      error(loc, "simt: indexing " + tuple->type.str() +
                     ", whose elements differ in type, needs a constant index");
  if (elems.empty())
    error(loc, "tuple index out of range");
  auto e = make_expr(ir::ExprKind::TupleIndex, elems.front(), loc);
  e->args.push_back(std::move(tuple));
  e->args.push_back(cast(std::move(index), Type::scalar_of(Scalar::I64)));
  return e;
}

// Tuples compare equal when they have the same length and equal elements (Numba: tuple_eq).
ir::ExprPtr FunctionTyper::tuple_equal(ir::ExprPtr lhs, ir::ExprPtr rhs, bool equal, ir::Loc loc) {
  size_t n = lhs->type.elems.size();
  if (n != rhs->type.elems.size())
    return scalar_const(Scalar::Bool, equal ? 0 : 1, 0, loc);
  lhs = stable(std::move(lhs));
  rhs = stable(std::move(rhs));
  ir::ExprPtr result;
  for (size_t i = n; i-- > 0;) {
    auto element = [&](const ir::ExprPtr &t) {
      auto get = make_expr(ir::ExprKind::TupleGet, t->type.elems[i], loc);
      get->index = static_cast<int>(i);
      get->args.push_back(clone(*t));
      return get;
    };
    ir::ExprPtr pair =
        compare_pair(equal ? Operator::Eq : Operator::NotEq, element(lhs), element(rhs), loc);
    if (!result) {
      result = std::move(pair);
      continue;
    }
    auto join =
        make_expr(equal ? ir::ExprKind::And : ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
    join->args.push_back(std::move(pair));
    join->args.push_back(std::move(result));
    result = std::move(join);
  }
  return result ? std::move(result) : scalar_const(Scalar::Bool, equal ? 1 : 0, 0, loc);
}

ir::ExprPtr FunctionTyper::tuple_order(ir::ExprPtr lhs, ir::ExprPtr rhs, Operator op, ir::Loc loc) {
  // Python's: the first elements that differ decide; when one tuple is the other's start, the
  // lengths do.
  const size_t n_lhs = lhs->type.elems.size(), n_rhs = rhs->type.elems.size();
  const int64_t lengths = op == Operator::Lt    ? n_lhs < n_rhs
                          : op == Operator::LtE ? n_lhs <= n_rhs
                          : op == Operator::Gt  ? n_lhs > n_rhs
                                                : n_lhs >= n_rhs;
  lhs = stable(std::move(lhs));
  rhs = stable(std::move(rhs));
  ir::ExprPtr result = scalar_const(Scalar::Bool, lengths, 0, loc);
  for (size_t i = std::min(n_lhs, n_rhs); i-- > 0;) {
    auto element = [&](const ir::ExprPtr &t) {
      auto get = make_expr(ir::ExprKind::TupleGet, t->type.elems[i], loc);
      get->index = static_cast<int>(i);
      get->args.push_back(clone(*t));
      return get;
    };
    ir::ExprPtr same = compare_pair(Operator::Eq, element(lhs), element(rhs), loc);
    result = make_select(std::move(same), std::move(result),
                         compare_pair(op, element(lhs), element(rhs), loc));
  }
  return result;
}

ir::ExprPtr FunctionTyper::transposed(ir::ExprPtr array, ir::Loc loc) {
  // NumPy's a.T: the axes reversed over the same data (C order becomes F order); each axis's
  // extent and stride replaced by its mirror's, as a dtype view replaces one axis's.
  const int ndim = array->type.ndim;
  if (ndim < 2)
    return array;
  array = stable(std::move(array));
  Type type = array->type;
  type.layout = type.layout == 'C' ? 'F' : type.layout == 'F' ? 'C' : 'A';
  ir::ExprPtr view = clone(*array);
  for (int axis = 0; axis < ndim; ++axis) {
    auto mirror = [&](ir::ExprKind kind) {
      auto part = make_expr(kind, Type::scalar_of(Scalar::I64), loc);
      part->index = ndim - 1 - axis;
      part->args.push_back(clone(*array));
      return part;
    };
    auto step = make_expr(ir::ExprKind::DtypeView, type, loc);
    step->args.push_back(std::move(view));
    step->args.push_back(scalar_const(Scalar::I64, axis, 0, loc));
    step->args.push_back(mirror(ir::ExprKind::ArrayShape));
    step->args.push_back(mirror(ir::ExprKind::ArrayStride));
    view = std::move(step);
  }
  return view;
}

ir::ExprPtr FunctionTyper::tuple_repeat(std::vector<ir::ExprPtr> tuples, int64_t times,
                                        ir::Loc loc) {
  constexpr int64_t kMaxElements = 4096;
  int64_t per_round = 0;
  for (const ir::ExprPtr &tuple : tuples)
    per_round += static_cast<int64_t>(tuple->type.elems.size());
  // checked before building: `t * 10**9` is refused at once
  if (per_round > 0 && times > kMaxElements / per_round)
    error(loc, "simt: a tuple of more than 4096 elements");
  std::vector<ir::ExprPtr> elems;
  std::vector<Type> types;
  for (ir::ExprPtr &tuple : tuples)
    tuple = stable(std::move(tuple));
  for (int64_t round = 0; round < times; ++round)
    for (const ir::ExprPtr &tuple : tuples)
      for (size_t k = 0; k < tuple->type.elems.size(); ++k) {
        types.push_back(tuple->type.elems[k]);
        elems.push_back(tuple_item(clone(*tuple), static_cast<int>(k), loc));
      }
  auto made = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(std::move(types)), loc);
  made->args = std::move(elems);
  return made;
}

// np.sum(a), np.amax(a), ...: the reductions of an array (a.sum(), a.max(), ...).
CallFamily FunctionTyper::reduction_calls() {
  return {
      "numpy reductions",
      {{"numpy.",
        [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
          const std::string full = "numpy." + name;
          auto args = t.call_args(e, full, {"a"}, 1);
          ir::ExprPtr array = t.rvalue(*args[0]);
          if (!array->type.is_array())
            t.error(args[0]->loc,
                    "simt: " + full + " of " + array->type.str() + " is not supported");
          return expr_value(
              t.array_reduction(*array_reduction_method(name, true), std::move(array), e.loc));
        },
        [](const std::string &name) { return array_reduction_method(name, true).has_value(); }}}};
}

ir::ExprPtr FunctionTyper::array_reduction(const std::string &op, ir::ExprPtr array, ir::Loc loc) {
  // Numba's array.sum/prod/min/max/mean: loops over the elements in C order into an
  // accumulator of its result type (sums of integers in 64 bits, means of them in float64);
  // min and max of an empty array raise ValueError, and return the first NaN they meet.
  const Type &type = array->type;
  if (type.record || type.ndim == 0)
    error(loc, "simt: " + op + "() of " + type.str() + " is not supported");
  const Scalar elem = type.scalar;
  const bool integral = is_integer(elem) || elem == Scalar::Bool;
  Scalar result = elem;
  if (op == "sum" || op == "prod")
    result = !integral ? elem : elem == Scalar::Bool || is_signed(elem) ? Scalar::I64 : Scalar::U64;
  else if (op == "mean")
    result = integral ? Scalar::F64 : elem;
  const bool extreme = op == "min" || op == "max";
  if (extreme && is_complex(elem))
    error(loc, "simt: " + op + "() of complex arrays is not supported");
  const Type acc_type = Type::scalar_of(result);
  array = stable(std::move(array));
  auto size = [&] {
    auto n = make_expr(ir::ExprKind::ArraySize, Type::scalar_of(Scalar::I64), loc);
    n->args.push_back(clone(*array));
    return n;
  };
  auto element = [&](std::vector<ir::ExprPtr> indices) {
    auto load = make_expr(ir::ExprKind::ArrayLoad, type.element(), loc);
    load->args.push_back(clone(*array));
    for (ir::ExprPtr &index : indices)
      load->args.push_back(std::move(index));
    return cast(std::move(load), acc_type);
  };
  const int acc = new_temp(acc_type);
  if (extreme) {
    raise_if(make_compare(ir::Op::Eq, size(), scalar_const(Scalar::I64, 0, 0, loc), loc),
             "ValueError",
             std::string("zero-size array to reduction operation ") +
                 (op == "min" ? "minimum" : "maximum") + " which has no identity",
             loc);
    std::vector<ir::ExprPtr> first;
    for (int axis = 0; axis < type.ndim; ++axis)
      first.push_back(scalar_const(Scalar::I64, 0, 0, loc));
    emit(make_assign(acc, element(std::move(first)), loc));
  } else {
    emit(make_assign(acc, cast(scalar_const(Scalar::I64, op == "prod" ? 1 : 0, 0, loc), acc_type),
                     loc));
  }
  // the innermost loop's body: acc = acc op a[i0, i1, ...]
  std::vector<int> counters;
  for (int axis = 0; axis < type.ndim; ++axis)
    counters.push_back(new_temp(Type::scalar_of(Scalar::I64)));
  std::vector<ir::ExprPtr> indices;
  for (int counter : counters)
    indices.push_back(local(counter, loc));
  ir::ExprPtr value = element(std::move(indices));
  ir::ExprPtr current = local(acc, loc);
  std::vector<ir::Stmt> body;
  if (!extreme) {
    body.push_back(make_assign(acc,
                               make_binary(op == "prod" ? ir::Op::Mul : ir::Op::Add, result,
                                           std::move(current), std::move(value), loc),
                               loc));
  } else if (is_real(result) && result != Scalar::BF16) {
    // a NaN accumulator stays; a NaN element, or a better one, replaces it
    const int v = new_temp(acc_type);
    body.push_back(make_assign(v, std::move(value), loc));
    value = local(v, loc);
    ir::ExprPtr nan_acc = make_compare(ir::Op::Ne, clone(*current), clone(*current), loc);
    auto take = make_expr(ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
    take->args.push_back(make_compare(ir::Op::Ne, clone(*value), clone(*value), loc));
    take->args.push_back(
        make_compare(op == "min" ? ir::Op::Lt : ir::Op::Gt, clone(*value), clone(*current), loc));
    body.push_back(
        make_assign(acc,
                    make_select(std::move(nan_acc), clone(*current),
                                make_select(std::move(take), std::move(value), clone(*current))),
                    loc));
  } else {
    ir::ExprPtr take =
        make_compare(op == "min" ? ir::Op::Lt : ir::Op::Gt, clone(*value), clone(*current), loc);
    body.push_back(
        make_assign(acc, make_select(std::move(take), std::move(value), std::move(current)), loc));
  }
  for (ir::Stmt &s : looped_over_axes(*array, counters, std::move(body), loc))
    emit(std::move(s));
  if (op != "mean")
    return local(acc, loc);
  return cast(binary(Operator::TrueDiv, local(acc, loc), size(), loc), acc_type);
}

// item in tuple: whether any element equals item.
ir::ExprPtr FunctionTyper::tuple_contains(ir::ExprPtr item, ir::ExprPtr tuple, ir::Loc loc) {
  item = stable(std::move(item));
  tuple = stable(std::move(tuple));
  ir::ExprPtr result;
  for (size_t i = tuple->type.elems.size(); i-- > 0;) {
    auto get = make_expr(ir::ExprKind::TupleGet, tuple->type.elems[i], loc);
    get->index = static_cast<int>(i);
    get->args.push_back(clone(*tuple));
    ir::ExprPtr eq = compare_pair(Operator::Eq, clone(*item), std::move(get), loc);
    if (!result) {
      result = std::move(eq);
      continue;
    }
    auto any = make_expr(ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
    any->args.push_back(std::move(eq));
    any->args.push_back(std::move(result));
    result = std::move(any);
  }
  return result ? std::move(result) : scalar_const(Scalar::Bool, 0, 0, loc);
}

// Numba's array.view(dtype) (_change_dtype, after NumPy's array_descr_set): the same bytes as
// another dtype. Between dtypes of one size nothing else changes; otherwise the contiguous axis
// (the last of a C array, the first of an F one; of an 'A' array whichever has the old itemsize
// as its stride, checked at run time) is rescaled, and a ValueError says where it cannot be.
ir::ExprPtr FunctionTyper::dtype_view(ir::ExprPtr array, const ast::Expr &call) {
  auto args = call_args(call, "view", {"dtype"}, 1);
  const Scalar to = dtype_of(*args[0]);
  const Type from = array->type;
  const ir::Loc loc = call.loc;
  if (from.record || from.nominal)
    error(loc, "simt: view() of a " + from.str() + " is not supported yet");
  Type result = from;
  result.scalar = to;
  const int64_t old_size = byte_size(from.scalar), new_size = byte_size(to);
  if (old_size == new_size) {
    auto same = make_expr(ir::ExprKind::FieldView, result, loc);
    same->index = 0; // the data at no offset
    same->args.push_back(std::move(array));
    return same;
  }
  auto i64 = [&](int64_t v) { return scalar_const(Scalar::I64, v, 0, loc); };
  auto part = [&](ir::ExprKind kind, int axis) {
    auto e = make_expr(kind, Type::scalar_of(Scalar::I64), loc);
    e->index = axis;
    e->args.push_back(clone(*array));
    return e;
  };
  auto compare = [&](ir::Op op, ir::ExprPtr a, ir::ExprPtr b) {
    return make_compare(op, std::move(a), std::move(b), loc);
  };
  const char *incompatible = "new type not compatible with array";
  if (from.ndim == 0 || (new_size < old_size && old_size % new_size != 0))
    error(loc, std::string(incompatible) + ": " + from.str() + " as " + scalar_name(to));
  array = stable(std::move(array));
  const int last = from.ndim - 1;
  // The axis: -1 where an 'A' array has neither end contiguous.
  ir::ExprPtr axis;
  if (from.layout == 'C' || from.layout == 'F') {
    axis = i64(from.layout == 'C' ? last : 0);
  } else {
    axis = make_select(
        compare(ir::Op::Eq, part(ir::ExprKind::ArrayStride, last), i64(old_size)), i64(last),
        make_select(compare(ir::Op::Eq, part(ir::ExprKind::ArrayStride, 0), i64(old_size)), i64(0),
                    i64(-1)));
  }
  axis = stable(std::move(axis));
  ir::ExprPtr extent = stable(from.layout == 'C' || from.layout == 'F'
                                  ? part(ir::ExprKind::ArrayShape, from.layout == 'C' ? last : 0)
                                  : make_select(compare(ir::Op::Eq, clone(*axis), i64(0)),
                                                part(ir::ExprKind::ArrayShape, 0),
                                                part(ir::ExprKind::ArrayShape, last)));
  raise_if(compare(ir::Op::Lt, clone(*axis), i64(0)), "ValueError",
           "To change to a dtype of a different size, the last axis must be contiguous", loc);
  ir::ExprPtr new_extent;
  if (new_size < old_size) {
    new_extent =
        make_binary(ir::Op::Mul, Scalar::I64, clone(*extent), i64(old_size / new_size), loc);
  } else {
    ir::ExprPtr bytes =
        stable(make_binary(ir::Op::Mul, Scalar::I64, clone(*extent), i64(old_size), loc));
    raise_if(compare(ir::Op::Ne,
                     make_binary(ir::Op::Mod, Scalar::I64, clone(*bytes), i64(new_size), loc),
                     i64(0)),
             "ValueError",
             "When changing to a larger dtype, its size must be a divisor of the total size in "
             "bytes of the last axis of the array.",
             loc);
    new_extent = make_binary(ir::Op::FloorDiv, Scalar::I64, clone(*bytes), i64(new_size), loc);
  }
  auto view = make_expr(ir::ExprKind::DtypeView, result, loc);
  view->args.push_back(std::move(array));
  view->args.push_back(std::move(axis));
  view->args.push_back(std::move(new_extent));
  view->args.push_back(i64(new_size));
  return view;
}

} // namespace simt
