// numba-cuda's FP8 bindings (ir/fp8.def), typed as its bindings type them: the conversion
// intrinsics (the value converts to the parameter's type, a vector must be of it, the
// saturation_t and the fp8_interpretation_t / cudaRoundMode, IntEnum members or integers, to
// int32) and the value types (constructors from numbers and vectors, the number classes'
// conversions back, the storage field of the x2 / x4 forms).
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

namespace simt {

namespace {

std::string fp8_signature(const ir::Fp8Info &info) {
  std::string params = "x: " + info.param_type().str();
  if (info.target != ir::Fp8Target::Bf16Raw)
    params += std::string(", saturate: saturation_t, ") +
              (info.target == ir::Fp8Target::Fp8 ? "fp8_interpretation_t" : "cudaRoundMode");
  return std::string(info.name) + "(" + params + ") -> " + info.result().str();
}

bool is_number(const Type &t) { return t.is_scalar() && !t.nominal && !is_complex(t.scalar); }

} // namespace

CallFamily FunctionTyper::fp8_calls() {
  return {"cuda.fp8",
          {{"cuda.fp8", not_callable},
           {"cuda.fp8.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_fp8(name, e);
            }}}};
}

Value FunctionTyper::call_fp8(const std::string &name, const ast::Expr &e) {
  if (std::optional<ir::Fp8Type> type = ir::find_fp8_type(name))
    return expr_value(fp8_constructor(*type, e));
  std::optional<ir::Fp8Fn> fn = ir::find_fp8(name);
  if (!fn)
    error(e.loc, "module 'numba.cuda._internal.cuda_fp8' has no attribute '" + name + "'");
  const ir::Fp8Info &info = ir::fp8_info(*fn);
  const Callee callee{
      .name = name, .note = " (signature " + fp8_signature(info) + ")", .at_keyword = true};
  const std::vector<const ast::Expr *> args = positional_ast_args(e, callee, info.arity());
  auto call = make_expr(ir::ExprKind::Fp8, info.result(), e.loc);
  call->index = int(*fn);
  for (size_t i = 0; i < args.size(); ++i) {
    ir::ExprPtr value = rvalue(*args[i]);
    const Type param = i == 0 ? info.param_type() : Type::scalar_of(Scalar::I32);
    if (!param.is_scalar() || param.nominal) { // a float2 / double2 or a bfloat16_raw: exactly
      if (!(value->type == param))
        refuse_argument(*args[i], value->type, callee);
      call->args.push_back(std::move(value));
      continue;
    }
    if (!value->type.is_scalar() || value->type.is_time() || value->type.has_no_operators() ||
        (i > 0 && !is_integer(value->type.scalar)) ||
        conversion(value->type.scalar, param.scalar) == Conversion::Never)
      refuse_argument(*args[i], value->type, callee);
    call->args.push_back(cast(std::move(value), param));
  }
  return expr_value(std::move(call));
}

// cuda_fp8.h's constructors: no argument leaves the codes zero; a number converts through float
// (double as itself; an integer to E8M0 exactly, as int64 or uint64); a vector of float32 or
// float64 of the type's lane count lane by lane.
ir::ExprPtr FunctionTyper::fp8_constructor(ir::Fp8Type type, const ast::Expr &e) {
  const ir::Fp8TypeInfo &info = ir::fp8_type_info(type);
  const std::string name = info.name;
  const std::string accepted = info.lanes == 1 ? "an integer or a float"
                                               : "float32x" + std::to_string(info.lanes) +
                                                     " or float64x" + std::to_string(info.lanes);
  auto args = call_args(e, name, {"x"}, 0);
  if (!args[0]) {
    ir::ExprPtr zero = scalar_const(info.type().scalar, 0, 0, e.loc);
    zero->type = info.type();
    return zero;
  }
  ir::ExprPtr x = rvalue(*args[0]);
  const Type &t = x->type;
  const bool accepts = info.lanes == 1 ? is_number(t)
                                       : t.is_vector() && t.ndim == info.lanes &&
                                             (t.scalar == Scalar::F32 || t.scalar == Scalar::F64);
  if (!accepts)
    error(args[0]->loc, name + "() does not accept " + t.str() + " (it takes " + accepted + ")");
  if (info.lanes == 1 && t.scalar != Scalar::F64) {
    Scalar through = Scalar::F32;
    if (info.encoding == ir::Fp8Encoding::E8M0 &&
        (is_integer(t.scalar) || t.scalar == Scalar::Bool))
      through = is_integer(t.scalar) && !is_signed(t.scalar) ? Scalar::U64 : Scalar::I64;
    x = cast(std::move(x), Type::scalar_of(through));
  }
  auto construct = make_expr(ir::ExprKind::Fp8Value, info.type(), e.loc);
  construct->index = int(type);
  construct->args.push_back(std::move(x));
  return construct;
}

ir::ExprPtr FunctionTyper::explicit_conversion(ir::ExprPtr x, Scalar to) {
  if (x->type == ir::bfloat16_raw_type() && to == Scalar::BF16) {
    x->type = Type::scalar_of(Scalar::BF16); // cuda_bf16.h's __nv_bfloat16(raw): its bits
    return x;
  }
  std::optional<ir::Fp8Type> type = ir::fp8_type_of(x->type);
  if (!type || ir::fp8_type_info(*type).lanes != 1)
    return to == Scalar::Bool ? to_bool(std::move(x)) : cast(std::move(x), Type::scalar_of(to));
  const bool wide = to == Scalar::I64 || to == Scalar::U64; // NaN: 0x8000000000000000
  const ir::Loc loc = x->loc;
  auto value = make_expr(ir::ExprKind::Fp8Value, Type::scalar_of(wide ? to : Scalar::F32), loc);
  value->index = int(*type);
  value->args.push_back(std::move(x));
  if (wide)
    return value;
  return to == Scalar::Bool ? to_bool(std::move(value))
                            : cast(std::move(value), Type::scalar_of(to));
}

Value FunctionTyper::storage_attribute(ir::ExprPtr value, const std::string &attr, ir::Loc loc) {
  std::optional<ir::Fp8Type> type = ir::fp8_type_of(value->type);
  const std::string field = !type ? "x" : "__x";
  if (attr != field || (type && ir::fp8_type_info(*type).lanes == 1))
    error(loc, "unknown attribute '" + attr + "' of " + value->type.str());
  value->type = value->type.plain(); // the storage itself
  return expr_value(std::move(value));
}

} // namespace simt
