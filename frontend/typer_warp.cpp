// The warp intrinsics: cuda.shfl_*_sync, the votes (all/any/eq/ballot_sync), match_any_sync,
// match_all_sync, syncwarp, activemask and lanemask_lt, typed as Numba types them
// (numba/cuda/cudadecl.py and intrinsic_wrapper.py). Numba's shfl_sync and vote wrappers return
// one element of the intrinsic's (value, predicate) tuple; only that element is kept here.
#include "frontend/builtins.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

namespace {

// Cuda_shfl_sync_intrinsic's value cases (the mode, index and clamp are int32).
const std::vector<Scalar> kExchangedTypes = {Scalar::I32, Scalar::I64, Scalar::F32, Scalar::F64};

// The case among `types` an argument of type `actual` converts to, as Numba's case order picks it
// (uint32 -> int64, uint64 -> float64, bool and small ints -> int32).
Scalar exchanged_type(Scalar actual) {
  std::vector<Signature> cases;
  for (Scalar t : kExchangedTypes)
    cases.push_back({t, {t}});
  return select_overload({actual}, cases)->result;
}

} // namespace

bool is_warp_intrinsic(const std::string &name) {
  static const char *const names[] = {
      "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",  "all_sync",
      "any_sync",  "eq_sync",      "ballot_sync",    "match_any_sync", "match_all_sync",
      "syncwarp",  "activemask",   "lanemask_lt"};
  for (const char *n : names)
    if (name == n)
      return true;
  return false;
}

Value FunctionTyper::call_warp_intrinsic(const std::string &name, const ast::Expr &e) {
  const std::string full = "cuda." + name;
  const size_t given = e.elts.size() - 1;
  size_t arity = 2;
  if (name.rfind("shfl_", 0) == 0)
    arity = 3;
  else if (name == "activemask" || name == "lanemask_lt")
    arity = 0;
  else if (name == "syncwarp")
    arity = given == 0 ? 0 : 1; // syncwarp() syncs the full warp
  std::vector<ir::ExprPtr> args = positional_args(e, full, arity);
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i]->type.is_scalar())
      error(e.elts[i + 1]->loc, "function " + full + " does not accept " + args[i]->type.str());
  const Type i32 = Type::scalar_of(Scalar::I32);

  if (name == "activemask" || name == "lanemask_lt") {
    auto call = make_expr(ir::ExprKind::Intrinsic, Type::scalar_of(Scalar::U32), e.loc);
    call->name = name;
    if (name == "activemask")
      fn_.props.uses_warp = true; // which lanes are alive is the scheduler's to say
    return expr_value(std::move(call));
  }
  fn_.props.uses_warp = true;
  Type result = Type::none();
  if (name.rfind("shfl_", 0) == 0 || name == "match_any_sync" || name == "match_all_sync") {
    Type value = Type::scalar_of(exchanged_type(args[1]->type.scalar));
    args[1] = cast(std::move(args[1]), value);
    result = name == "match_any_sync"   ? i32
             : name == "match_all_sync" ? Type::tuple_of({i32, Type::scalar_of(Scalar::Bool)})
                                        : value;
  } else if (name != "syncwarp") {
    args[1] = to_bool(std::move(args[1]));
    result = name == "ballot_sync" ? i32 : Type::scalar_of(Scalar::Bool);
  }
  if (!args.empty())
    args[0] = cast(std::move(args[0]), i32); // the mask
  if (args.size() == 3)
    args[2] = cast(std::move(args[2]), i32); // the source lane, delta or lane mask
  if (name == "syncwarp" && args.empty())
    args.push_back(scalar_const(Scalar::I32, -1, 0, e.loc)); // 0xffffffff

  auto call = make_expr(ir::ExprKind::Intrinsic, result, e.loc);
  call->name = name;
  call->args = std::move(args);
  if (name != "syncwarp")
    return expr_value(std::move(call));
  ir::Stmt s = make_stmt(ir::StmtKind::Eval, e.loc);
  s.exprs.push_back(std::move(call));
  emit(std::move(s));
  return Value{};
}

} // namespace simt
