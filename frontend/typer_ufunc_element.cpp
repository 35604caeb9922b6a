// The element operations of NumPy ufuncs (frontend/ufuncs.h's UfuncOp) on operands already of the
// chosen loop's input types, as numba-cuda's ufunc_db lowers them (numba/cuda/ufuncs.py,
// numba/cuda/np/npyfuncs.py): NumPy's order of complexes, its NaN rules for maximum/minimum and
// fmax/fmin.
#include "frontend/complex_prelude.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/ufuncs.h"
#include "ir/intrinsics.h"

#include <limits>
#include <numbers>

namespace simt {

ir::ExprPtr FunctionTyper::ufunc_element(const Ufunc &u, const UfuncLoop &loop,
                                         std::vector<ir::ExprPtr> args, ir::Loc loc) {
  Type result = Type::scalar_of(loop.output);
  Scalar in = loop.inputs[0];
  switch (u.op) {
  case UfuncOp::Math:
    return ufunc_math(u, loop, std::move(args), loc);
  case UfuncOp::Angle:
    return make_binary(ir::Op::Mul, in, std::move(args[0]), scalar_const(in, 0, u.factor, loc),
                       loc);
  case UfuncOp::Compare:
    return ufunc_compare(u.python_operator, std::move(args[0]), std::move(args[1]), loc);
  case UfuncOp::Logical: {
    ir::ExprPtr a = ufunc_truth(std::move(args[0]), loc);
    if (u.detail == "not") {
      auto n = make_expr(ir::ExprKind::Unary, result, loc);
      n->op = ir::Op::Not;
      n->args.push_back(std::move(a));
      return n;
    }
    ir::ExprPtr b = ufunc_truth(std::move(args[1]), loc);
    if (u.detail == "xor")
      return make_compare(ir::Op::Ne, std::move(a), std::move(b), loc);
    auto both = make_expr(u.detail == "and" ? ir::ExprKind::And : ir::ExprKind::Or, result, loc);
    both->args.push_back(std::move(a));
    both->args.push_back(std::move(b));
    return both;
  }
  case UfuncOp::MinMax:
    return ufunc_min_max(u.detail, std::move(args[0]), std::move(args[1]), loc);
  case UfuncOp::Arithmetic: {
    if (args.size() == 2)
      return cast(binary(u.python_operator, std::move(args[0]), std::move(args[1]), loc), result);
    if (u.python_operator == Operator::Invert && in == Scalar::Bool) {
      auto n = make_expr(ir::ExprKind::Unary, result, loc);
      n->op = ir::Op::Not;
      n->args.push_back(std::move(args[0]));
      return n;
    }
    // ~ and - in 64 bits (or the float's, complex's type), truncated to the loop's
    Scalar wide = is_integer(in) ? (is_signed(in) ? Scalar::I64 : Scalar::U64) : in;
    auto n = make_expr(ir::ExprKind::Unary, Type::scalar_of(wide), loc);
    n->op = ir_op(u.python_operator);
    n->args.push_back(cast(std::move(args[0]), Type::scalar_of(wide)));
    return cast(std::move(n), result);
  }
  case UfuncOp::Predicate:
    return ufunc_predicate(u.detail, std::move(args[0]), loc);
  case UfuncOp::Conjugate:
    if (is_complex(in))
      return number_attribute(std::move(args[0]), "conjugate", loc).expr;
    return std::move(args[0]);
  }
  error(loc, "simt: ufunc '" + u.name + "' is not supported yet");
}

ir::ExprPtr FunctionTyper::ufunc_math(const Ufunc &u, const UfuncLoop &loop,
                                      std::vector<ir::ExprPtr> args, ir::Loc loc) {
  Scalar in = loop.inputs[0];
  if (!is_complex(in)) {
    auto call = make_intrinsic(*ir::find_intrinsic(u.detail), Type::scalar_of(loop.output), loc);
    call->args = std::move(args);
    return call;
  }
  if (u.cmath.empty())
    error(loc, "simt: np." + u.name + " of " + Type::scalar_of(in).str() + " is not supported yet");
  if (u.cmath == "sqrt") { // MAX / (1 + sqrt(2)) of the parts' type (cmathimpl's THRES)
    double max =
        in == Scalar::C64 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    args.push_back(scalar_const(Scalar::F64, 0, max / (1 + std::numbers::sqrt2), loc));
  }
  if (u.cmath != "log2")
    return call_prelude(u.cmath, std::move(args), loop.output, loc);
  // log2(z) = log(z) / ln 2 (npyfuncs' np_complex_log2_impl), part by part
  ir::ExprPtr z = stable(call_prelude("log", std::move(args), loop.output, loc));
  Scalar part = component_of(in);
  auto scaled = [&](bool imag) {
    return make_binary(ir::Op::Mul, part, complex_part(clone(*z), imag, loc),
                       scalar_const(part, 0, 1 / std::numbers::ln2, loc), loc);
  };
  auto w = make_intrinsic(ir::Intrinsic::Complex, Type::scalar_of(in), loc);
  w->args.push_back(scaled(false));
  w->args.push_back(scaled(true));
  return w;
}

// The truth of a number: a complex's is that of either part.
ir::ExprPtr FunctionTyper::ufunc_truth(ir::ExprPtr x, ir::Loc loc) {
  if (!is_complex(x->type.scalar))
    return to_bool(std::move(x));
  x = stable(std::move(x));
  auto either = make_expr(ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
  either->args.push_back(to_bool(complex_part(clone(*x), false, loc)));
  either->args.push_back(to_bool(complex_part(std::move(x), true, loc)));
  return either;
}

ir::ExprPtr FunctionTyper::ufunc_predicate(const std::string &name, ir::ExprPtr x, ir::Loc loc) {
  Scalar s = x->type.scalar;
  if (!is_real(s) && !is_complex(s)) // integers and bools: finite numbers
    return scalar_const(Scalar::Bool, name == "isfinite", 0, loc);
  ir::Intrinsic id = *ir::find_intrinsic(name);
  auto test = [&](ir::ExprPtr part) {
    auto f = make_intrinsic(id, Type::scalar_of(Scalar::Bool), loc);
    f->args.push_back(std::move(part));
    return f;
  };
  if (!is_complex(s))
    return test(std::move(x));
  x = stable(std::move(x));
  auto both = make_expr(name == "isfinite" ? ir::ExprKind::And : ir::ExprKind::Or,
                        Type::scalar_of(Scalar::Bool), loc);
  both->args.push_back(test(complex_part(clone(*x), false, loc)));
  both->args.push_back(test(complex_part(std::move(x), true, loc)));
  return both;
}

// NumPy's comparisons: complexes in lexicographic order, int64 with uint64 by value.
ir::ExprPtr FunctionTyper::ufunc_compare(Operator op, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc) {
  const bool less = op == Operator::Lt || op == Operator::LtE;
  Scalar sa = a->type.scalar, sb = b->type.scalar;
  Type boolean = Type::scalar_of(Scalar::Bool);
  if (sa != sb) { // qQ, Qq: a negative int64 is below every uint64
    bool signed_left = is_signed(sa);
    ir::ExprPtr &s = signed_left ? a : b;
    s = stable(std::move(s));
    ir::ExprPtr negative =
        make_compare(ir::Op::Lt, clone(*s), scalar_const(Scalar::I64, 0, 0, loc), loc);
    s = cast(std::move(s), Type::scalar_of(Scalar::U64));
    ir::ExprPtr plain = compare_pair(op, std::move(a), std::move(b), loc);
    // the negative side orders below: true for (s < u, s <= u, !=) on the left
    bool below =
        op == Operator::NotEq || (signed_left ? less : op == Operator::Gt || op == Operator::GtE);
    if (below) {
      auto r = make_expr(ir::ExprKind::Or, boolean, loc);
      r->args.push_back(std::move(negative));
      r->args.push_back(std::move(plain));
      return r;
    }
    auto n = make_expr(ir::ExprKind::Unary, boolean, loc);
    n->op = ir::Op::Not;
    n->args.push_back(std::move(negative));
    auto r = make_expr(ir::ExprKind::And, boolean, loc);
    r->args.push_back(std::move(n));
    r->args.push_back(std::move(plain));
    return r;
  }
  if (!is_complex(sa) || op == Operator::Eq || op == Operator::NotEq)
    return compare_pair(op, std::move(a), std::move(b), loc);
  // a.real < b.real or (a.real == b.real and a.imag < b.imag), and so on
  a = stable(std::move(a));
  b = stable(std::move(b));
  const Operator strict = less ? Operator::Lt : Operator::Gt;
  auto part = [&](ir::ExprPtr &z, bool imag) { return complex_part(clone(*z), imag, loc); };
  auto same_real = make_expr(ir::ExprKind::And, boolean, loc);
  same_real->args.push_back(compare_pair(Operator::Eq, part(a, false), part(b, false), loc));
  same_real->args.push_back(compare_pair(op, part(a, true), part(b, true), loc));
  auto r = make_expr(ir::ExprKind::Or, boolean, loc);
  r->args.push_back(compare_pair(strict, part(a, false), part(b, false), loc));
  r->args.push_back(std::move(same_real));
  return r;
}

// maximum/minimum: a NaN operand (either part of a complex) wins; fmax/fmin: it loses.
ir::ExprPtr FunctionTyper::ufunc_min_max(const std::string &op, ir::ExprPtr a, ir::ExprPtr b,
                                         ir::Loc loc) {
  a = stable(std::move(a));
  b = stable(std::move(b));
  bool is_max = op == "max" || op == "fmax";
  ir::ExprPtr choose_a =
      ufunc_compare(is_max ? Operator::GtE : Operator::LtE, clone(*a), clone(*b), loc);
  Scalar s = a->type.scalar;
  if (is_real(s) || is_complex(s)) {
    auto either = make_expr(ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
    either->args.push_back(std::move(choose_a));
    // maximum keeps a NaN a; fmax keeps a when b is NaN
    either->args.push_back(ufunc_predicate("isnan", clone(op[0] == 'f' ? *b : *a), loc));
    choose_a = std::move(either);
  }
  return make_select(std::move(choose_a), std::move(a), std::move(b));
}

} // namespace simt
