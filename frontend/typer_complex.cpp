// Complex numbers: constants, parts, complex(), abs(), / and ** and the cmath module, typed as
// Numba types them (numba/core/typing/builtins.py, cmathdecl.py). Arithmetic that Numba writes
// in Python (division, power, cmath) calls the complex prelude's device functions.
#include "frontend/builtins.h"
#include "frontend/complex_prelude.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simt {

namespace {

ir::ExprPtr float_const(Scalar s, double value, ir::Loc loc) {
  auto e = make_expr(ir::ExprKind::Const, Type::scalar_of(s), loc);
  e->float_value = value;
  return e;
}

} // namespace

ir::ExprPtr FunctionTyper::complex_const(Scalar s, double real, double imag, ir::Loc loc) const {
  auto e = float_const(s, real, loc);
  e->imag_value = imag;
  return e;
}

ir::ExprPtr FunctionTyper::fold_complex_cast(ir::ExprPtr e, Scalar to) const {
  Scalar from = e->type.scalar;
  double real = e->float_value, imag = e->imag_value;
  if (!is_complex(from) && !is_real(from))
    real = is_signed(from) || from == Scalar::Bool
               ? static_cast<double>(e->int_value)
               : static_cast<double>(static_cast<uint64_t>(e->int_value));
  if (!is_complex(from))
    imag = 0;
  if (to == Scalar::Bool)
    return scalar_const(Scalar::Bool, real != 0 || imag != 0, 0, e->loc);
  if (to == Scalar::C64) {
    real = static_cast<float>(real);
    imag = static_cast<float>(imag);
  }
  return complex_const(to, real, imag, e->loc);
}

ir::ExprPtr FunctionTyper::complex_part(ir::ExprPtr z, bool imag, ir::Loc loc) const {
  Scalar part = component_of(z->type.scalar);
  if (z->kind == ir::ExprKind::Const)
    return float_const(part, imag ? z->imag_value : z->float_value, loc);
  auto e =
      make_intrinsic(imag ? ir::Intrinsic::Imag : ir::Intrinsic::Real, Type::scalar_of(part), loc);
  e->args.push_back(std::move(z));
  return e;
}

// .real, .imag (and .conjugate() through call()) of a number: a real number is its own real
// part, with a zero imaginary part of its type (Numba's real_real_impl / real_imag_impl).
Value FunctionTyper::number_attribute(ir::ExprPtr x, const std::string &attr, ir::Loc loc) {
  Scalar s = x->type.scalar;
  bool known = attr == "real" || attr == "imag" || attr == "conjugate";
  if (!known || s == Scalar::Bool)
    error(loc, "unknown attribute '" + attr + "' of " + x->type.str());
  if (is_complex(s) && attr == "conjugate") {
    x = stable(std::move(x));
    auto neg = make_expr(ir::ExprKind::Unary, Type::scalar_of(component_of(s)), loc);
    neg->op = ir::Op::Neg;
    neg->args.push_back(complex_part(clone(*x), true, loc));
    auto z = make_intrinsic(ir::Intrinsic::Complex, x->type, loc);
    z->args.push_back(complex_part(std::move(x), false, loc));
    z->args.push_back(std::move(neg));
    return expr_value(std::move(z));
  }
  if (is_complex(s))
    return expr_value(complex_part(std::move(x), attr == "imag", loc));
  if (attr == "imag")
    return expr_value(scalar_const(s, 0, 0, loc));
  return expr_value(std::move(x));
}

// complex(real=0, imag=0): complex64 only from float32 parts (Numba's Complex template).
// numba-cuda-mlir's complex(v) of a two-element vector (float2, double2, int2) is
// complex(v.x, v.y).
CallFamily FunctionTyper::complex_calls() {
  return {"complex numbers",
          {{"builtins.complex", [](FunctionTyper &t, const std::string &,
                                   const ast::Expr &e) { return t.call_complex(e); }},
           {"cmath.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_cmath(name, e);
            }}}};
}

Value FunctionTyper::call_complex(const ast::Expr &e) {
  auto args = call_args(e, "complex", {"real", "imag"}, 0);
  std::vector<ir::ExprPtr> parts;
  const bool one_arg = std::count(args.begin(), args.end(), nullptr) + 1 == long(args.size());
  for (const ast::Expr *a : args) {
    if (!a)
      continue;
    parts.push_back(rvalue(*a));
    const Type &t = parts.back()->type;
    if (t.is_vector() && t.ndim == 2 && one_arg && t.scalar != Scalar::Bool) {
      ir::ExprPtr vector = stable(std::move(parts.back()));
      parts.back() = vector_attribute(clone(*vector), "x", a->loc).expr;
      parts.push_back(vector_attribute(std::move(vector), "y", a->loc).expr);
      continue;
    }
    if (t.is_vector())
      error(a->loc, "complex() of a vector needs a two-element one (float2, double2, int2), "
                    "got " +
                        t.str());
    if (!t.is_scalar() || t.scalar == Scalar::Bool)
      error(a->loc, "complex() only support for numbers");
  }
  if (parts.empty())
    return expr_value(complex_const(Scalar::C128, 0, 0, e.loc));
  bool all_float32 = std::all_of(parts.begin(), parts.end(), [](const ir::ExprPtr &p) {
    return p->type.scalar == Scalar::F32;
  });
  Scalar result = all_float32 ? Scalar::C64 : Scalar::C128;
  if (parts.size() == 1)
    return expr_value(cast(std::move(parts[0]), Type::scalar_of(result)));
  for (const ir::ExprPtr &p : parts)
    if (is_complex(p->type.scalar))
      error(p->loc, "simt: complex() of a complex real or imaginary part is not supported yet");
  Type part = Type::scalar_of(component_of(result));
  ir::ExprPtr real = cast(std::move(parts[0]), part), imag = cast(std::move(parts[1]), part);
  if (real->kind == ir::ExprKind::Const && imag->kind == ir::ExprKind::Const)
    return expr_value(complex_const(result, real->float_value, imag->float_value, e.loc));
  auto z = make_intrinsic(ir::Intrinsic::Complex, Type::scalar_of(result), e.loc);
  z->args.push_back(std::move(real));
  z->args.push_back(std::move(imag));
  return expr_value(std::move(z));
}

// abs(z) = math.hypot(z.real, z.imag), of the parts' type.
ir::ExprPtr FunctionTyper::complex_abs(ir::ExprPtr z, ir::Loc loc) {
  z = stable(std::move(z));
  auto h = make_intrinsic(ir::Intrinsic::Hypot, Type::scalar_of(component_of(z->type.scalar)), loc);
  h->args.push_back(complex_part(clone(*z), false, loc));
  h->args.push_back(complex_part(std::move(z), true, loc));
  return h;
}

ir::ExprPtr FunctionTyper::call_prelude(const std::string &name, std::vector<ir::ExprPtr> args,
                                        Scalar result, ir::Loc loc) {
  std::vector<Type> types;
  for (const ir::ExprPtr &a : args)
    types.push_back(a->type);
  int index = module_.specialize(complex_prelude_function(name), types);
  const ir::Function &callee = module_.module().functions[index];
  auto call = make_expr(ir::ExprKind::Call, callee.return_type, loc);
  call->index = index;
  call->args = std::move(args);
  // Numba casts what its Python implementation returns to the operation's type
  return cast(std::move(call), Type::scalar_of(result));
}

ir::ExprPtr FunctionTyper::complex_binary(ir::Op op, ir::ExprPtr lhs, ir::ExprPtr rhs,
                                          ir::Loc loc) {
  Scalar type = lhs->type.scalar;
  std::vector<ir::ExprPtr> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  if (op == ir::Op::TrueDiv)
    return call_prelude("cdiv", std::move(args), type, loc);
  args.push_back(complex_const(type, 0, 1, loc));
  return call_prelude("cpow", std::move(args), type, loc);
}

Value FunctionTyper::call_cmath(const std::string &name, const ast::Expr &e) {
  const std::string full = "cmath." + name;
  if (!is_cmath_function(name))
    error(e.loc, "simt: calling '" + full + "' is not supported yet");
  const size_t given = e.elts.size() - 1;
  const size_t arity = name == "rect" || (name == "log" && given == 2) ? 2 : 1; // log(x, base)
  auto [args, types] = type_scalar_call(e, {.name = full}, arity);
  // cmathdecl's cases: complex operands (numbers convert to them), rect of two floats
  std::vector<Signature> cases;
  for (Scalar c : {Scalar::C64, Scalar::C128}) {
    Scalar f = component_of(c);
    if (name == "rect")
      cases.push_back({c, {f, f}});
    else if (name == "phase" || name == "polar")
      cases.push_back({f, {c}});
    else if (name == "isnan" || name == "isinf" || name == "isfinite")
      cases.push_back({Scalar::Bool, {c}});
    else
      cases.push_back({c, std::vector<Scalar>(given, c)});
  }
  auto sig = select_overload(types, cases);
  if (!sig)
    error(e.loc, "function " + full + " does not accept " + Type::scalar_of(types[0]).str());
  for (size_t i = 0; i < args.size(); ++i)
    args[i] = cast(std::move(args[i]), Type::scalar_of(sig->params[i]));
  Scalar result = sig->result;
  if (name == "rect")
    return expr_value(call_prelude("rect", std::move(args), result, e.loc));
  if (name == "log" && given == 2)
    return expr_value(call_prelude("log_base", std::move(args), result, e.loc));
  if (name == "sqrt") {
    // MAX / (1 + sqrt(2)) of the parts' type, as a float64 (cmathimpl's THRES)
    double max = sig->params[0] == Scalar::C64 ? std::numeric_limits<float>::max()
                                               : std::numeric_limits<double>::max();
    args.push_back(
        float_const(Scalar::F64, max / (1. + 1.414213562373095048801688724209698079), e.loc));
  }
  if (is_cmath_unary(name) || name == "log")
    return expr_value(call_prelude(name, std::move(args), result, e.loc));
  Scalar part = component_of(sig->params[0]);
  ir::ExprPtr z = stable(std::move(args[0]));
  auto part_fn = [&](ir::Intrinsic fn, Scalar type, bool swap) {
    auto f = make_intrinsic(fn, Type::scalar_of(type), e.loc);
    f->args.push_back(complex_part(clone(*z), swap, e.loc));
    f->args.push_back(complex_part(clone(*z), !swap, e.loc));
    return f;
  };
  if (name == "phase")
    return expr_value(part_fn(ir::Intrinsic::Atan2, part, true));
  if (name == "polar") {
    auto t = make_expr(ir::ExprKind::TupleMake,
                       Type::tuple_of({Type::scalar_of(part), Type::scalar_of(part)}), e.loc);
    t->args.push_back(part_fn(ir::Intrinsic::Hypot, part, false));
    t->args.push_back(part_fn(ir::Intrinsic::Atan2, part, true));
    return expr_value(std::move(t));
  }
  // isnan/isinf: either part; isfinite: both parts (cmathimpl's is_nan, is_inf, is_finite)
  const ir::Intrinsic test_fn = name == "isnan"   ? ir::Intrinsic::Isnan
                                : name == "isinf" ? ir::Intrinsic::Isinf
                                                  : ir::Intrinsic::Isfinite;
  auto test = [&](bool imag) {
    auto f = make_intrinsic(test_fn, Type::scalar_of(Scalar::Bool), e.loc);
    f->args.push_back(complex_part(clone(*z), imag, e.loc));
    return f;
  };
  auto both = make_expr(name == "isfinite" ? ir::ExprKind::And : ir::ExprKind::Or,
                        Type::scalar_of(Scalar::Bool), e.loc);
  both->args.push_back(test(false));
  both->args.push_back(test(true));
  return expr_value(std::move(both));
}

} // namespace simt
