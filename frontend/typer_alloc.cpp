// Arrays allocated by a kernel (numba-cuda's NRT): np.empty, np.zeros, np.ones, np.full, their
// *_like forms, np.copy and array.copy(). Each is one ArrayAlloc expression (ir/ir.h)
// followed by the loops that fill it, so every backend sees the allocation once and the stores
// as ordinary, bounds-checked array stores.
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

namespace simt {

namespace {

// How an allocation call fills its elements.
enum class Fill { None, Zero, One, Value, Copy };

struct AllocationFunction {
  const char *name;
  Fill fill;
  bool like; // shape (and default dtype) from an array argument
};

constexpr AllocationFunction kAllocationFunctions[] = {
    {"empty", Fill::None, false},     {"zeros", Fill::Zero, false},
    {"ones", Fill::One, false},       {"full", Fill::Value, false},
    {"empty_like", Fill::None, true}, {"zeros_like", Fill::Zero, true},
    {"ones_like", Fill::One, true},   {"full_like", Fill::Value, true},
    {"copy", Fill::Copy, true},
};

const AllocationFunction *find_allocation_function(const std::string &name) {
  for (const AllocationFunction &fn : kAllocationFunctions)
    if (name == fn.name)
      return &fn;
  return nullptr;
}

} // namespace

bool is_allocation_function(const std::string &numpy_name) {
  return find_allocation_function(numpy_name) != nullptr;
}

// The extents of a shape argument: an integer or a tuple of integers, as int64.
std::vector<ir::ExprPtr> FunctionTyper::shape_extents(const ast::Expr &shape) {
  std::vector<ir::ExprPtr> values;
  values.push_back(rvalue(shape));
  return int64_extents(std::move(values), true,
                       "array shapes must be integers or tuples of integers, not ", shape.loc);
}

std::vector<ir::ExprPtr> FunctionTyper::int64_extents(std::vector<ir::ExprPtr> values,
                                                      bool tuple_allowed, const std::string &what,
                                                      ir::Loc loc) {
  std::vector<ir::ExprPtr> extents;
  if (tuple_allowed && values.size() == 1 && values[0]->type.is_tuple() &&
      !values[0]->type.is_optional()) {
    ir::ExprPtr v = stable(std::move(values[0]));
    for (size_t k = 0; k < v->type.elems.size(); ++k)
      extents.push_back(tuple_item(clone(*v), static_cast<int>(k), loc));
  } else {
    extents = std::move(values);
  }
  for (ir::ExprPtr &x : extents) {
    if (!x->type.is_scalar() || !is_integer(x->type.scalar))
      error(loc, what + x->type.str());
    x = stable(cast(std::move(x), Type::scalar_of(Scalar::I64)));
  }
  return extents;
}

// A fresh array of `dtype` and `extents`, held in a temporary; ValueError for a negative extent.
ir::ExprPtr FunctionTyper::allocated_array(Scalar dtype, std::vector<ir::ExprPtr> extents,
                                           bool zeroed, ir::Loc loc) {
  for (const ir::ExprPtr &x : extents)
    raise_if(make_compare(ir::Op::Lt, clone(*x), scalar_const(Scalar::I64, 0, 0, loc), loc),
             "ValueError", "negative dimensions not allowed", loc);
  const int ndim = static_cast<int>(extents.size());
  auto alloc =
      make_expr(ir::ExprKind::ArrayAlloc, Type::array_of(dtype, ndim, 'C', MemSpace::Global), loc);
  alloc->args = std::move(extents);
  alloc->int_value = zeroed ? 1 : 0;
  return local(temp_holding(std::move(alloc)), loc);
}

// Stores src's elements into dst's (both of one shape), in C order.
void FunctionTyper::copy_elements(ir::ExprPtr dst, ir::ExprPtr src, ir::Loc loc) {
  const int ndim = dst->type.ndim;
  ir::Stmt store = make_stmt(ir::StmtKind::Store, loc);
  auto load = make_expr(ir::ExprKind::ArrayLoad, src->type.element(), loc);
  load->args.push_back(clone(*src));
  store.exprs.push_back(clone(*dst));
  std::vector<int> counters;
  for (int axis = 0; axis < ndim; ++axis) {
    counters.push_back(new_temp(Type::scalar_of(Scalar::I64)));
    store.exprs.push_back(local(counters.back(), loc));
    load->args.push_back(local(counters.back(), loc));
  }
  store.exprs.push_back(cast(std::move(load), dst->type.element()));
  std::vector<ir::Stmt> body;
  body.push_back(std::move(store));
  for (ir::Stmt &s : looped_over_axes(*dst, counters, std::move(body), loc))
    emit(std::move(s));
}

ir::ExprPtr FunctionTyper::array_copy(ir::ExprPtr array, ir::Loc loc) {
  if (array->type.is_record_array())
    error(loc, "simt: copying a record array in a kernel is not supported yet");
  array = stable(std::move(array));
  std::vector<ir::ExprPtr> extents;
  for (int axis = 0; axis < array->type.ndim; ++axis) {
    auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), loc);
    extent->index = axis;
    extent->args.push_back(clone(*array));
    extents.push_back(std::move(extent));
  }
  ir::ExprPtr copy = allocated_array(array->type.scalar, std::move(extents), false, loc);
  copy_elements(clone(*copy), std::move(array), loc);
  return copy;
}

CallFamily FunctionTyper::allocation_calls() {
  return {"numpy allocations",
          {{"numpy.",
            [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_allocation(name, e);
            },
            is_allocation_function}}};
}

// np.<name>(...) for an allocation function (is_allocation_function).
Value FunctionTyper::call_allocation(const std::string &name, const ast::Expr &e) {
  const AllocationFunction &fn = *find_allocation_function(name);
  const std::string full = "np." + name;
  if (fn.fill == Fill::Copy) {
    ir::ExprPtr array = rvalue(*call_args(e, full, {"a"}, 1)[0]);
    if (!array->type.is_array())
      error(e.loc, "simt: " + full + " of " + array->type.str() + " is not supported");
    return expr_value(array_copy(std::move(array), e.loc));
  }
  std::vector<std::string> params = {fn.like ? "a" : "shape"};
  if (fn.fill == Fill::Value)
    params.push_back("fill_value");
  params.push_back("dtype");
  auto args = call_args(e, full, params, params.size() - 1);
  std::vector<ir::ExprPtr> extents;
  std::optional<Scalar> dtype;
  if (fn.like) {
    ir::ExprPtr like = rvalue(*args[0]);
    if (!like->type.is_array() || like->type.is_record_array())
      error(args[0]->loc, "simt: " + full + " of " + like->type.str() + " is not supported");
    like = stable(std::move(like));
    dtype = like->type.scalar;
    for (int axis = 0; axis < like->type.ndim; ++axis) {
      auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), e.loc);
      extent->index = axis;
      extent->args.push_back(clone(*like));
      extents.push_back(std::move(extent));
    }
  } else {
    extents = shape_extents(*args[0]);
  }
  ir::ExprPtr fill_value;
  if (fn.fill == Fill::Value) {
    fill_value = rvalue(*args[1]);
    if (!fill_value->type.is_scalar())
      error(args[1]->loc, "simt: " + full + " with a fill value of " + fill_value->type.str() +
                              " is not supported");
    if (!fn.like)
      dtype = fill_value->type.scalar;
    fill_value = stable(std::move(fill_value)); // Python evaluates the arguments first
  }
  const ast::Expr *dtype_arg = args.back();
  const auto python_float = [&](const ast::Expr &e) { // Numba's dtype=float: float64
    if (e.kind != ast::ExprKind::Name)
      return false;
    const Value v = value(e);
    return v.kind == Value::Kind::Path && v.path == "builtins.float";
  };
  if (dtype_arg && python_float(*dtype_arg)) {
    dtype = Scalar::F64;
  } else if (dtype_arg && dtype_arg->kind != ast::ExprKind::None) {
    const ir::ArrayElements elements = elements_of(*dtype_arg);
    if (elements.record)
      error(dtype_arg->loc, "simt: " + full + " of a record dtype is not supported yet");
    dtype = elements.dtype;
  }
  ir::ExprPtr array = allocated_array(dtype.value_or(Scalar::F64), std::move(extents),
                                      fn.fill == Fill::Zero, e.loc);
  if (fn.fill == Fill::One)
    fill_value = scalar_const(Scalar::I64, 1, 0, e.loc);
  if (fill_value)
    store_into_view(clone(*array), std::move(fill_value), e.loc);
  return expr_value(std::move(array));
}

} // namespace simt
