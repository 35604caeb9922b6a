// Indexing a uniform tuple with a run-time index, as Numba's getitem_unituple does.
#include "frontend/typer.h"

#include <algorithm>

namespace simt {

// tup[i]: IndexError("tuple index out of range") unless -n <= i < n; negative indices wrap once.
ir::ExprPtr FunctionTyper::tuple_get_dynamic(ir::ExprPtr tuple, ir::ExprPtr index, ir::Loc loc) {
  const std::vector<Type> &elems = tuple->type.elems;
  int64_t n = static_cast<int64_t>(elems.size());
  if (n == 0 ||
      !std::all_of(elems.begin(), elems.end(), [&](const Type &t) { return t == elems[0]; }))
    error(index->loc, "simt: indexing " + tuple->type.str() +
                          " needs a constant index (only tuples of one type take a run-time "
                          "index)");
  Type elem = elems[0];
  ir::Loc at = index->loc;
  tuple = stable(std::move(tuple));
  index = stable(cast(std::move(index), Type::scalar_of(Scalar::I64)));
  auto i64 = [&](int64_t v) { return scalar_const(Scalar::I64, v, 0, at); };

  auto below = compare_pair("<", clone(*index), i64(-n), at);
  auto above = compare_pair(">=", clone(*index), i64(n), at);
  auto out_of_range = std::make_unique<ir::Expr>();
  out_of_range->kind = ir::ExprKind::Or;
  out_of_range->type = Type::scalar_of(Scalar::Bool);
  out_of_range->loc = at;
  out_of_range->args.push_back(std::move(below));
  out_of_range->args.push_back(std::move(above));
  ir::Stmt check;
  check.kind = ir::StmtKind::If;
  check.loc = loc;
  check.exprs.push_back(std::move(out_of_range));
  ir::Stmt raise;
  raise.kind = ir::StmtKind::Raise;
  raise.loc = loc;
  raise.exc = "IndexError";
  raise.message = "tuple index out of range";
  check.body.push_back(std::move(raise));
  emit(std::move(check));

  // Element n-1 unless the index names an earlier one (i or i - n).
  auto element = [&](int64_t k) {
    auto get = std::make_unique<ir::Expr>();
    get->kind = ir::ExprKind::TupleGet;
    get->type = elem;
    get->loc = loc;
    get->index = static_cast<int>(k);
    get->args.push_back(clone(*tuple));
    return get;
  };
  ir::ExprPtr result = element(n - 1);
  for (int64_t k = n - 2; k >= 0; --k) {
    auto names_k = std::make_unique<ir::Expr>();
    names_k->kind = ir::ExprKind::Or;
    names_k->type = Type::scalar_of(Scalar::Bool);
    names_k->loc = at;
    names_k->args.push_back(compare_pair("==", clone(*index), i64(k), at));
    names_k->args.push_back(compare_pair("==", clone(*index), i64(k - n), at));
    auto select = std::make_unique<ir::Expr>();
    select->kind = ir::ExprKind::Select;
    select->type = elem;
    select->loc = loc;
    select->args.push_back(std::move(names_k));
    select->args.push_back(element(k));
    select->args.push_back(std::move(result));
    result = std::move(select);
  }
  return result;
}

} // namespace simt
