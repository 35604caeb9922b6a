// array.reshape(shape) in kernels (Numba's array_reshape for a C-contiguous array): a view of the
// same data with new extents and C-order strides. One extent may be -1 (inferred from the size);
// the new size must equal the old (ValueError otherwise, Numba's messages).
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

// The extents reshape()'s arguments give: one int or a tuple of ints, or several ints.
std::vector<ir::ExprPtr> FunctionTyper::reshape_extents(const ast::Expr &call) {
  if (!call.keywords.empty())
    error(call.loc, "simt: reshape() keyword arguments (order=) are not supported yet");
  std::vector<ir::ExprPtr> values;
  for (size_t i = 1; i < call.elts.size(); ++i)
    values.push_back(rvalue(*call.elts[i]));
  return int64_extents(std::move(values), true, "reshape() takes integer extents, not ", call.loc);
}

ir::ExprPtr FunctionTyper::reshaped(ir::ExprPtr array, const ast::Expr &call) {
  const ir::Loc loc = call.loc;
  if (array->type.layout != 'C')
    error(loc, "simt: reshape() of a non-C-contiguous array (" + array->type.str() +
                   ") is not supported yet");
  std::vector<ir::ExprPtr> extents = reshape_extents(call);
  array = stable(std::move(array));
  auto i64 = [&](int64_t v) { return scalar_const(Scalar::I64, v, 0, loc); };
  auto mul = [&](ir::ExprPtr a, ir::ExprPtr b) {
    return make_binary(ir::Op::Mul, Scalar::I64, std::move(a), std::move(b), loc);
  };
  auto negative = [&](const ir::ExprPtr &x) {
    return make_compare(ir::Op::Lt, clone(*x), i64(0), loc);
  };
  auto size = make_expr(ir::ExprKind::ArraySize, Type::scalar_of(Scalar::I64), loc);
  size->args.push_back(clone(*array));
  ir::ExprPtr old_size = stable(std::move(size));
  // the product of the given extents but the negative one, and how many are negative
  ir::ExprPtr known = i64(1), negatives = i64(0);
  for (const ir::ExprPtr &x : extents) {
    known = mul(std::move(known), make_select(negative(x), i64(1), clone(*x)));
    negatives = make_binary(ir::Op::Add, Scalar::I64, std::move(negatives),
                            cast(negative(x), Type::scalar_of(Scalar::I64)), loc);
  }
  known = stable(std::move(known));
  negatives = stable(std::move(negatives));
  raise_if(make_compare(ir::Op::Gt, clone(*negatives), i64(1), loc), "ValueError",
           "multiple negative shape values", loc);
  ir::ExprPtr divisor =
      make_select(make_compare(ir::Op::Eq, clone(*known), i64(0), loc), i64(1), clone(*known));
  ir::ExprPtr inferred =
      stable(make_binary(ir::Op::FloorDiv, Scalar::I64, clone(*old_size), std::move(divisor), loc));
  ir::ExprPtr new_size = i64(1);
  for (ir::ExprPtr &x : extents) {
    x = stable(make_select(negative(x), clone(*inferred), clone(*x)));
    new_size = mul(std::move(new_size), clone(*x));
  }
  raise_if(make_compare(ir::Op::Ne, std::move(new_size), clone(*old_size), loc), "ValueError",
           "total size of new array must be unchanged", loc);
  Type type = array->type;
  type.ndim = static_cast<int>(extents.size());
  auto view = make_expr(ir::ExprKind::Reshape, type, loc);
  view->args.push_back(std::move(array));
  for (ir::ExprPtr &x : extents)
    view->args.push_back(std::move(x));
  return view;
}

} // namespace simt
