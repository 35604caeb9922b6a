// a[i:j] = (x, y, ...): a tuple of one element type stored into a 1-d view, element by element,
// as Numba's fancy_setslice stores a sequence (numba/np/arrayobj.py).
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

void FunctionTyper::store_tuple_into_view(ir::ExprPtr view, ir::ExprPtr value, ir::Loc loc) {
  const std::vector<Type> &elems = value->type.elems;
  bool uniform = !elems.empty() && elems.front().is_scalar();
  for (const Type &t : elems)
    uniform &= t == elems.front();
  if (!uniform || view->type.ndim != 1)
    error(value->loc, "simt: storing " + value->type.str() + " into " + view->type.str() +
                          " is not supported, as in Numba's CUDA target (only a tuple of one "
                          "scalar type into a 1-d slice)");
  Type dtype = view->type.element();
  value = stable(std::move(value)); // Python evaluates the value first
  view = stable(std::move(view));
  int64_t n = static_cast<int64_t>(elems.size());
  auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), loc);
  extent->index = 0;
  extent->args.push_back(clone(*view));
  auto differs =
      make_compare(ir::Op::Ne, std::move(extent), scalar_const(Scalar::I64, n, 0, loc), loc);
  raise_if(std::move(differs), "ValueError", "cannot assign slice from input of different size",
           loc);
  for (int64_t k = 0; k < n; ++k) {
    auto element = make_expr(ir::ExprKind::TupleGet, elems[k], loc);
    element->index = static_cast<int>(k);
    element->args.push_back(clone(*value));
    ir::Stmt store = make_stmt(ir::StmtKind::Store, loc);
    store.exprs.push_back(clone(*view));
    store.exprs.push_back(scalar_const(Scalar::I64, k, 0, loc));
    store.exprs.push_back(cast(std::move(element), dtype));
    emit(std::move(store));
  }
}

} // namespace simt
