// The warp intrinsics: cuda.shfl_*_sync, the votes (all/any/eq/ballot_sync), match_any_sync,
// match_all_sync, syncwarp, activemask and lanemask_lt, typed as Numba types them
// (numba/cuda/cudadecl.py and intrinsic_wrapper.py). Numba's shfl_sync and vote wrappers return
// one element of the intrinsic's (value, predicate) tuple; only that element is kept here.
#include "frontend/builtins.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

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

bool is_shuffle(ir::WarpOp op) {
  using WarpOp = ir::WarpOp;
  return op == WarpOp::ShflIdx || op == WarpOp::ShflUp || op == WarpOp::ShflDown ||
         op == WarpOp::ShflXor;
}

} // namespace

std::optional<ir::Intrinsic> find_warp_intrinsic(const std::string &name) {
  std::optional<ir::Intrinsic> id = ir::find_intrinsic(name);
  // lanemask_lt is typed with the warp collectives, but needs no other lane
  if (id && (ir::is_warp_op(*id) || *id == ir::Intrinsic::LanemaskLt))
    return id;
  return std::nullopt;
}

CallFamily FunctionTyper::warp_calls() {
  return {"cuda warp intrinsics",
          {{"cuda.",
            [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_warp_intrinsic(*find_warp_intrinsic(name), e);
            },
            [](const std::string &name) { return find_warp_intrinsic(name).has_value(); }}}};
}

Value FunctionTyper::call_warp_intrinsic(ir::Intrinsic id, const ast::Expr &e) {
  using WarpOp = ir::WarpOp;
  const std::string full = std::string("cuda.") + ir::intrinsic_name(id);
  size_t arity = ir::intrinsic_info(id).arity;
  if (id == ir::Intrinsic::Syncwarp && e.elts.size() == 1)
    arity = 0; // syncwarp() syncs the full warp
  std::vector<ir::ExprPtr> args = type_scalar_call(e, {.name = full}, arity).args;
  const Type i32 = Type::scalar_of(Scalar::I32);

  if (id == ir::Intrinsic::Activemask || id == ir::Intrinsic::LanemaskLt)
    return expr_value(make_intrinsic(id, Type::scalar_of(Scalar::U32), e.loc));
  const WarpOp op = ir::intrinsic_info(id).warp_op;
  auto exchanged_value = [&] {
    Type value = Type::scalar_of(exchanged_type(args[1]->type.scalar));
    args[1] = cast(std::move(args[1]), value);
    return value;
  };
  Type result = Type::none();
  if (op == WarpOp::MatchAny) {
    exchanged_value();
    result = i32;
  } else if (op == WarpOp::MatchAll) {
    exchanged_value();
    result = Type::tuple_of({i32, Type::scalar_of(Scalar::Bool)});
  } else if (is_shuffle(op)) {
    result = exchanged_value();
  } else if (op != WarpOp::SyncWarp) { // the votes
    args[1] = to_bool(std::move(args[1]));
    result = op == WarpOp::Ballot ? i32 : Type::scalar_of(Scalar::Bool);
  }
  if (!args.empty())
    args[0] = cast(std::move(args[0]), i32); // the mask
  if (args.size() == 3)
    args[2] = cast(std::move(args[2]), i32); // the source lane, delta or lane mask
  if (op == WarpOp::SyncWarp && args.empty())
    args.push_back(scalar_const(Scalar::I32, -1, 0, e.loc)); // 0xffffffff

  auto call = make_intrinsic(id, result, e.loc);
  call->args = std::move(args);
  if (op != WarpOp::SyncWarp)
    return expr_value(std::move(call));
  ir::Stmt s = make_stmt(ir::StmtKind::Eval, e.loc);
  s.exprs.push_back(std::move(call));
  emit(std::move(s));
  return Value{};
}

} // namespace simt
