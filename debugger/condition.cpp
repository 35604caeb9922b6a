#include "debugger/condition.h"

#include <cmath>
#include <cstring>

namespace simt::debugger {

namespace {

using Op = ConditionStep::Op;
using Value = ConditionStep::Value;

double as_float(const Value &v) { return v.is_float ? v.f : double(v.i); }

Value of_int(int64_t i) { return Value{false, i, 0}; }
Value of_float(double f) { return Value{true, 0, f}; }

template <typename T> Value load(const char *at, bool is_float) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return is_float ? of_float(double(v)) : of_int(int64_t(v));
}

std::optional<Value> local(const ConditionStep &step, const void *locals) {
  const char *at = static_cast<const char *>(locals) + step.offset;
  const std::string &s = step.scalar;
  if (s == "bool" || s == "uint8")
    return load<uint8_t>(at, false);
  if (s == "int8")
    return load<int8_t>(at, false);
  if (s == "int16")
    return load<int16_t>(at, false);
  if (s == "uint16")
    return load<uint16_t>(at, false);
  if (s == "int32")
    return load<int32_t>(at, false);
  if (s == "uint32")
    return load<uint32_t>(at, false);
  if (s == "int64" || s == "uint64")
    return load<int64_t>(at, false);
  if (s == "float32")
    return load<float>(at, true);
  if (s == "float64")
    return load<double>(at, true);
  return std::nullopt;
}

int32_t special(const sim::ThreadContext &t, int which, int axis) {
  const int32_t(*fields[4])[3] = {&t.tid, &t.ctaid, &t.ntid, &t.nctaid};
  return (*fields[which & 3])[axis % 3];
}

bool compare(Op op, const Value &a, const Value &b) {
  if (!a.is_float && !b.is_float) {
    switch (op) {
    case Op::Eq:
      return a.i == b.i;
    case Op::Ne:
      return a.i != b.i;
    case Op::Lt:
      return a.i < b.i;
    case Op::Le:
      return a.i <= b.i;
    case Op::Gt:
      return a.i > b.i;
    default:
      return a.i >= b.i;
    }
  }
  const double x = as_float(a), y = as_float(b);
  switch (op) {
  case Op::Eq:
    return x == y;
  case Op::Ne:
    return x != y;
  case Op::Lt:
    return x < y;
  case Op::Le:
    return x <= y;
  case Op::Gt:
    return x > y;
  default:
    return x >= y;
  }
}

std::optional<Value> arithmetic(Op op, const Value &a, const Value &b) {
  if (!a.is_float && !b.is_float) {
    const uint64_t x = uint64_t(a.i), y = uint64_t(b.i); // wrapping, as the kernel's int64
    switch (op) {
    case Op::Add:
      return of_int(int64_t(x + y));
    case Op::Sub:
      return of_int(int64_t(x - y));
    case Op::Mul:
      return of_int(int64_t(x * y));
    default: {
      if (b.i == 0)
        return std::nullopt;
      const int64_t r = a.i % b.i; // Python's modulo takes the divisor's sign
      return of_int(r != 0 && ((r < 0) != (b.i < 0)) ? r + b.i : r);
    }
    }
  }
  const double x = as_float(a), y = as_float(b);
  switch (op) {
  case Op::Add:
    return of_float(x + y);
  case Op::Sub:
    return of_float(x - y);
  case Op::Mul:
    return of_float(x * y);
  default: {
    if (y == 0)
      return std::nullopt;
    const double r = std::fmod(x, y);
    return of_float(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
  }
  }
}

bool truth(const Value &v) { return v.is_float ? v.f != 0 : v.i != 0; }

} // namespace

std::optional<bool> evaluate(const std::vector<ConditionStep> &program,
                             const sim::ThreadContext &thread, const void *locals) {
  std::vector<Value> stack;
  stack.reserve(8);
  for (const ConditionStep &step : program) {
    switch (step.op) {
    case Op::Local: {
      if (locals == nullptr)
        return std::nullopt;
      std::optional<Value> v = local(step, locals);
      if (!v)
        return std::nullopt;
      stack.push_back(*v);
      continue;
    }
    case Op::Special:
      stack.push_back(of_int(special(thread, step.special, step.axis)));
      continue;
    case Op::Const:
      stack.push_back(step.value);
      continue;
    case Op::Not:
    case Op::Neg: {
      if (stack.empty())
        return std::nullopt;
      Value &v = stack.back();
      if (step.op == Op::Not)
        v = of_int(!truth(v));
      else
        v = v.is_float ? of_float(-v.f) : of_int(int64_t(0 - uint64_t(v.i)));
      continue;
    }
    default:
      break;
    }
    if (stack.size() < 2)
      return std::nullopt;
    const Value b = stack.back();
    stack.pop_back();
    const Value a = stack.back();
    stack.pop_back();
    switch (step.op) {
    case Op::And:
      stack.push_back(of_int(truth(a) && truth(b)));
      break;
    case Op::Or:
      stack.push_back(of_int(truth(a) || truth(b)));
      break;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mod: {
      std::optional<Value> r = arithmetic(step.op, a, b);
      if (!r)
        return std::nullopt;
      stack.push_back(*r);
      break;
    }
    default:
      stack.push_back(of_int(compare(step.op, a, b)));
      break;
    }
  }
  if (stack.size() != 1)
    return std::nullopt;
  return truth(stack.back());
}

} // namespace simt::debugger
