// The ufunc table (see the header), transcribed from NumPy 2's ufunc.types (loops of float16,
// long double, datetime and object operands left out: Numba skips them) and numba-cuda's
// ufuncs.py.
#include "frontend/ufuncs.h"

#include <algorithm>
#include <map>
#include <numbers>
#include <sstream>

namespace simt {

namespace {

using S = Scalar;

Scalar letter_scalar(char c) {
  static const std::map<char, S> letters = {
      {'?', S::Bool}, {'b', S::I8},  {'B', S::U8},  {'h', S::I16}, {'H', S::U16},
      {'i', S::I32},  {'I', S::U32}, {'l', S::I64}, {'L', S::U64}, {'q', S::I64},
      {'Q', S::U64},  {'f', S::F32}, {'d', S::F64}, {'F', S::C64}, {'D', S::C128}};
  return letters.at(c);
}

// "ff->f dd->d" -> its loops
std::vector<UfuncLoop> parse_loops(const std::string &text) {
  std::vector<UfuncLoop> loops;
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    UfuncLoop loop;
    loop.letters = w;
    size_t arrow = w.find("->");
    for (size_t i = 0; i < arrow; ++i)
      loop.inputs.push_back(letter_scalar(w[i]));
    loop.output = letter_scalar(w[arrow + 2]);
    loops.push_back(std::move(loop));
  }
  return loops;
}

const char *const kFloat = "f->f d->d";
const char *const kFloatComplex = "f->f d->d F->F D->D";
const char *const kFloat2 = "ff->f dd->d";
const char *const kInts = "b B h H i I l L q Q";
// Same-type loops of the letters `types` (e.g. "? b B"), `arity` operands each.
std::string same_type(const std::string &types, int arity, const std::string &result = "") {
  std::istringstream words(types);
  std::string t, out;
  while (words >> t)
    out += std::string(arity, t[0]) + "->" + (result.empty() ? t : result) + " ";
  return out;
}

std::vector<Ufunc> build_table() {
  std::vector<Ufunc> t;
  auto add = [&](const std::string &name, int nin, UfuncOp op, const std::string &detail,
                 const std::string &loops, const std::string &cmath = "", double factor = 0) {
    t.push_back({name, nin, op, detail, cmath, factor, parse_loops(loops)});
  };
  auto add_operator = [&](const std::string &name, int nin, UfuncOp op, ast::Operator python_op,
                          const std::string &loops) {
    t.push_back({name, nin, op, "", "", 0, parse_loops(loops), python_op});
  };
  using O = ast::Operator;
  // math functions: NumPy's name, the intrinsic, the complex prelude's function
  const char *const unary[][3] = {
      {"sin", "sin", "sin"},         {"cos", "cos", "cos"},         {"tan", "tan", "tan"},
      {"arcsin", "asin", "asin"},    {"arccos", "acos", "acos"},    {"arctan", "atan", "atan"},
      {"sinh", "sinh", "sinh"},      {"cosh", "cosh", "cosh"},      {"tanh", "tanh", "tanh"},
      {"arcsinh", "asinh", "asinh"}, {"arccosh", "acosh", "acosh"}, {"arctanh", "atanh", "atanh"},
      {"exp", "exp", "exp"},         {"log", "log", "log"},         {"log10", "log10", "log10"},
      {"log2", "log2", "log2"},      {"sqrt", "sqrt", "sqrt"},      {"exp2", "exp2", ""},
      {"expm1", "expm1", ""},        {"log1p", "log1p", ""},        {"rint", "rint", ""}};
  for (const auto &u : unary)
    add(u[0], 1, UfuncOp::Math, u[1], kFloatComplex, u[2]);
  // floor, ceil and trunc as NumPy 1 types them (NumPy 2 adds integer loops)
  for (const char *name : {"cbrt", "fabs", "floor", "ceil", "trunc"})
    add(name, 1, UfuncOp::Math, name, kFloat);
  add("arctan2", 2, UfuncOp::Math, "atan2", kFloat2);
  add("hypot", 2, UfuncOp::Math, "hypot", kFloat2);
  add("copysign", 2, UfuncOp::Math, "copysign", kFloat2);
  for (const char *name : {"deg2rad", "radians"})
    add(name, 1, UfuncOp::Angle, "", kFloat, "", std::numbers::pi / 180);
  for (const char *name : {"rad2deg", "degrees"})
    add(name, 1, UfuncOp::Angle, "", kFloat, "", 180 / std::numbers::pi);
  const std::pair<const char *, O> compare[] = {{"greater", O::Gt},      {"greater_equal", O::GtE},
                                                {"less", O::Lt},         {"less_equal", O::LtE},
                                                {"not_equal", O::NotEq}, {"equal", O::Eq}};
  const std::string kinds = std::string("? ") + kInts + " ";
  // NumPy 1.25's int64-with-uint64 loops come before the float ones
  const std::string ordered =
      same_type(kinds, 2, "?") + "qQ->? Qq->? " + same_type("f d F D", 2, "?");
  for (const auto &[name, op] : compare)
    add_operator(name, 2, UfuncOp::Compare, op, ordered);
  for (const char *op : {"and", "or", "xor"})
    add(std::string("logical_") + op, 2, UfuncOp::Logical, op,
        same_type(kinds + "f d F D", 2, "?"));
  add("logical_not", 1, UfuncOp::Logical, "not",
      same_type(std::string("? ") + kInts + " f d F D", 1, "?"));
  const std::string numbers = std::string("? ") + kInts + " f d F D";
  for (const char *op : {"max", "min", "fmax", "fmin"})
    add(op[0] == 'f' ? op : std::string(op) + "imum", 2, UfuncOp::MinMax, op,
        same_type(numbers, 2));
  const std::string integers = std::string("? ") + kInts;
  const std::pair<const char *, O> bitwise[] = {
      {"bitwise_and", O::BitAnd}, {"bitwise_or", O::BitOr}, {"bitwise_xor", O::BitXor}};
  for (const auto &[name, op] : bitwise)
    add_operator(name, 2, UfuncOp::Arithmetic, op, same_type(integers, 2));
  for (const char *name : {"invert", "bitwise_not"})
    add_operator(name, 1, UfuncOp::Arithmetic, O::Invert, same_type(integers, 1));
  add_operator("left_shift", 2, UfuncOp::Arithmetic, O::LShift, same_type(kInts, 2));
  add_operator("right_shift", 2, UfuncOp::Arithmetic, O::RShift, same_type(kInts, 2));
  for (const char *name : {"isnan", "isinf", "isfinite"})
    add(name, 1, UfuncOp::Predicate, name, same_type(numbers, 1, "?"));
  add("conjugate", 1, UfuncOp::Conjugate, "", same_type(std::string(kInts) + " f d F D", 1));
  add_operator("add", 2, UfuncOp::Arithmetic, O::Add, same_type(numbers, 2));
  add_operator("subtract", 2, UfuncOp::Arithmetic, O::Sub,
               same_type(std::string(kInts) + " f d F D", 2));
  add_operator("multiply", 2, UfuncOp::Arithmetic, O::Mul, same_type(numbers, 2));
  for (const char *name : {"divide", "true_divide"})
    add_operator(name, 2, UfuncOp::Arithmetic, O::TrueDiv, "ff->f dd->d FF->F DD->D");
  add_operator("negative", 1, UfuncOp::Arithmetic, O::Neg,
               same_type(std::string(kInts) + " f d F D", 1));
  return t;
}

// NumPy's kinds, in the order same_kind casting follows: b < u < i < f < c
int kind_rank(Scalar s) {
  if (s == S::Bool)
    return 0;
  if (is_integer(s))
    return is_signed(s) ? 2 : 1;
  return is_complex(s) ? 4 : 3;
}

// The mantissa bits of a float or complex's parts; the value bits of an integer.
int precision(Scalar s) {
  if (is_complex(s) || is_real(s))
    return component_of(s) == S::F32 ? 24 : 53;
  return bit_width(s) - (is_signed(s) ? 1 : 0);
}

} // namespace

bool numpy_can_cast(Scalar from, Scalar to, bool same_kind) {
  if (from == to || from == S::Bool)
    return true;
  int f = kind_rank(from), t = kind_rank(to);
  if (same_kind && f <= t && !(f == 2 && t == 1)) // any width within a kind, or a later kind
    return true;
  if (f > t || (f == 2 && t == 1))
    return false;
  if (f == t) // the same kind: no narrower
    return bit_width(to) >= bit_width(from);
  if (t <= 2) // unsigned to signed
    return bit_width(to) > bit_width(from);
  if (f >= 3) // float to complex
    return precision(to) >= precision(from);
  // integers to floats: int8/16 and uint8/16 to float32, wider ones to float64 (NumPy's table)
  return bit_width(from) <= 16 || precision(to) == 53;
}

const Ufunc *find_ufunc(const std::string &name) {
  static const std::vector<Ufunc> table = build_table();
  auto it =
      std::find_if(table.begin(), table.end(), [&](const Ufunc &u) { return u.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::optional<UfuncLoop> select_ufunc_loop(const Ufunc &u, const std::vector<Scalar> &inputs,
                                           std::optional<Scalar> out) {
  bool any_int = false, any_float = false;
  for (Scalar s : inputs) {
    any_int |= is_integer(s);
    any_float |= is_real(s) || is_complex(s);
  }
  bool mixed = any_int && any_float;
  for (const UfuncLoop &loop : u.loops) {
    bool viable = true;
    for (size_t i = 0; i < inputs.size() && viable; ++i) {
      Scalar to = loop.inputs[i];
      viable =
          (mixed && is_integer(inputs[i]) && kind_rank(to) >= 3) || numpy_can_cast(inputs[i], to);
    }
    if (viable && out)
      viable = numpy_can_cast(loop.output, *out, true);
    if (viable)
      return loop;
  }
  return std::nullopt;
}

} // namespace simt
