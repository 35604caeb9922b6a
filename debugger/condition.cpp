#include "debugger/condition.h"

#include <cmath>
#include <cstdint>
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

// The scalar of kind `s` (a NumPy name) at `at`.
std::optional<Value> load_scalar(const std::string &s, const char *at) {
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

int64_t field(const char *at) {
  int64_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// Element: pops the indices, reads the element (nullopt out of bounds, as Python's IndexError
// is the REPL's to report).
std::optional<Value> element(const ConditionStep &step, const void *locals,
                             std::vector<Value> &stack) {
  const size_t ndim = size_t(step.axis);
  if (locals == nullptr || stack.size() < ndim)
    return std::nullopt;
  const char *header = static_cast<const char *>(locals) + step.offset;
  const char *data = reinterpret_cast<const char *>(field(header));
  if (data == nullptr) // not assigned yet
    return std::nullopt;
  int64_t offset = 0;
  for (size_t k = 0; k < ndim; ++k) {
    const Value &index = stack[stack.size() - ndim + k];
    const int64_t extent = field(header + 8 * (1 + k));
    const int64_t stride = field(header + 8 * (1 + ndim + k));
    const int64_t i = index.i < 0 ? index.i + extent : index.i;
    if (index.is_float || i < 0 || i >= extent)
      return std::nullopt;
    offset += i * stride;
  }
  stack.resize(stack.size() - ndim);
  return load_scalar(step.scalar, data + offset);
}

// Python's math functions over one number: nullopt where Python raises (a domain error, an
// overflow), so that the REPL reports it.
struct MathFunction {
  const char *name;
  std::optional<Value> (*apply)(const Value &);
};

std::optional<Value> real(double r, const Value &of) {
  if (std::isnan(r) && !std::isnan(as_float(of)))
    return std::nullopt;
  if (std::isinf(r) && std::isfinite(as_float(of)))
    return std::nullopt;
  return of_float(r);
}

std::optional<Value> integral(double r) {
  if (!std::isfinite(r))
    return std::nullopt;
  return of_int(int64_t(r));
}

const MathFunction kMathFunctions[] = {
    {"sqrt", [](const Value &v) { return real(std::sqrt(as_float(v)), v); }},
    {"exp", [](const Value &v) { return real(std::exp(as_float(v)), v); }},
    {"log",
     [](const Value &v) {
       return as_float(v) > 0 ? real(std::log(as_float(v)), v) : std::optional<Value>();
     }},
    {"sin", [](const Value &v) { return real(std::sin(as_float(v)), v); }},
    {"cos", [](const Value &v) { return real(std::cos(as_float(v)), v); }},
    {"tan", [](const Value &v) { return real(std::tan(as_float(v)), v); }},
    {"fabs", [](const Value &v) { return real(std::fabs(as_float(v)), v); }},
    {"abs",
     [](const Value &v) {
       return v.is_float ? real(std::fabs(v.f), v)
                         : std::optional<Value>(of_int(v.i < 0 ? int64_t(0 - uint64_t(v.i)) : v.i));
     }},
    {"floor",
     [](const Value &v) { return v.is_float ? integral(std::floor(v.f)) : std::optional(v); }},
    {"ceil",
     [](const Value &v) { return v.is_float ? integral(std::ceil(v.f)) : std::optional(v); }},
    {"isnan", [](const Value &v) { return std::optional(of_int(std::isnan(as_float(v)))); }},
    {"isinf", [](const Value &v) { return std::optional(of_int(std::isinf(as_float(v)))); }},
    {"isfinite", [](const Value &v) { return std::optional(of_int(std::isfinite(as_float(v)))); }},
};

std::optional<Value> call(const ConditionStep &step, const Value &argument) {
  for (const MathFunction &function : kMathFunctions)
    if (step.scalar == function.name)
      return function.apply(argument);
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

std::optional<Value> division(Op op, const Value &a, const Value &b) {
  if (op == Op::TrueDiv)
    return as_float(b) == 0 ? std::nullopt : std::optional(of_float(as_float(a) / as_float(b)));
  if (a.is_float || b.is_float)
    return as_float(b) == 0 ? std::nullopt
                            : std::optional(of_float(std::floor(as_float(a) / as_float(b))));
  if (b.i == 0 || (b.i == -1 && a.i == INT64_MIN)) // Python's int would not wrap
    return std::nullopt;
  const int64_t q = a.i / b.i; // Python's floor division rounds toward negative infinity
  return of_int(q - int64_t(a.i % b.i != 0 && ((a.i < 0) != (b.i < 0))));
}

std::optional<Value> arithmetic(Op op, const Value &a, const Value &b) {
  if (op == Op::TrueDiv || op == Op::FloorDiv)
    return division(op, a, b);
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

const std::vector<std::string> &condition_functions() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const MathFunction &function : kMathFunctions)
      all.push_back(function.name);
    return all;
  }();
  return names;
}

std::optional<bool> evaluate(const std::vector<ConditionStep> &program,
                             const sim::ThreadContext &thread, const void *locals) {
  std::vector<Value> stack;
  stack.reserve(8);
  for (const ConditionStep &step : program) {
    switch (step.op) {
    case Op::Local: {
      if (locals == nullptr)
        return std::nullopt;
      std::optional<Value> v =
          load_scalar(step.scalar, static_cast<const char *>(locals) + step.offset);
      if (!v)
        return std::nullopt;
      stack.push_back(*v);
      continue;
    }
    case Op::Element: {
      std::optional<Value> v = element(step, locals, stack);
      if (!v)
        return std::nullopt;
      stack.push_back(*v);
      continue;
    }
    case Op::Call: {
      std::optional<Value> v = stack.empty() ? std::nullopt : call(step, stack.back());
      if (!v)
        return std::nullopt;
      stack.back() = *v;
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
    case Op::Mod:
    case Op::TrueDiv:
    case Op::FloorDiv: {
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
