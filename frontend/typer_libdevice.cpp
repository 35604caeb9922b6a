// Calls of numba.cuda.libdevice's functions, typed as Numba types them
// (numba/cuda/libdevicedecl.py: one ConcreteTemplate case per function, from
// libdevicefuncs.create_signature): the arguments are the function's inputs, each converted to its
// parameter's type as a call with that explicit signature converts it (unsafe conversions included,
// a complex to a real never); the result is the return value unless void, then the outputs, a tuple
// when more than one.
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

namespace simt {

CallFamily FunctionTyper::libdevice_calls() {
  return {"cuda.libdevice",
          {{"cuda.libdevice", not_callable},
           {"cuda.libdevice.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_libdevice(name, e);
            }}}};
}

Value FunctionTyper::call_libdevice(const std::string &name, const ast::Expr &e) {
  std::optional<ir::Libdevice> fn = ir::find_libdevice(name);
  if (!fn)
    error(e.loc, "module 'numba.cuda.libdevice' has no attribute '" + name + "'");
  const ir::LibdeviceInfo &info = ir::libdevice_info(*fn);
  const std::string full = "libdevice." + name;
  const std::string signature = ir::libdevice_signature(*fn);
  const std::vector<const ast::Expr *> args = positional_ast_args(
      e, {.name = full, .note = " (signature " + signature + ")", .at_keyword = true},
      size_t(info.inputs()));
  auto call = make_expr(ir::ExprKind::Libdevice, ir::libdevice_result_type(*fn), e.loc);
  call->index = int(*fn);
  size_t next = 0;
  for (const ir::LibdeviceParam &param : info) {
    if (param.output)
      continue;
    const ast::Expr &arg = *args[next++];
    ir::ExprPtr value = rvalue(arg);
    const Scalar to = ir::libdevice_scalar(param.type);
    if (!value->type.is_scalar() || conversion(value->type.scalar, to) == Conversion::Never)
      error(arg.loc, "function " + full + " does not accept " + value->type.str() +
                         " for its parameter '" + param.name + "' (signature " + signature + ")");
    call->args.push_back(cast(std::move(value), Type::scalar_of(to)));
  }
  return expr_value(std::move(call));
}

} // namespace simt
