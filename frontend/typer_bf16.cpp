// Calls of numba.cuda.bf16's functions (ir/bf16.def), typed as numba-cuda types its
// bindings: one ConcreteTemplate case per function, so each argument converts to the parameter's
// type as a call with that signature converts it (unsafe conversions included, a complex never).
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

ir::ExprPtr FunctionTyper::bf16_call(ir::Bf16Fn fn, std::vector<ir::ExprPtr> args, ir::Loc loc) {
  const ir::Bf16Info &info = ir::bf16_info(fn);
  auto call = make_expr(ir::ExprKind::Bf16, Type::scalar_of(info.result), loc);
  call->index = int(fn);
  for (ir::ExprPtr &arg : args)
    call->args.push_back(cast(std::move(arg), Type::scalar_of(info.param)));
  return call;
}

Value FunctionTyper::call_bf16(const std::string &name, const ast::Expr &e) {
  std::optional<ir::Bf16Fn> fn = ir::find_bf16(name);
  if (!fn)
    error(e.loc, "module 'numba.cuda.bf16' has no attribute '" + name + "'");
  const ir::Bf16Info &info = ir::bf16_info(*fn);
  const std::string full = "bf16." + name;
  const std::string signature = ir::bf16_signature(*fn);
  if (!e.keywords.empty())
    error(e.keywords.front().loc,
          "function " + full + " takes no keyword arguments (signature " + signature + ")");
  const size_t given = e.elts.size() - 1;
  if (given != info.arity)
    error(e.loc, "function " + full + " expects " + std::to_string(info.arity) + " argument" +
                     (info.arity == 1 ? "" : "s") + ", got " + std::to_string(given) +
                     " (signature " + signature + ")");
  std::vector<ir::ExprPtr> args;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    ir::ExprPtr value = rvalue(*e.elts[i]);
    if (!value->type.is_scalar() || value->type.is_time() || value->type.is_plain_enum() ||
        conversion(value->type.scalar, info.param) == Conversion::Never)
      error(e.elts[i]->loc, "function " + full + " does not accept " + value->type.str() +
                                " (signature " + signature + ")");
    args.push_back(std::move(value));
  }
  return expr_value(bf16_call(*fn, std::move(args), e.loc));
}

} // namespace simt
