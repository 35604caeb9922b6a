#include "frontend/builtins.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace simt {

namespace {

using S = Scalar;
using I = ir::Intrinsic;

const std::vector<S> kMachineInts = {S::I64, S::U64};
const std::vector<S> kReals = {S::F32, S::F64};
const std::vector<S> kComplexes = {S::C64, S::C128};
const std::vector<S> kSigned = {S::I8, S::I16, S::I32, S::I64};
const std::vector<S> kUnsigned = {S::U8, S::U16, S::U32, S::U64};

// choose_result_int: at least 64 bits, signed when any input is signed.
S result_int(S a, S b) { return (is_signed(a) || is_signed(b)) ? S::I64 : S::U64; }

std::vector<Signature> integer_binop_cases() {
  std::vector<Signature> cases;
  for (S a : kMachineInts)
    for (S b : kMachineInts)
      cases.push_back({result_int(a, b), {a, b}});
  return cases;
}

std::vector<Signature> same_type_cases(const std::vector<S> &types) {
  std::vector<Signature> cases;
  for (S t : types)
    cases.push_back({t, {t, t}});
  return cases;
}

std::vector<Signature> same_type_cases_unary(const std::vector<S> &types) {
  std::vector<Signature> cases;
  for (S t : types)
    cases.push_back({t, {t}});
  return cases;
}

std::vector<Signature> concat(std::vector<Signature> a, const std::vector<Signature> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Signature> &arithmetic_cases() {
  static const auto cases = concat(integer_binop_cases(), same_type_cases(kReals));
  return cases;
}

// numba-cuda's bfloat16 operators (its cuda_bf16 bindings' BinOp, BinOpTrueDiv, UnaryNegate and
// UnaryPositive templates), after Numba's cases so that ties still go to those.
const std::vector<Signature> kBfloat16Binary = {{S::BF16, {S::BF16, S::BF16}}};

// + - * (BinOp's cases): the integer and real cases, then complex op complex, then bfloat16.
const std::vector<Signature> &number_arithmetic_cases() {
  static const auto cases =
      concat(concat(arithmetic_cases(), same_type_cases(kComplexes)), kBfloat16Binary);
  return cases;
}

const std::vector<Signature> &true_division_cases() {
  static const auto cases = [] {
    std::vector<Signature> c;
    for (S a : kMachineInts)
      for (S b : kMachineInts)
        c.push_back({S::F64, {a, b}});
    return concat(concat(concat(c, same_type_cases(kReals)), same_type_cases(kComplexes)),
                  kBfloat16Binary);
  }();
  return cases;
}

const std::vector<Signature> &power_cases() {
  static const auto cases = [] {
    auto c = integer_binop_cases();
    for (S real : kReals)
      for (S exponent : {S::I32, S::I64, S::U64})
        c.push_back({real, {real, exponent}});
    return concat(concat(c, same_type_cases(kReals)), same_type_cases(kComplexes));
  }();
  return cases;
}

const std::vector<Signature> &shift_cases() {
  static const auto cases = [] {
    std::vector<Signature> c;
    for (S a : kSigned)
      for (S b : {S::U64, S::I64})
        c.push_back({S::I64, {a, b}});
    for (S a : kUnsigned)
      for (S b : {S::U64, S::I64})
        c.push_back({S::U64, {a, b}});
    return c;
  }();
  return cases;
}

const std::vector<Signature> &bitwise_cases() {
  static const auto cases = concat({Signature{S::Bool, {S::Bool, S::Bool}}}, integer_binop_cases());
  return cases;
}

const std::vector<Signature> &compare_cases() {
  static const auto cases = [] {
    std::vector<Signature> c = {{S::Bool, {S::Bool, S::Bool}}};
    for (const auto *domain : {&kSigned, &kUnsigned, &kReals, &kComplexes})
      for (S t : *domain)
        c.push_back({S::Bool, {t, t}});
    return c;
  }();
  return cases;
}

// UnaryOp / BitwiseInvert: ints widen to 64 bits keeping their signedness.
std::vector<Signature> unary_int_cases() {
  std::vector<Signature> c;
  for (S t : kUnsigned)
    c.push_back({S::U64, {t}});
  for (S t : kSigned)
    c.push_back({S::I64, {t}});
  return c;
}

} // namespace

std::optional<Signature> binary_operator_signature(ast::Operator op, Scalar lhs, Scalar rhs) {
  using O = ast::Operator;
  switch (op) {
  case O::Add:
  case O::Sub:
  case O::Mul:
    return select_overload({lhs, rhs}, number_arithmetic_cases());
  case O::FloorDiv:
  case O::Mod:
    return select_overload({lhs, rhs}, arithmetic_cases());
  case O::TrueDiv:
    return select_overload({lhs, rhs}, true_division_cases());
  case O::Pow:
    return select_overload({lhs, rhs}, power_cases());
  case O::LShift:
  case O::RShift:
    return select_overload({lhs, rhs}, shift_cases(), false);
  case O::BitAnd:
  case O::BitOr:
  case O::BitXor:
    return select_overload({lhs, rhs}, bitwise_cases(), false);
  default:
    return std::nullopt;
  }
}

std::optional<Signature> unary_operator_signature(ast::Operator op, Scalar operand) {
  if (op == ast::Operator::Not)
    return Signature{S::Bool, {operand}};
  if (op == ast::Operator::Invert) {
    static const auto cases = concat({Signature{S::Bool, {S::Bool}}}, unary_int_cases());
    return select_overload({operand}, cases, false);
  }
  static const auto cases = [] {
    auto c = unary_int_cases();
    for (S t : kReals)
      c.push_back({t, {t}});
    for (S t : kComplexes)
      c.push_back({t, {t}});
    c.push_back({S::I64, {S::Bool}});
    c.push_back({S::BF16, {S::BF16}});
    return c;
  }();
  return select_overload({operand}, cases);
}

std::optional<Signature> compare_signature(Scalar lhs, Scalar rhs) {
  return select_overload({lhs, rhs}, compare_cases());
}

Scalar promote_arithmetic(Scalar a, Scalar b) {
  return select_overload({a, b}, number_arithmetic_cases())->result;
}

std::optional<__int128> python_int_binary(ir::Op op, __int128 x, __int128 y) {
  using I = __int128;
  constexpr I kMax = I(~static_cast<unsigned __int128>(0) >> 1), kMin = -kMax - 1;
  I r = 0;
  switch (op) {
  case ir::Op::Add:
    return __builtin_add_overflow(x, y, &r) ? std::nullopt : std::optional<I>(r);
  case ir::Op::Sub:
    return __builtin_sub_overflow(x, y, &r) ? std::nullopt : std::optional<I>(r);
  case ir::Op::Mul:
    return __builtin_mul_overflow(x, y, &r) ? std::nullopt : std::optional<I>(r);
  case ir::Op::FloorDiv:
  case ir::Op::Mod: {
    if (y == 0 || (x == kMin && y == -1))
      return std::nullopt;
    I q = x / y, m = x % y;
    if (m != 0 && (m < 0) != (y < 0)) { // Python floors
      q -= 1;
      m += y;
    }
    return op == ir::Op::FloorDiv ? q : m;
  }
  case ir::Op::Pow:
    if (y < 0)
      return std::nullopt; // a float
    r = 1;
    for (I base = x; y > 0; y >>= 1) { // squaring: a large exponent of 0, 1 or -1 is quick
      if ((y & 1) && __builtin_mul_overflow(r, base, &r))
        return std::nullopt;
      if (y > 1 && __builtin_mul_overflow(base, base, &base))
        return std::nullopt;
    }
    return r;
  case ir::Op::LShift:
  case ir::Op::RShift:
    if (y < 0)
      return std::nullopt; // ValueError: negative shift count
    if (op == ir::Op::RShift)
      return y >= 127 ? (x < 0 ? -1 : 0) : x >> int(y);
    if (y >= 127 || (x != 0 && (x > (kMax >> int(y)) || x < (kMin >> int(y)))))
      return x == 0 ? std::optional<I>(0) : std::nullopt;
    return x * (I(1) << int(y));
  case ir::Op::BitAnd:
    return x & y;
  case ir::Op::BitOr:
    return x | y;
  case ir::Op::BitXor:
    return x ^ y;
  default:
    return std::nullopt; // true division: a float
  }
}

namespace {

// cudamath.py's case lists.
const std::vector<Signature> kUnaryMath = {
    {S::F64, {S::I64}}, {S::F64, {S::U64}}, {S::F32, {S::F32}}, {S::F64, {S::F64}}};
const std::vector<Signature> kBinaryMathWithInts = {{S::F64, {S::I64, S::I64}},
                                                    {S::F64, {S::U64, S::U64}},
                                                    {S::F32, {S::F32, S::F32}},
                                                    {S::F64, {S::F64, S::F64}}};
const std::vector<Signature> kBinaryMath = {{S::F32, {S::F32, S::F32}}, {S::F64, {S::F64, S::F64}}};
const std::vector<Signature> kPowMath = {{S::F32, {S::F32, S::F32}},
                                         {S::F64, {S::F64, S::F64}},
                                         {S::F32, {S::F32, S::I32}},
                                         {S::F64, {S::F64, S::I32}}};
const std::vector<Signature> kLdexp = {{S::F32, {S::F32, S::I32}}, {S::F64, {S::F64, S::I32}}};
const std::vector<Signature> kPredicate = {
    {S::Bool, {S::I64}}, {S::Bool, {S::U64}}, {S::Bool, {S::F32}}, {S::Bool, {S::F64}}};

// degrees and radians: the argument times a factor, no intrinsic.
MathFunction angle_conversion(const char *name, double factor) {
  return {name, std::nullopt, kUnaryMath, factor};
}

std::vector<MathFunction> math_functions() {
  std::vector<MathFunction> fns;
  const std::pair<const char *, I> unary[] = {
      {"acos", I::Acos},   {"acosh", I::Acosh}, {"asin", I::Asin},    {"asinh", I::Asinh},
      {"atan", I::Atan},   {"atanh", I::Atanh}, {"ceil", I::Ceil},    {"cos", I::Cos},
      {"cosh", I::Cosh},   {"erf", I::Erf},     {"erfc", I::Erfc},    {"exp", I::Exp},
      {"expm1", I::Expm1}, {"fabs", I::Fabs},   {"floor", I::Floor},  {"lgamma", I::Lgamma},
      {"log", I::Log},     {"log2", I::Log2},   {"log10", I::Log10},  {"log1p", I::Log1p},
      {"sin", I::Sin},     {"sinh", I::Sinh},   {"sqrt", I::Sqrt},    {"tan", I::Tan},
      {"tanh", I::Tanh},   {"trunc", I::Trunc}, {"gamma", I::Tgamma}, {"exp2", I::Exp2},
      {"cbrt", I::Cbrt}};
  for (auto [name, intrinsic] : unary)
    fns.push_back({name, intrinsic, kUnaryMath});
  fns.push_back(angle_conversion("degrees", 180.0 / M_PI));
  fns.push_back(angle_conversion("radians", M_PI / 180.0));
  fns.push_back({"atan2", I::Atan2, kBinaryMathWithInts});
  fns.push_back({"hypot", I::Hypot, kBinaryMathWithInts});
  fns.push_back({"copysign", I::Copysign, kBinaryMath});
  fns.push_back({"nextafter", I::Nextafter, kBinaryMath});
  fns.push_back({"fmod", I::Fmod, kBinaryMath});
  fns.push_back({"remainder", I::Remainder, kBinaryMath});
  fns.push_back({"pow", I::Pow, kPowMath});
  fns.push_back({"ldexp", I::Ldexp, kLdexp});
  for (auto [name, intrinsic] :
       {std::pair{"isnan", I::Isnan}, {"isinf", I::Isinf}, {"isfinite", I::Isfinite}})
    fns.push_back({name, intrinsic, kPredicate});
  // the result is a tuple (see the typer): the case's result is its first element's type
  fns.push_back({"frexp", I::Frexp, same_type_cases_unary(kReals)});
  fns.push_back({"modf", I::Modf, same_type_cases_unary(kReals)});
  return fns;
}

// NumPy ufuncs on scalars with the same meaning (their loops type like cudamath's cases).
std::vector<MathFunction> numpy_functions() {
  std::vector<MathFunction> fns;
  const std::pair<const char *, I> unary[] = {
      {"sin", I::Sin},     {"cos", I::Cos},       {"tan", I::Tan},       {"arcsin", I::Asin},
      {"arccos", I::Acos}, {"arctan", I::Atan},   {"sinh", I::Sinh},     {"cosh", I::Cosh},
      {"tanh", I::Tanh},   {"arcsinh", I::Asinh}, {"arccosh", I::Acosh}, {"arctanh", I::Atanh},
      {"exp", I::Exp},     {"expm1", I::Expm1},   {"exp2", I::Exp2},     {"log", I::Log},
      {"log2", I::Log2},   {"log10", I::Log10},   {"log1p", I::Log1p},   {"sqrt", I::Sqrt},
      {"fabs", I::Fabs},   {"floor", I::Floor},   {"ceil", I::Ceil},     {"trunc", I::Trunc},
      {"rint", I::Rint},   {"cbrt", I::Cbrt}};
  for (auto [name, intrinsic] : unary)
    fns.push_back({name, intrinsic, kUnaryMath});
  fns.push_back(angle_conversion("degrees", 180.0 / M_PI));
  fns.push_back(angle_conversion("radians", M_PI / 180.0));
  fns.push_back({"arctan2", I::Atan2, kBinaryMathWithInts});
  fns.push_back({"hypot", I::Hypot, kBinaryMathWithInts});
  fns.push_back({"copysign", I::Copysign, kBinaryMathWithInts});
  for (auto [name, intrinsic] :
       {std::pair{"isnan", I::Isnan}, {"isinf", I::Isinf}, {"isfinite", I::Isfinite}})
    fns.push_back({name, intrinsic, kPredicate});
  return fns;
}

} // namespace

std::optional<std::string> array_reduction_method(const std::string &name, bool numpy_function) {
  if (name == "sum" || name == "prod" || name == "min" || name == "max" || name == "mean")
    return name;
  if (numpy_function && (name == "amin" || name == "amax"))
    return name.substr(1);
  return std::nullopt;
}

const MathFunction *find_math_function(const std::string &module, const std::string &name) {
  static const std::vector<MathFunction> math = math_functions();
  static const std::vector<MathFunction> numpy = numpy_functions();
  if (module != "math" && module != "numpy")
    return nullptr;
  const auto &table = module == "math" ? math : numpy;
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const MathFunction &f) { return f.name == name; });
  return it == table.end() ? nullptr : &*it;
}

const AtomicFunction *find_atomic_function(const std::string &name) {
  static const std::vector<S> all = {S::F64, S::F32, S::I32, S::U32, S::I64, S::U64};
  static const std::vector<S> ints = {S::I32, S::U32, S::I64, S::U64};
  static const std::vector<S> uints = {S::U32, S::U64};
  static const std::vector<AtomicFunction> table = {{"add", ir::Op::AtomicAdd, all},
                                                    {"sub", ir::Op::AtomicSub, all},
                                                    {"max", ir::Op::AtomicMax, all},
                                                    {"min", ir::Op::AtomicMin, all},
                                                    {"and_", ir::Op::AtomicAnd, ints},
                                                    {"or_", ir::Op::AtomicOr, ints},
                                                    {"xor", ir::Op::AtomicXor, ints},
                                                    {"exch", ir::Op::AtomicExch, ints},
                                                    {"inc", ir::Op::AtomicInc, uints},
                                                    {"dec", ir::Op::AtomicDec, uints},
                                                    {"compare_and_swap", ir::Op::AtomicCas, ints},
                                                    {"cas", ir::Op::AtomicCas, ints},
                                                    {"nanmax", ir::Op::AtomicNanMax, all},
                                                    {"nanmin", ir::Op::AtomicNanMin, all}};
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const AtomicFunction &f) { return f.name == name; });
  return it == table.end() ? nullptr : &*it;
}

const CudaFunction *find_cuda_function(const std::string &name) {
  static const std::vector<S> all_ints = {S::I8, S::I16, S::I32, S::I64,
                                          S::U8, S::U16, S::U32, S::U64};
  static const std::vector<CudaFunction> table = [] {
    std::vector<Signature> ffs;
    for (S t : all_ints)
      ffs.push_back({S::U32, {t}});
    const std::vector<Signature> predicate = {{S::I32, {S::I32}}};
    const std::vector<Signature> half_binary = {{S::F16, {S::F16, S::F16}}};
    const std::vector<Signature> half_unary = {{S::F16, {S::F16}}};
    const std::vector<Signature> half_compare = {{S::Bool, {S::F16, S::F16}}};
    return std::vector<CudaFunction>{
        {I::Popc, same_type_cases_unary(all_ints)},
        {I::Clz, same_type_cases_unary(all_ints)},
        {I::Ffs, ffs},
        {I::Brev, same_type_cases_unary({S::U32, S::U64})},
        {I::Fma, {{S::F32, {S::F32, S::F32, S::F32}}, {S::F64, {S::F64, S::F64, S::F64}}}},
        {I::Cbrt, same_type_cases_unary(kReals)},
        {I::SyncthreadsCount, predicate},
        {I::SyncthreadsAnd, predicate},
        {I::SyncthreadsOr, predicate},
        // cuda.fp16 (cudadecl.py's Cuda_fp16_* templates): float16 operands only
        {I::Hadd, half_binary},
        {I::Hsub, half_binary},
        {I::Hmul, half_binary},
        {I::Hmax, half_binary},
        {I::Hmin, half_binary},
        {I::Hneg, half_unary},
        {I::Habs, half_unary},
        {I::Hfma, {{S::F16, {S::F16, S::F16, S::F16}}}},
        {I::Heq, half_compare},
        {I::Hne, half_compare},
        {I::Hge, half_compare},
        {I::Hgt, half_compare},
        {I::Hle, half_compare},
        {I::Hlt, half_compare},
        {I::Hdiv, half_binary},
        {I::Hsin, half_unary},
        {I::Hcos, half_unary},
        {I::Htanh, half_unary},
        {I::HtanhApprox, half_unary},
        {I::Hlog, half_unary},
        {I::Hlog2, half_unary},
        {I::Hlog10, half_unary},
        {I::Hexp, half_unary},
        {I::Hexp2, half_unary},
        {I::Hexp10, half_unary},
        {I::Hsqrt, half_unary},
        {I::Hrsqrt, half_unary},
        {I::Hrcp, half_unary},
        {I::Hceil, half_unary},
        {I::Hfloor, half_unary},
        {I::Htrunc, half_unary},
        {I::Hrint, half_unary}};
  }();
  auto it = std::find_if(table.begin(), table.end(), [&](const CudaFunction &f) {
    return ir::intrinsic_name(f.intrinsic) == name;
  });
  return it == table.end() ? nullptr : &*it;
}

bool is_unsupported_cuda_name(const std::string &name) {
  static const std::set<std::string> names = {"declare_device", "compile_ptx",
                                              "shfl_sync_intrinsic", "vote_sync_intrinsic"};
  return names.count(name) > 0;
}

bool parse_vector_type_name(const std::string &name, Scalar &base, int &count) {
  if (name.size() < 2 || name.back() < '1' || name.back() > '4')
    return false;
  count = name.back() - '0';
  std::string stem = name.substr(0, name.size() - 1);
  // the aliases, as stubs.py maps C names to NumPy's sizes on 64-bit Linux
  static const std::map<std::string, Scalar> aliases = {
      {"char", S::I8},      {"short", S::I16},     {"int", S::I32},    {"long", S::I64},
      {"longlong", S::I64}, {"uchar", S::U8},      {"ushort", S::U16}, {"uint", S::U32},
      {"ulong", S::U64},    {"ulonglong", S::U64}, {"float", S::F32},  {"double", S::F64}};
  if (auto it = aliases.find(stem); it != aliases.end()) {
    base = it->second;
    return true;
  }
  static const std::map<std::string, Scalar> prefixes = {
      {"int8x", S::I8},     {"int16x", S::I16},  {"int32x", S::I32},  {"int64x", S::I64},
      {"uint8x", S::U8},    {"uint16x", S::U16}, {"uint32x", S::U32}, {"uint64x", S::U64},
      {"float32x", S::F32}, {"float64x", S::F64}};
  auto it = prefixes.find(stem);
  if (it == prefixes.end())
    return false;
  base = it->second;
  return true;
}

bool is_cache_hinted_load(const std::string &name) {
  return name == "ldca" || name == "ldcg" || name == "ldcs" || name == "ldlu" || name == "ldcv";
}

bool is_cache_hinted_store(const std::string &name) {
  return name == "stcg" || name == "stcs" || name == "stwb" || name == "stwt";
}

bool is_cuda_intrinsic(const std::string &name) {
  static const char *const names[] = {
      "selp",      "threadfence", "threadfence_block",    "threadfence_system",
      "nanosleep", "cg",          "cg.this_thread_block", "cg.this_grid",
      "fp16"};
  if (is_cache_hinted_load(name) || is_cache_hinted_store(name))
    return true;
  Scalar base;
  int count;
  return find_cuda_function(name) || find_warp_intrinsic(name) ||
         parse_vector_type_name(name, base, count) ||
         std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool is_builtin_exception(const std::string &name) {
  static const char *const names[] = {
      "Exception",       "ValueError",         "IndexError",          "KeyError",
      "TypeError",       "RuntimeError",       "AssertionError",      "ZeroDivisionError",
      "ArithmeticError", "OverflowError",      "NotImplementedError", "LookupError",
      "MemoryError",     "FloatingPointError", "StopIteration",       "AttributeError"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

bool is_builtin_function(const std::string &name) {
  static const char *const names[] = {"range", "len",     "abs",    "min",       "max", "round",
                                      "int",   "float",   "bool",   "print",     "pow", "enumerate",
                                      "zip",   "complex", "divmod", "breakpoint"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

} // namespace simt
