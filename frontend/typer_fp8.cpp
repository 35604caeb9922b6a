// Calls of numba-cuda's FP8 conversion intrinsics (frontend/fp8.def), typed as numba-cuda types
// its bindings: the value converts to the parameter's type (a vector must be of it), the
// saturation_t and the fp8_interpretation_t / cudaRoundMode (IntEnum members or integers) to int32.
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

namespace {

Type value_type(const ir::Fp8Info &info) {
  return info.lanes == 1 ? Type::scalar_of(info.param) : Type::vector_of(info.param, info.lanes);
}

std::string fp8_signature(const ir::Fp8Info &info) {
  const char *mode = info.target == ir::Fp8Target::Fp8 ? "fp8_interpretation_t" : "cudaRoundMode";
  return std::string(info.name) + "(x: " + value_type(info).str() + ", saturate: saturation_t, " +
         mode + ") -> " + Type::scalar_of(info.result()).str();
}

} // namespace

Value FunctionTyper::call_fp8(const std::string &name, const ast::Expr &e) {
  std::optional<ir::Fp8Fn> fn = ir::find_fp8(name);
  if (!fn)
    error(e.loc, "module 'numba.cuda._internal.cuda_fp8' has no attribute '" + name + "'");
  const ir::Fp8Info &info = ir::fp8_info(*fn);
  const std::string signature = fp8_signature(info);
  if (!e.keywords.empty())
    error(e.keywords.front().loc,
          "function " + name + " takes no keyword arguments (signature " + signature + ")");
  if (e.elts.size() != 4)
    error(e.loc, "function " + name + " expects 3 arguments, got " +
                     std::to_string(e.elts.size() - 1) + " (signature " + signature + ")");
  auto call = make_expr(ir::ExprKind::Fp8, Type::scalar_of(info.result()), e.loc);
  call->index = int(*fn);
  for (size_t i = 1; i < e.elts.size(); ++i) {
    ir::ExprPtr value = rvalue(*e.elts[i]);
    if (i == 1 && info.lanes > 1) { // numba-cuda's float2 / double2 parameter: that vector type
      if (!(value->type == value_type(info)))
        error(e.elts[i]->loc, "function " + name + " does not accept " + value->type.str() +
                                  " (signature " + signature + ")");
      call->args.push_back(std::move(value));
      continue;
    }
    const Scalar param = i == 1 ? info.param : Scalar::I32;
    if (!value->type.is_scalar() || value->type.is_time() || value->type.is_plain_enum() ||
        (i > 1 && !is_integer(value->type.scalar)) ||
        conversion(value->type.scalar, param) == Conversion::Never)
      error(e.elts[i]->loc, "function " + name + " does not accept " + value->type.str() +
                                " (signature " + signature + ")");
    call->args.push_back(cast(std::move(value), Type::scalar_of(param)));
  }
  return expr_value(std::move(call));
}

} // namespace simt
