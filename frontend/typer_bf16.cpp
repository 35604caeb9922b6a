// Calls of numba.cuda.bf16's functions (ir/bf16.def), typed as numba-cuda types its
// bindings: one ConcreteTemplate case per function, so each argument converts to the parameter's
// type as a call with that signature converts it (unsafe conversions included, a complex never).
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

namespace simt {

ir::ExprPtr FunctionTyper::bf16_call(ir::Bf16Fn fn, std::vector<ir::ExprPtr> args, ir::Loc loc) {
  const ir::Bf16Info &info = ir::bf16_info(fn);
  auto call = make_expr(ir::ExprKind::Bf16, Type::scalar_of(info.result), loc);
  call->index = int(fn);
  for (ir::ExprPtr &arg : args)
    call->args.push_back(cast(std::move(arg), Type::scalar_of(info.param)));
  return call;
}

CallFamily FunctionTyper::bf16_calls() {
  return {"cuda.bf16",
          {{"cuda.bf16", not_callable},
           {"cuda.bf16.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_bf16(name, e);
            }}}};
}

Value FunctionTyper::call_bf16(const std::string &name, const ast::Expr &e) {
  std::optional<ir::Bf16Fn> fn = ir::find_bf16(name);
  if (!fn)
    error(e.loc, "module 'numba.cuda.bf16' has no attribute '" + name + "'");
  const ir::Bf16Info &info = ir::bf16_info(*fn);
  const Callee callee{.name = "bf16." + name,
                      .note = " (signature " + ir::bf16_signature(*fn) + ")",
                      .at_keyword = true};
  ScalarCall typed = type_scalar_call(e, callee, info.arity, [&](const Type &t) {
    return !t.is_time() && !t.is_plain_enum() &&
           conversion(t.scalar, info.param) != Conversion::Never;
  });
  return expr_value(bf16_call(*fn, std::move(typed.args), e.loc));
}

} // namespace simt
