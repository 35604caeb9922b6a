// datetime64 and timedelta64 values (Numba's NPDatetime / NPTimedelta, numba/np/npdatetime.py):
// int64 counts of a unit, int64's minimum being NaT. Arithmetic converts both operands to their
// common unit, and gives NaT where an operand is NaT; comparisons with NaT are false (but !=).
#include "frontend/builtins.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "ir/time_units.h"

#include <cmath>
#include <limits>

namespace simt {

namespace {

enum class Operand { Datetime, Timedelta, Integer, Float, Other };

Operand operand_of(const Type &t) {
  if (t.is_datetime())
    return Operand::Datetime;
  if (t.is_timedelta())
    return Operand::Timedelta;
  if (t.is_scalar() && !t.nominal && t.scalar != Scalar::Bool && is_integer(t.scalar))
    return Operand::Integer;
  if (t.is_scalar() && !t.nominal && is_float(t.scalar))
    return Operand::Float;
  return Operand::Other;
}

const Type int64 = Type::scalar_of(Scalar::I64);
const Type float64 = Type::scalar_of(Scalar::F64);

ir::ExprPtr make_or(std::vector<ir::ExprPtr> tests, ir::Loc loc) {
  if (tests.size() == 1)
    return std::move(tests[0]);
  auto any = make_expr(ir::ExprKind::Or, Type::scalar_of(Scalar::Bool), loc);
  any->args = std::move(tests);
  return any;
}

} // namespace

ir::ExprPtr FunctionTyper::time_count(const ir::Expr &time) const {
  ir::ExprPtr count = clone(time);
  count->type = int64; // the same int64, without its unit
  return count;
}

ir::ExprPtr FunctionTyper::is_not_a_time(const ir::Expr &time) const {
  return make_compare(ir::Op::Eq, time_count(time),
                      scalar_const(Scalar::I64, not_a_time, 0, time.loc), time.loc);
}

ir::ExprPtr FunctionTyper::unless_not_a_time(std::vector<ir::ExprPtr> nat_tests, ir::ExprPtr value,
                                             const Type &result) {
  ir::Loc loc = value->loc;
  ir::ExprPtr nat = scalar_const(Scalar::I64, not_a_time, 0, loc);
  nat->type = result;
  value->type = result;
  return make_select(make_or(std::move(nat_tests), loc), std::move(nat), std::move(value));
}

ir::ExprPtr FunctionTyper::time_cast(ir::ExprPtr e, const Type &to) {
  const Type from = e->type;
  auto refuse = [&] {
    if (!round_.changed) // else a round that will be redone
      error(e->loc, "cannot convert " + from.str() + " to " + to.str());
    return std::move(e);
  };
  if (from.is_array() || to.is_array()) { // layouts and read-only-ness, as for other arrays
    if (!from.is_array() || !to.is_array() || !from.nominal || !to.nominal ||
        !(*from.nominal == *to.nominal))
      return refuse();
    e->type = from.plain();
    e = cast(std::move(e), to.plain());
    e->type = to;
    return e;
  }
  if (from.is_time() && to.is_time() && from.nominal->kind == to.nominal->kind) {
    auto factor = time_unit_factor(from.nominal->name, to.nominal->name);
    if (!factor)
      return refuse();
    if (*factor == 1) {
      e->type = to;
      return e;
    }
    ir::ExprPtr time = stable(std::move(e));
    ir::Loc loc = time->loc;
    std::vector<ir::ExprPtr> nat;
    nat.push_back(is_not_a_time(*time));
    return unless_not_a_time(std::move(nat),
                             make_binary(ir::Op::Mul, Scalar::I64, time_count(*time),
                                         scalar_const(Scalar::I64, *factor, 0, loc), loc),
                             to);
  }
  if (to.is_timedelta() && operand_of(from) == Operand::Integer) { // a count of `to`'s unit
    e = cast(std::move(e), int64);
    e->type = to;
    return e;
  }
  return refuse();
}

ir::ExprPtr FunctionTyper::time_binary(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc) {
  auto fail = [&]() -> ir::ExprPtr {
    error(loc, "unsupported operand types for " + spelling(op) + ": " + lhs->type.str() + " and " +
                   rhs->type.str());
  };
  Operand a = operand_of(lhs->type), b = operand_of(rhs->type);
  const bool number_times = op == Operator::Mul && (a == Operand::Integer || a == Operand::Float);
  if (number_times || (op == Operator::Add && a == Operand::Timedelta && b == Operand::Datetime)) {
    std::swap(lhs, rhs); // n * td is td * n; td + dt is dt + td
    std::swap(a, b);
  }
  const Operand td = Operand::Timedelta, dt = Operand::Datetime;
  // Both times: in their common unit.
  if (b == td || b == dt) {
    const bool sum = (op == Operator::Add || op == Operator::Sub) && (a == dt || a == td) &&
                     (b == td || op == Operator::Sub) && !(a == td && b == dt);
    const bool ratio =
        (op == Operator::TrueDiv || op == Operator::FloorDiv || op == Operator::Mod) && a == td &&
        b == td;
    if (!sum && !ratio)
      return fail();
    auto unit = common_time_unit(lhs->type.nominal->name, rhs->type.nominal->name);
    if (!unit)
      error(loc, "cannot combine " + lhs->type.str() + " and " + rhs->type.str() +
                     ": their units do not convert exactly into one another");
    auto in_unit = [&](ir::ExprPtr time) {
      return stable(cast(std::move(time), Type::time_of(time->type.nominal->kind, *unit)));
    };
    ir::ExprPtr x = in_unit(std::move(lhs)), y = in_unit(std::move(rhs));
    std::vector<ir::ExprPtr> nat;
    nat.push_back(is_not_a_time(*x));
    nat.push_back(is_not_a_time(*y));
    if (sum) {
      Type result = a == dt && b == dt ? Type::time_of(NominalClass::Kind::Timedelta, *unit)
                                       : Type::time_of(a == dt ? NominalClass::Kind::Datetime
                                                               : NominalClass::Kind::Timedelta,
                                                       *unit);
      return unless_not_a_time(
          std::move(nat), make_binary(ir_op(op), Scalar::I64, time_count(*x), time_count(*y), loc),
          result);
    }
    if (op == Operator::TrueDiv) { // a float64 ratio; NaT makes it NaN
      auto ratio_value = make_binary(ir::Op::TrueDiv, Scalar::F64, cast(time_count(*x), float64),
                                     cast(time_count(*y), float64), loc);
      return make_select(
          make_or(std::move(nat), loc),
          scalar_const(Scalar::F64, 0, std::numeric_limits<double>::quiet_NaN(), loc),
          std::move(ratio_value));
    }
    // // and %: Python's floor division and modulo of the counts; NumPy gives 0 (//) or NaT
    // (%) for NaT operands and a zero divisor.
    nat.push_back(
        make_compare(ir::Op::Eq, time_count(*y), scalar_const(Scalar::I64, 0, 0, loc), loc));
    auto value = make_binary(ir_op(op), Scalar::I64, time_count(*x), time_count(*y), loc);
    if (op == Operator::Mod)
      return unless_not_a_time(std::move(nat), std::move(value), x->type);
    return make_select(make_or(std::move(nat), loc), scalar_const(Scalar::I64, 0, 0, loc),
                       std::move(value));
  }
  // A timedelta and a number: scaled, truncating toward zero as NumPy does.
  if (a != td || (b != Operand::Integer && b != Operand::Float) ||
      (op != Operator::Mul && op != Operator::TrueDiv && op != Operator::FloorDiv) ||
      (op == Operator::FloorDiv && b == Operand::Float))
    return fail();
  return timedelta_scaled(op, std::move(lhs), std::move(rhs), b == Operand::Float, loc);
}

// A timedelta `lhs` times, divided or floor-divided by a number `rhs` (a float one when
// `by_float`): scaled, truncating toward zero as NumPy does; NaT stays NaT.
ir::ExprPtr FunctionTyper::timedelta_scaled(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs,
                                            bool by_float, ir::Loc loc) {
  const Type result = lhs->type;
  ir::ExprPtr x = stable(std::move(lhs));
  std::vector<ir::ExprPtr> nat;
  nat.push_back(is_not_a_time(*x));
  if (by_float) { // NaN and infinite results are NaT
    ir::ExprPtr scaled =
        stable(make_binary(op == Operator::Mul ? ir::Op::Mul : ir::Op::TrueDiv, Scalar::F64,
                           cast(time_count(*x), float64), cast(std::move(rhs), float64), loc));
    auto magnitude = make_intrinsic(ir::Intrinsic::Fabs, float64, loc);
    magnitude->args.push_back(clone(*scaled));
    auto finite = make_compare(ir::Op::Lt, std::move(magnitude),
                               scalar_const(Scalar::F64, 0, 0x1p63, loc), loc);
    auto not_finite = make_expr(ir::ExprKind::Unary, Type::scalar_of(Scalar::Bool), loc);
    not_finite->op = ir::Op::Not;
    not_finite->args.push_back(std::move(finite)); // NaN compares false: not finite
    nat.push_back(std::move(not_finite));
    return unless_not_a_time(std::move(nat), cast(clone(*scaled), int64), result);
  }
  ir::ExprPtr n = stable(cast(std::move(rhs), int64));
  if (op == Operator::Mul)
    return unless_not_a_time(std::move(nat),
                             make_binary(ir::Op::Mul, Scalar::I64, time_count(*x), clone(*n), loc),
                             result);
  // Truncating division: Python's floor quotient, plus one where the remainder is not zero and
  // the signs differ. A zero divisor gives NaT (the quotient, computed first, divides by one).
  auto zero = [&] { return scalar_const(Scalar::I64, 0, 0, loc); };
  nat.push_back(make_compare(ir::Op::Eq, clone(*n), zero(), loc));
  ir::ExprPtr divisor = stable(make_select(make_compare(ir::Op::Eq, clone(*n), zero(), loc),
                                           scalar_const(Scalar::I64, 1, 0, loc), clone(*n)));
  ir::ExprPtr quotient =
      stable(make_binary(ir::Op::FloorDiv, Scalar::I64, time_count(*x), clone(*divisor), loc));
  auto inexact = make_compare(
      ir::Op::Ne, make_binary(ir::Op::Mod, Scalar::I64, time_count(*x), clone(*divisor), loc),
      zero(), loc);
  auto signs_differ =
      make_compare(ir::Op::Ne, make_compare(ir::Op::Lt, time_count(*x), zero(), loc),
                   make_compare(ir::Op::Lt, clone(*n), zero(), loc), loc);
  auto round_up = make_expr(ir::ExprKind::And, Type::scalar_of(Scalar::Bool), loc);
  round_up->args.push_back(std::move(inexact));
  round_up->args.push_back(std::move(signs_differ));
  auto truncated = make_select(std::move(round_up),
                               make_binary(ir::Op::Add, Scalar::I64, clone(*quotient),
                                           scalar_const(Scalar::I64, 1, 0, loc), loc),
                               clone(*quotient));
  return unless_not_a_time(std::move(nat), std::move(truncated), result);
}

ir::ExprPtr FunctionTyper::time_compare(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs,
                                        ir::Loc loc) {
  if (!lhs->type.is_time() || !rhs->type.is_time() ||
      lhs->type.nominal->kind != rhs->type.nominal->kind)
    error(loc, "'" + spelling(op) + "' is not supported between " + lhs->type.str() + " and " +
                   rhs->type.str());
  auto unit = common_time_unit(lhs->type.nominal->name, rhs->type.nominal->name);
  if (!unit)
    error(loc, "cannot compare " + lhs->type.str() + " and " + rhs->type.str() +
                   ": their units do not convert exactly into one another");
  const Type common = Type::time_of(lhs->type.nominal->kind, *unit);
  ir::ExprPtr x = stable(cast(std::move(lhs), common)), y = stable(cast(std::move(rhs), common));
  std::vector<ir::ExprPtr> nat;
  nat.push_back(is_not_a_time(*x));
  nat.push_back(is_not_a_time(*y));
  return make_select(make_or(std::move(nat), loc),
                     scalar_const(Scalar::Bool, op == Operator::NotEq, 0, loc),
                     make_compare(ir_op(op), time_count(*x), time_count(*y), loc));
}

ir::ExprPtr FunctionTyper::time_unary(Operator op, ir::ExprPtr operand, ir::Loc loc) {
  if (!operand->type.is_timedelta() || (op != Operator::Neg && op != Operator::Pos))
    error(loc, "bad operand type for unary " + spelling(op) + ": " + operand->type.str());
  if (op == Operator::Pos)
    return operand;
  const Type result = operand->type;
  auto negated = make_expr(ir::ExprKind::Unary, int64, loc);
  negated->op = ir::Op::Neg; // wraps, so NaT stays NaT
  operand->type = int64;
  negated->args.push_back(std::move(operand));
  negated->type = result;
  return negated;
}

} // namespace simt
