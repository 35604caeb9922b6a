// Calls: Python builtins, math/NumPy functions, the cuda module, dtype casts, device functions.
#include "frontend/builtins.h"
#include "frontend/conversion.h"
#include "frontend/ir_build.h"
#include "frontend/python_int.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"
#include "frontend/ufuncs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

namespace simt {

namespace {

// CUDA's limit of local memory per thread, and simt's per local array (docs/user-guide.md,
// Limits): beyond it a thread's stack could not hold the array.
constexpr int64_t max_local_array_bytes = 512 * 1024;

// "cuda.local.array((3, 4), float32)", as the kernel wrote it.
std::string array_call_text(const std::string &kind, const std::vector<int64_t> &shape,
                            const ir::ArrayElements &elements) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() != 1)
    dims = "(" + dims + ")";
  return "cuda." + kind + ".array(" + dims + ", " + elements.str() + ")";
}

// Python's float(text) of a constant string ("nan", "-inf", " 1.5e3 "), or nullopt where Python
// raises ValueError.
std::optional<double> python_float_of(const std::string &text) {
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos)
    return std::nullopt;
  std::string s = text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
  std::string lower;
  for (char c : s)
    lower += char(std::tolower(static_cast<unsigned char>(c)));
  const bool negative = lower[0] == '-';
  const std::string word = lower[0] == '-' || lower[0] == '+' ? lower.substr(1) : lower;
  if (word == "nan")
    return negative ? -std::nan("") : std::nan("");
  if (word == "inf" || word == "infinity")
    return negative ? -HUGE_VAL : HUGE_VAL;
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_' && i > 0 && i + 1 < s.size() &&
        std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(s[i + 1])))
      continue;
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' &&
        c != '+' && c != '-')
      return std::nullopt;
    digits += c;
  }
  char *end = nullptr;
  double value = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size())
    return std::nullopt;
  return value;
}

} // namespace

ast::ExprPtr FunctionTyper::expand_star_arguments(const ast::Expr &call) {
  ast::ExprPtr expanded = copy_ast(call);
  std::vector<ast::ExprPtr> args;
  for (ast::ExprPtr &arg : expanded->elts) {
    if (arg->kind != ast::ExprKind::Starred) {
      args.push_back(std::move(arg));
      continue;
    }
    ir::ExprPtr tuple = rvalue(*arg->elts[0]);
    if (!tuple->type.is_tuple() || tuple->type.is_optional())
      error(arg->loc, "simt: '*' arguments must be tuples, not " + tuple->type.str());
    const size_t count = tuple->type.elems.size();
    ir::Stmt assign = make_stmt(ir::StmtKind::Assign, arg->loc);
    assign.slot = new_temp(tuple->type);
    assign.exprs.push_back(std::move(tuple));
    const std::string temp = fn_.slots[assign.slot].name;
    emit(std::move(assign));
    for (size_t i = 0; i < count; ++i) { // $temp[i]
      auto item = std::make_unique<ast::Expr>();
      item->kind = ast::ExprKind::Subscript;
      item->loc = arg->loc;
      auto name = std::make_unique<ast::Expr>();
      name->kind = ast::ExprKind::Name;
      name->loc = arg->loc;
      name->id = temp;
      auto index = std::make_unique<ast::Expr>();
      index->kind = ast::ExprKind::Int;
      index->loc = arg->loc;
      index->int_value = static_cast<int64_t>(i);
      item->elts.push_back(std::move(name));
      item->elts.push_back(std::move(index));
      args.push_back(std::move(item));
    }
  }
  expanded->elts = std::move(args);
  return expanded;
}

Value FunctionTyper::call(const ast::Expr &e) {
  for (size_t i = 1; i < e.elts.size(); ++i)
    if (e.elts[i]->kind == ast::ExprKind::Starred)
      return call(*expand_star_arguments(e)); // f(*t) is f(t[0], t[1], ...)
  const ast::Expr &callee = *e.elts[0];
  if (callee.kind != ast::ExprKind::Attribute)
    return call_value(value(callee), e);
  // x.method(...): x is typed once, for the methods of values called here and for every other
  // attribute, resolved as the callee.
  Value base = value(*callee.elts[0]);
  if (base.kind == Value::Kind::Expr) {
    if (callee.id == "view" && base.expr->type.is_array())
      return expr_value(dtype_view(std::move(base.expr), e));
    if (callee.id == "reshape" && base.expr->type.is_array())
      return expr_value(reshaped(std::move(base.expr), e));
    if (callee.id == "copy" && base.expr->type.is_array()) {
      call_args(e, "copy", {}, 0);
      return expr_value(array_copy(std::move(base.expr), callee.loc));
    }
    if (base.expr->type.is_array())
      if (std::optional<std::string> op = array_reduction_method(callee.id, false)) {
        call_args(e, callee.id, {}, 0);
        return expr_value(array_reduction(*op, std::move(base.expr), callee.loc));
      }
    if (callee.id == "transpose" && base.expr->type.is_array()) {
      call_args(e, "transpose", {}, 0);
      return expr_value(transposed(std::move(base.expr), callee.loc));
    }
    if (callee.id == "conjugate" && base.expr->type.is_scalar()) {
      call_args(e, "conjugate", {}, 0);
      return number_attribute(std::move(base.expr), "conjugate", callee.loc);
    }
    const Type &type = base.expr->type;
    if (callee.id == "bit_count" && type.is_scalar() && is_integer(type.scalar) &&
        !is_signed(type.scalar)) { // numba-cuda's int.bit_count() of unsigned ints: popc
      call_args(e, "bit_count", {}, 0);
      auto popc = make_intrinsic(ir::Intrinsic::Popc, type, callee.loc);
      popc->args.push_back(std::move(base.expr));
      return expr_value(std::move(popc));
    }
  }
  return call_value(attribute_of(std::move(base), callee.id, callee.loc), e);
}

Value FunctionTyper::call_value(Value fn, const ast::Expr &e) {
  switch (fn.kind) {
  case Value::Kind::Path:
    return call_path(fn.path, e);
  case Value::Kind::Function:
    return call_function(fn.function, e);
  case Value::Kind::Extern:
    return call_extern(*fn.extern_function, e);
  case Value::Kind::Overload:
    return call_overload(fn.path, e);
  case Value::Kind::Dtype: {
    auto args = call_args(e, scalar_name(fn.dtype), {"value"}, 1);
    ir::ExprPtr x = rvalue(*args[0]);
    if (!x->type.is_scalar())
      error(args[0]->loc, "cannot convert " + x->type.str() + " to " + scalar_name(fn.dtype));
    return expr_value(explicit_conversion(std::move(x), fn.dtype));
  }
  case Value::Kind::InnerFunction:
    return inline_call(fn, e);
  case Value::Kind::NamedTupleClass: { // Point(1.0, y=2.0): a tuple of its class
    const std::vector<std::string> &fields = fn.nominal->fields;
    auto args = call_args(e, fn.nominal->name, fields, fields.size() - fn.defaults.size());
    std::vector<ir::ExprPtr> elems;
    std::vector<Type> types;
    for (size_t i = 0; i < fields.size(); ++i) {
      ir::ExprPtr elem =
          args[i] ? rvalue(*args[i])
                  : rvalue_of(from_global(fn.defaults[i - (fields.size() - fn.defaults.size())],
                                          fields[i], e.loc),
                              e.loc);
      types.push_back(elem->type);
      elems.push_back(std::move(elem));
    }
    Type type = Type::tuple_of(std::move(types));
    type.nominal = fn.nominal;
    auto tuple = make_expr(ir::ExprKind::TupleMake, std::move(type), e.loc);
    tuple->args = std::move(elems);
    return expr_value(std::move(tuple));
  }
  case Value::Kind::Exception:
    error(e.loc, "simt: exception classes can only be raised");
  case Value::Kind::None:
    error(e.loc, "'NoneType' object is not callable");
  case Value::Kind::ArrayCtypes:
    error(e.loc, "simt: an array's ctypes is not callable");
  case Value::Kind::Expr:
    break;
  }
  error(e.loc, "'" + fn.expr->type.str() + "' object is not callable");
}

Value FunctionTyper::inline_call(const Value &fn, const ast::Expr &e) {
  // Numba inlines a closure where it is called; so does simt, for a nested def or lambda whose
  // body is one return statement. Its other names are the enclosing function's.
  const ast::FunctionDef &def = *fn.inner;
  const ast::Stmt *ret = nullptr;
  for (const auto &s : def.body)
    if (!(s->kind == ast::StmtKind::Expr && s->value->kind == ast::ExprKind::String)) // docstring
      ret = ret ? nullptr : s.get();
  const bool single_return = ret && ret->kind == ast::StmtKind::Return && ret->value;
  const bool star = def.has_varargs || !def.vararg.empty();
  if ((!single_return || star) && !fn.nested_scope && def.name != "<lambda>")
    return call_function(function_value(fn).function, e); // as Numba's escaping closures
  if (!single_return)
    error(def.loc, "simt: a lambda is inlined where it is called, and only one whose body is a "
                   "single return statement is supported");
  if (star)
    error(def.loc, "simt: lambdas with *args or **kwargs are not supported yet (use a def)");
  if (inline_depth_ >= 32)
    error(e.loc, "simt: nested functions calling each other 32 deep (recursion?) are not "
                 "supported");
  std::vector<std::string> names;
  for (const ast::Param &param : def.params)
    names.push_back(param.name);
  const std::string callee = def.name + "()";
  auto args = call_args(e, callee, names, 0);
  std::map<std::string, int> scope = fn.nested_scope ? inline_scope_ : std::map<std::string, int>{};
  for (size_t i = 0; i < names.size(); ++i) {
    const ast::Expr *given = args[i] ? args[i] : def.params[i].default_value.get();
    if (!given)
      error(e.loc, callee + " missing required argument '" + names[i] + "'");
    scope[names[i]] = temp_holding(rvalue(*given));
  }
  std::swap(scope, inline_scope_);
  ++inline_depth_;
  struct Restore {
    FunctionTyper &typer;
    std::map<std::string, int> &saved;
    ~Restore() {
      std::swap(saved, typer.inline_scope_);
      --typer.inline_depth_;
    }
  } restore{*this, scope};
  return value(*ret->value);
}

CallFamily FunctionTyper::builtin_calls() {
  auto outside_loop = [](FunctionTyper &t, const std::string &path, const ast::Expr &e) -> Value {
    t.error(e.loc, "simt: " + path.substr(9) + "() outside a for loop is not supported yet");
  };
  auto of_one = [](FunctionTyper &t, const std::string &path, const ast::Expr &e) {
    return t.call_builtin(path.substr(9), e);
  };
  auto abs = [](FunctionTyper &t, const std::string &, const ast::Expr &e) {
    return t.call_builtin("abs", e);
  };
  return {
      "builtins and modules",
      {{"builtins.range", outside_loop},
       {"builtins.enumerate", outside_loop},
       {"builtins.zip", outside_loop},
       {"builtins.len", of_one},
       {"builtins.int", of_one},
       {"builtins.float", of_one},
       {"builtins.bool", of_one},
       {"builtins.abs", of_one},
       {"numpy.abs", abs},
       {"numpy.absolute", abs},
       {"builtins.breakpoint",
        [](FunctionTyper &t, const std::string &, const ast::Expr &e) { return t.breakpoint(e); }},
       {"builtins.min", [](FunctionTyper &t, const std::string &,
                           const ast::Expr &e) { return expr_value(t.min_max(false, e)); }},
       {"builtins.max", [](FunctionTyper &t, const std::string &,
                           const ast::Expr &e) { return expr_value(t.min_max(true, e)); }},
       {"builtins.round", [](FunctionTyper &t, const std::string &,
                             const ast::Expr &e) { return expr_value(t.round(e)); }},
       {"builtins.divmod", [](FunctionTyper &t, const std::string &,
                              const ast::Expr &e) { return expr_value(t.divmod(e)); }},
       {"builtins.pow",
        [](FunctionTyper &t, const std::string &, const ast::Expr &e) {
          auto args = t.call_args(e, "pow", {"base", "exp"}, 2);
          ir::ExprPtr base = t.rvalue(*args[0]);
          return expr_value(t.binary(Operator::Pow, std::move(base), t.rvalue(*args[1]), e.loc));
        }},
       {"module:", not_callable}}};
}

Value FunctionTyper::breakpoint(const ast::Expr &e) {
  positional_args(e, "breakpoint", 0);
  ir::Stmt s = make_stmt(ir::StmtKind::Eval, e.loc);
  s.exprs.push_back(make_intrinsic(ir::Intrinsic::Breakpoint, Type::none(), e.loc));
  emit(std::move(s));
  return Value{};
}

// divmod(a, b): (a // b, a % b), each operand evaluated once.
ir::ExprPtr FunctionTyper::divmod(const ast::Expr &e) {
  auto args = call_args(e, "divmod", {"a", "b"}, 2);
  ir::ExprPtr a = stable(rvalue(*args[0]));
  ir::ExprPtr b = stable(rvalue(*args[1]));
  ir::ExprPtr quotient = binary(Operator::FloorDiv, clone(*a), clone(*b), e.loc);
  ir::ExprPtr remainder = binary(Operator::Mod, std::move(a), std::move(b), e.loc);
  auto pair =
      make_expr(ir::ExprKind::TupleMake, Type::tuple_of({quotient->type, remainder->type}), e.loc);
  pair->args.push_back(std::move(quotient));
  pair->args.push_back(std::move(remainder));
  return pair;
}

// len(x), int(x), float(x), bool(x) and abs(x).
Value FunctionTyper::call_builtin(const std::string &name, const ast::Expr &e) {
  auto args = call_args(e, name, {"x"}, 1);
  if (name == "float" && args[0]->kind == ast::ExprKind::String) { // float("nan"): a constant
    std::optional<double> value = python_float_of(args[0]->text);
    if (!value)
      error(args[0]->loc, "could not convert string to float: '" + args[0]->text + "'");
    return expr_value(scalar_const(Scalar::F64, 0, *value, e.loc));
  }
  ir::ExprPtr x = rvalue(*args[0]);
  if (name == "len") {
    if (x->type.is_tuple())
      return expr_value(scalar_const(Scalar::I64, x->type.elems.size(), 0, e.loc));
    if (!x->type.is_array())
      error(e.loc, "object of type " + x->type.str() + " has no len()");
    auto shape = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), e.loc);
    shape->index = 0;
    shape->args.push_back(std::move(x));
    return expr_value(std::move(shape));
  }
  if (!x->type.is_scalar())
    error(args[0]->loc, "function " + name + " does not accept " + x->type.str());
  if (name == "int")
    return expr_value(explicit_conversion(std::move(x), Scalar::I64));
  if (name == "float")
    return expr_value(explicit_conversion(std::move(x), Scalar::F64));
  if (name == "bool")
    return expr_value(explicit_conversion(std::move(x), Scalar::Bool));
  if (x->type.has_no_operators())
    error(args[0]->loc, "function " + name + " does not accept " + x->type.str());
  // abs keeps the operand's type (Numba's Abs cases); bools count as int64
  Scalar s = x->type.scalar;
  if (is_complex(s))
    return expr_value(complex_abs(std::move(x), e.loc));
  if (s == Scalar::Bool || s == Scalar::F16 || s == Scalar::BF16) { // Abs's float32 case
    s = s == Scalar::Bool ? Scalar::I64 : Scalar::F32;
    x = cast(std::move(x), Type::scalar_of(s));
  }
  if (is_integer(s) && !is_signed(s))
    return expr_value(std::move(x));
  auto a = make_intrinsic(is_float(s) ? ir::Intrinsic::Fabs : ir::Intrinsic::Iabs, x->type, e.loc);
  a->args.push_back(std::move(x));
  return expr_value(std::move(a));
}

ir::ExprPtr FunctionTyper::min_max(bool is_max, const ast::Expr &e) {
  const char *fn = is_max ? "max" : "min";
  if (!e.keywords.empty())
    error(e.loc, std::string("simt: ") + fn + "() keyword arguments are not supported yet");
  if (e.elts.size() < 2)
    error(e.loc, std::string(fn) + " expected at least 1 argument, got 0");
  std::vector<ir::ExprPtr> args;
  std::vector<ir::Loc> locs;
  if (e.elts.size() == 2) { // max(t): of a tuple's elements, as Numba's
    ir::ExprPtr tuple = rvalue(*e.elts[1]);
    if (!tuple->type.is_tuple())
      error(e.elts[1]->loc, "simt: " + std::string(fn) + "() of one " + tuple->type.str() +
                                " is not supported (a tuple's elements, or two or more values)");
    if (tuple->type.elems.empty())
      error(e.elts[1]->loc, std::string(fn) + "() arg is an empty sequence");
    tuple = stable(std::move(tuple));
    for (size_t k = 0; k < tuple->type.elems.size(); ++k) {
      args.push_back(tuple_item(clone(*tuple), static_cast<int>(k), e.elts[1]->loc));
      locs.push_back(e.elts[1]->loc);
    }
  } else {
    for (size_t i = 1; i < e.elts.size(); ++i) {
      args.push_back(rvalue(*e.elts[i]));
      locs.push_back(e.elts[i]->loc);
    }
  }
  Type type;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->type.is_scalar())
      error(locs[i],
            std::string("simt: ") + fn + "() of " + args[i]->type.str() + " is not supported yet");
    if (is_complex(args[i]->type.scalar))
      error(locs[i], std::string("simt: ") + fn + "() of complex numbers is not supported");
    if (i == 0)
      type = args[i]->type;
    else
      unify(type, args[i]->type, type); // Numba unifies the arguments' types
  }
  // Numba's CUDA target computes max(x, y) of two floats as libdevice's fmax (a NaN operand
  // gives the other); every other form is its generic one: v if v > acc else acc, argument by
  // argument, which keeps a NaN accumulator and passes over a NaN argument (Python's order).
  const bool two_floats =
      args.size() == 2 && is_float(args[0]->type.scalar) && is_float(args[1]->type.scalar);
  // bfloat16s are compared as the float32s they are exactly (the result is one of them)
  const Type compared = type.scalar == Scalar::BF16 ? Type::scalar_of(Scalar::F32) : type;
  ir::ExprPtr result = cast(cast(std::move(args[0]), type), compared);
  for (size_t i = 1; i < args.size(); ++i) {
    ir::ExprPtr next = cast(cast(std::move(args[i]), type), compared);
    ir::ExprPtr combined;
    if (is_float(compared.scalar) && !two_floats) {
      result = stable(std::move(result));
      next = stable(std::move(next));
      ir::ExprPtr replaces =
          make_compare(is_max ? ir::Op::Gt : ir::Op::Lt, clone(*next), clone(*result), e.loc);
      result = make_select(std::move(replaces), std::move(next), std::move(result));
      continue;
    }
    if (type.scalar == Scalar::Bool) {
      combined = make_expr(ir::ExprKind::Binary, type, e.loc);
      combined->op = is_max ? ir::Op::BitOr : ir::Op::BitAnd;
    } else {
      ir::Intrinsic id = is_float(compared.scalar)
                             ? (is_max ? ir::Intrinsic::Fmax : ir::Intrinsic::Fmin)
                             : (is_max ? ir::Intrinsic::Imax : ir::Intrinsic::Imin);
      combined = make_intrinsic(id, compared, e.loc);
    }
    combined->args.push_back(std::move(result));
    combined->args.push_back(std::move(next));
    result = std::move(combined);
  }
  return cast(std::move(result), type);
}

ir::ExprPtr FunctionTyper::round(const ast::Expr &e) {
  auto args = call_args(e, "round", {"number", "ndigits"}, 1);
  ir::ExprPtr x = rvalue(*args[0]);
  if (!x->type.is_scalar())
    error(args[0]->loc, "function round does not accept " + x->type.str());
  // float16 and bfloat16 take Round's float32 cases
  Scalar from = x->type.scalar;
  Type real = Type::scalar_of(from == Scalar::F16 || from == Scalar::BF16 ? Scalar::F32
                              : is_float(from)                            ? from
                                                                          : Scalar::F64);
  auto round_even = [&](ir::ExprPtr v) {
    auto r = make_intrinsic(ir::Intrinsic::RoundEven, v->type, e.loc);
    r->args.push_back(std::move(v));
    return r;
  };
  x = cast(std::move(x), real);
  if (!args[1])
    return cast(round_even(std::move(x)), Type::scalar_of(Scalar::I64));
  ir::ExprPtr digits = rvalue(*args[1]);
  if (!digits->type.is_scalar() || !is_integer(digits->type.scalar))
    error(args[1]->loc, "round() digits must be an integer, not " + digits->type.str());
  // Numba's round_to_impl, in double precision for both float types (its powers of ten are)
  std::vector<ir::ExprPtr> operands;
  operands.push_back(std::move(x));
  operands.push_back(cast(std::move(digits), Type::scalar_of(Scalar::I64)));
  return call_prelude("round_ndigits", std::move(operands), real.scalar, e.loc);
}

CallFamily FunctionTyper::math_calls() {
  return {"math and numpy functions",
          {{"math.", [](FunctionTyper &t, const std::string &name,
                        const ast::Expr &e) { return t.call_math("math", name, e); }},
           {"numpy.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_math("numpy", name, e);
            }}}};
}

Value FunctionTyper::call_math(const std::string &module, const std::string &name,
                               const ast::Expr &e) {
  const MathFunction *fn = find_math_function(module, name);
  std::string full = module + "." + name;
  if (!fn)
    error(e.loc, "simt: calling '" + full + "' is not supported yet");
  auto [args, types] = type_scalar_call(e, {.name = full}, fn->cases.front().params.size());
  // numba.cuda.bf16 overloads math.sqrt, math.exp, ... for a bfloat16 with its own functions
  if (module == "math" && types == std::vector<Scalar>{Scalar::BF16})
    if (std::optional<ir::Bf16Fn> bf16 = ir::find_bf16_math(name))
      return expr_value(bf16_call(*bf16, std::move(args), e.loc));
  auto chosen = select_overload(types, fn->cases);
  if (!chosen)
    error(e.loc, "function " + full + " does not accept " +
                     Type::scalar_of(*std::find_if(types.begin(), types.end(), is_complex)).str());
  Signature sig = *chosen;
  Type result = Type::scalar_of(sig.result);
  if (!fn->intrinsic) { // degrees, radians
    auto m = make_expr(ir::ExprKind::Binary, result, e.loc);
    m->op = ir::Op::Mul;
    m->args.push_back(cast(cast(std::move(args[0]), Type::scalar_of(sig.params[0])), result));
    m->args.push_back(scalar_const(sig.result, 0, fn->factor, e.loc));
    return expr_value(std::move(m));
  }
  const ir::Intrinsic id = *fn->intrinsic;
  if (id == ir::Intrinsic::Frexp || id == ir::Intrinsic::Modf) {
    Type second = id == ir::Intrinsic::Frexp ? Type::scalar_of(Scalar::I32) : result;
    auto call = make_intrinsic(id, Type::tuple_of({result, second}), e.loc);
    call->args.push_back(cast(std::move(args[0]), result));
    return expr_value(std::move(call));
  }
  auto call = make_intrinsic(id, result, e.loc);
  for (size_t i = 0; i < args.size(); ++i) {
    Scalar param = sig.params[i];
    // intrinsics take floats: integer cases convert to the float of the result (or float64 for
    // the predicates); ldexp keeps its int32 exponent
    Scalar operand = param;
    if (!is_float(param) && !(id == ir::Intrinsic::Ldexp && i == 1))
      operand = sig.result == Scalar::Bool ? Scalar::F64 : sig.result;
    call->args.push_back(
        cast(cast(std::move(args[i]), Type::scalar_of(param)), Type::scalar_of(operand)));
  }
  return expr_value(std::move(call));
}

CallFamily FunctionTyper::cuda_calls() {
  auto grid = [](FunctionTyper &t, const std::string &path, const ast::Expr &e) {
    return expr_value(t.grid(path == "cuda.gridsize", e));
  };
  auto array = [](FunctionTyper &t, const std::string &path, const ast::Expr &e) {
    return t.array_decl(path.substr(5, path.find('.', 5) - 5), e); // "shared", "local"
  };
  return {"cuda",
          {{"cuda.grid", grid},
           {"cuda.gridsize", grid},
           {"cuda.shared.array", array},
           {"cuda.local.array", array},
           {"cuda.syncthreads", [](FunctionTyper &t, const std::string &,
                                   const ast::Expr &e) { return t.syncthreads(e); }},
           {"cuda.const.array_like", [](FunctionTyper &t, const std::string &, const ast::Expr &e) {
              auto args = t.call_args(e, "cuda.const.array_like", {"ndarray"}, 1);
              ir::ExprPtr a = t.rvalue(*args[0]);
              if (a->kind != ir::ExprKind::ConstArray)
                t.error(args[0]->loc, "cuda.const.array_like expects a global NumPy array");
              return expr_value(std::move(a));
            }}}};
}

Value FunctionTyper::syncthreads(const ast::Expr &e) {
  call_args(e, "cuda.syncthreads", {}, 0);
  ir::Stmt s;
  s.kind = ir::StmtKind::SyncThreads;
  s.loc = e.loc;
  emit(std::move(s));
  return Value{};
}

ir::ExprPtr FunctionTyper::grid(bool size, const ast::Expr &e) {
  const std::string fn = size ? "cuda.gridsize" : "cuda.grid";
  auto args = call_args(e, fn, {"ndim"}, 1);
  ir::ExprPtr ndim = rvalue(*args[0]);
  if (ndim->kind != ir::ExprKind::Const || !is_integer(ndim->type.scalar) || ndim->int_value < 1 ||
      ndim->int_value > 3)
    error(args[0]->loc, fn + "() argument must be the constant 1, 2 or 3");
  int n = static_cast<int>(ndim->int_value);
  std::vector<ir::ExprPtr> axes;
  for (int axis = 0; axis < n; ++axis) {
    if (size) // blockDim * gridDim
      axes.push_back(make_index_arithmetic(ir::Op::Mul, make_special(ir::Op::BlockDim, axis, e.loc),
                                           make_special(ir::Op::GridDim, axis, e.loc), e.loc));
    else // threadIdx + blockIdx * blockDim
      axes.push_back(make_index_arithmetic(
          ir::Op::Add, make_special(ir::Op::ThreadIdx, axis, e.loc),
          make_index_arithmetic(ir::Op::Mul, make_special(ir::Op::BlockIdx, axis, e.loc),
                                make_special(ir::Op::BlockDim, axis, e.loc), e.loc),
          e.loc));
  }
  if (n == 1)
    return std::move(axes[0]);
  auto t = make_expr(ir::ExprKind::TupleMake,
                     Type::tuple_of(std::vector<Type>(n, Type::scalar_of(Scalar::I32))), e.loc);
  t->args = std::move(axes);
  return t;
}

Scalar FunctionTyper::dtype_of(const ast::Expr &e) {
  ir::ArrayElements elements = elements_of(e);
  if (elements.record)
    error(e.loc, "simt: a structured dtype is not supported here");
  return elements.dtype;
}

ir::ArrayElements FunctionTyper::elements_of(const ast::Expr &e) {
  ir::ArrayElements elements;
  if (e.kind == ast::ExprKind::String) {
    if (!parse_scalar_name(e.text, elements.dtype))
      error(e.loc, "unknown dtype '" + e.text + "'");
    return elements;
  }
  Value v = value(e);
  if (v.kind != Value::Kind::Dtype)
    error(e.loc, "expected a dtype such as numpy.float32");
  elements.dtype = v.dtype;
  elements.record = v.record;
  return elements;
}

std::optional<int64_t> constant_int(const ir::Expr &x) {
  if (!x.type.is_scalar() || !is_integer(x.type.scalar))
    return std::nullopt;
  switch (x.kind) {
  case ir::ExprKind::Const:
    return x.int_value;
  case ir::ExprKind::Cast:
    return is_integer(x.args[0]->type.scalar) ? constant_int(*x.args[0]) : std::nullopt;
  case ir::ExprKind::Unary: {
    const std::optional<int64_t> a = constant_int(*x.args[0]);
    if (!a || (x.op == ir::Op::Neg && *a == INT64_MIN))
      return std::nullopt;
    return x.op == ir::Op::Neg ? -*a : x.op == ir::Op::Invert ? ~*a : *a;
  }
  case ir::ExprKind::Binary: {
    const std::optional<int64_t> a = constant_int(*x.args[0]), b = constant_int(*x.args[1]);
    if (!a || !b)
      return std::nullopt;
    const std::optional<__int128> r = python_int_binary(x.op, *a, *b);
    if (!r || *r < INT64_MIN || *r > INT64_MAX)
      return std::nullopt;
    return int64_t(*r);
  }
  default:
    return std::nullopt;
  }
}

std::optional<bool> constant_truth(const ir::Expr &x) {
  switch (x.kind) {
  case ir::ExprKind::Const:
    return x.type.is_scalar() && (is_integer(x.type.scalar) || x.type.scalar == Scalar::Bool)
               ? std::optional<bool>(x.int_value != 0)
               : std::nullopt;
  case ir::ExprKind::Cast:
    return x.type == Type::scalar_of(Scalar::Bool) ? constant_truth(*x.args[0]) : std::nullopt;
  case ir::ExprKind::Unary: {
    if (x.op != ir::Op::Not)
      return std::nullopt;
    const std::optional<bool> a = constant_truth(*x.args[0]);
    return a ? std::optional<bool>(!*a) : std::nullopt;
  }
  case ir::ExprKind::Compare: {
    const std::optional<int64_t> a = constant_int(*x.args[0]), b = constant_int(*x.args[1]);
    if (!a || !b || !is_signed(x.args[0]->type.scalar))
      return std::nullopt;
    switch (x.op) {
    case ir::Op::Eq:
      return *a == *b;
    case ir::Op::Ne:
      return *a != *b;
    case ir::Op::Lt:
      return *a < *b;
    case ir::Op::Le:
      return *a <= *b;
    case ir::Op::Gt:
      return *a > *b;
    case ir::Op::Ge:
      return *a >= *b;
    default:
      return std::nullopt;
    }
  }
  case ir::ExprKind::And:
  case ir::ExprKind::Or: {
    const bool is_and = x.kind == ir::ExprKind::And;
    for (const ir::ExprPtr &arg : x.args) {
      const std::optional<bool> a = constant_truth(*arg);
      if (!a)
        return std::nullopt;
      if (*a != is_and) // a false operand of `and`, a true one of `or`, decides
        return *a;
    }
    return is_and;
  }
  default:
    return std::nullopt;
  }
}

std::vector<int64_t> FunctionTyper::constant_shape(const ast::Expr &e) {
  ir::ExprPtr v = rvalue(*constant_definition(e));
  auto extent = [&](const ir::Expr &x) {
    const std::optional<int64_t> extent = constant_int(x);
    if (extent)
      return *extent;
    if (const std::optional<std::string> value = overflowing_constant(x)) // 2 ** 70: constant
      error(e.loc, "array extent " + (value->empty() ? "" : *value + " ") +
                       "is too large (extents are int64)");
    error(e.loc, "array shapes must be constant integers or tuples of them");
  };
  std::vector<int64_t> shape;
  if (v->kind == ir::ExprKind::TupleMake && !v->args.empty()) {
    for (const auto &x : v->args)
      shape.push_back(extent(*x));
  } else {
    shape.push_back(extent(*v));
  }
  for (int64_t d : shape)
    if (d < 0)
      error(e.loc, "array dimensions must not be negative");
  return shape;
}

// numba-cuda's alignment= of a shared or local array: 0 when not given (or None), else a power of
// two that is a multiple of a pointer's size, with numba-cuda's messages (python/simt/errors.py
// raises them as its ValueError and TypingError).
int64_t FunctionTyper::array_alignment(const ast::Expr *e) {
  if (!e)
    return 0;
  Value value = this->value(*constant_definition(*e));
  if (value.kind == Value::Kind::None ||
      (value.kind == Value::Kind::Expr && value.expr->kind != ir::ExprKind::String &&
       value.expr->type.is_none()))
    return 0;
  const ir::Expr *v = value.kind == Value::Kind::Expr ? value.expr.get() : nullptr;
  const std::optional<int64_t> alignment =
      v && v->kind != ir::ExprKind::String && v->type.is_scalar() && v->type.scalar != Scalar::Bool
          ? constant_int(*v)
          : std::nullopt;
  if (!alignment)
    error(e->loc, "RequireLiteralValue: alignment must be a constant integer");
  if (*alignment <= 0)
    error(e->loc, "Alignment must be positive");
  if ((*alignment & (*alignment - 1)) != 0)
    error(e->loc, "Alignment must be a power of 2");
  if (*alignment % 8 != 0)
    error(e->loc, "Alignment must be a multiple of 8");
  if (*alignment > ir::max_array_alignment)
    error(e->loc, "simt: alignment " + std::to_string(*alignment) + " is more than the " +
                      std::to_string(ir::max_array_alignment) + " bytes simt supports");
  return *alignment;
}

Value FunctionTyper::array_decl(const std::string &kind, const ast::Expr &e) {
  auto args = call_args(e, "cuda." + kind + ".array", {"shape", "dtype", "alignment"}, 2);
  std::vector<int64_t> shape = constant_shape(*args[0]);
  const int64_t alignment = array_alignment(args[2]);
  const ir::ArrayElements dtype = elements_of(*args[1]);
  // Elements and bytes as int64, as the lowering and the launch compute them: checked here once.
  int64_t count = 1, bytes = 0;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(count, d, &count))
      error(args[0]->loc,
            array_call_text(kind, shape, dtype) + " has more elements than an int64 can count");
  if (__builtin_mul_overflow(count, dtype.itemsize(), &bytes))
    error(args[0]->loc,
          array_call_text(kind, shape, dtype) + " takes more bytes than an int64 can count");
  int ndim = static_cast<int>(shape.size());
  if (kind == "local") {
    if (count == 0)
      error(args[0]->loc, "local arrays need a non-zero size");
    if (bytes > max_local_array_bytes)
      error(args[0]->loc, array_call_text(kind, shape, dtype) + " takes " + std::to_string(bytes) +
                              " bytes per thread, more than the " +
                              std::to_string(max_local_array_bytes) +
                              " bytes (512 KiB) of local memory a thread may have");
    fn_.local_arrays.push_back({dtype, shape, "", alignment});
    auto a = make_expr(ir::ExprKind::LocalArray, dtype.array_type(ndim, MemSpace::Local), e.loc);
    a->index = static_cast<int>(fn_.local_arrays.size()) - 1;
    return expr_value(std::move(a));
  }
  ir::SharedArrayDecl decl;
  decl.elements = dtype;
  decl.dynamic = count == 0;
  decl.alignment = int32_t(alignment);
  if (decl.dynamic && ndim != 1)
    error(args[0]->loc, "dynamic shared arrays (size 0) must be 1-dimensional");
  if (!decl.dynamic)
    decl.shape = shape;
  std::string key =
      unique_name_ + "@" + std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col);
  auto a = make_expr(ir::ExprKind::SharedArray, dtype.array_type(ndim, MemSpace::Shared), e.loc);
  a->index = module_.shared_array(key, decl);
  return expr_value(std::move(a));
}

CallFamily FunctionTyper::atomic_calls() {
  return {"cuda atomics",
          {{"cuda.atomic.", [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_atomic(name, e);
            }}}};
}

Value FunctionTyper::call_atomic(const std::string &name, const ast::Expr &e) {
  const AtomicFunction *fn = find_atomic_function(name);
  std::string full = "cuda.atomic." + name;
  if (!fn)
    error(e.loc, "simt: calling '" + full + "' is not supported yet");
  // Numba's compare_and_swap swaps ary[0]; numba-cuda's cas takes an index as the others do.
  const bool swaps_first = name == "compare_and_swap";
  const std::vector<std::string> params =
      swaps_first                   ? std::vector<std::string>{"ary", "old", "val"}
      : fn->op == ir::Op::AtomicCas ? std::vector<std::string>{"ary", "idx", "old", "val"}
                                    : std::vector<std::string>{"ary", "idx", "val"};
  auto args = call_args(e, full, params, params.size());
  ir::ExprPtr array = rvalue(*args[0]);
  if (!array->type.is_array())
    error(args[0]->loc, full + " expects an array, got " + array->type.str());
  require_writable(*array, args[0]->loc);
  if (array->type.is_record_array())
    error(args[0]->loc, full + " does not support record arrays");
  Scalar dtype = array->type.scalar;
  if (std::find(fn->dtypes.begin(), fn->dtypes.end(), dtype) == fn->dtypes.end())
    error(e.loc, full + " does not support " + scalar_name(dtype) + " arrays");
  std::vector<ir::ExprPtr> indices;
  if (swaps_first) {
    if (array->type.ndim != 1)
      error(args[0]->loc, full + " expects a 1-dimensional array");
    indices.push_back(scalar_const(Scalar::I64, 0, 0, e.loc)); // Numba swaps ary[0]
  } else {
    indices = array_indices(*array, *args[1], args[1]->loc);
  }
  auto atomic = make_expr(ir::ExprKind::Atomic, Type::scalar_of(dtype), e.loc);
  atomic->op = fn->op;
  atomic->args.push_back(std::move(array));
  for (auto &i : indices)
    atomic->args.push_back(std::move(i));
  for (size_t i = swaps_first ? 1 : 2; i < params.size(); ++i) {
    ir::ExprPtr v = rvalue(*args[i]);
    if (!v->type.is_scalar())
      error(args[i]->loc, full + " expects a number, got " + v->type.str());
    atomic->args.push_back(cast(std::move(v), Type::scalar_of(dtype)));
  }
  return expr_value(std::move(atomic));
}

Value FunctionTyper::call_function(const std::shared_ptr<FunctionSource> &fn, const ast::Expr &e) {
  StaticArgs statics;
  std::vector<ir::ExprPtr> args = device_call_args(*fn, e, statics);
  std::erase(args, nullptr); // the compile-time ones
  const FunctionSignature *declared = nullptr;
  if (!fn->signatures.empty()) {
    if (!statics.empty())
      error(e.loc, "simt: compile-time arguments to " + fn->name +
                       ", a device function with declared signatures, are not supported");
    declared = &declared_signature(*fn, args, e);
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i]->type.is_scalar())
        args[i] = cast(std::move(args[i]), declared->params[i]);
  }
  std::vector<Type> types;
  for (const ir::ExprPtr &a : args)
    types.push_back(a->type);
  int index = module_.specialize(fn, types, statics);
  // A recursive call has the type of the returns typed so far (Numba's: a base case's).
  std::optional<Type> returns = module_.return_type(index);
  if (!returns)
    defer("cannot type infer runaway recursion: no return of '" + fn->name +
              "' has a type that does not depend on this call",
          e.loc);
  auto call = make_expr(ir::ExprKind::Call, *returns, e.loc);
  call->index = index;
  call->args = std::move(args);
  if (declared && !declared->return_inferred && *returns != declared->return_type) {
    if (!returns->is_scalar() || !declared->return_type.is_scalar())
      error(e.loc, "simt: " + fn->name + " returns " + returns->str() + ", not " +
                       declared->return_type.str() + " as its signature declares");
    return expr_value(cast(std::move(call), declared->return_type));
  }
  return expr_value(std::move(call));
}

// Numba's choice among a device function's declared signatures for a call's arguments: a
// non-scalar argument needs its parameter's type (an 'A' array parameter takes any layout of
// its dtype and dimensions); among those, scalars convert by Numba's casting rules, the best
// conversion picked as for any overloaded operation (select_overload).
const FunctionSignature &FunctionTyper::declared_signature(const FunctionSource &fn,
                                                           const std::vector<ir::ExprPtr> &args,
                                                           const ast::Expr &e) {
  auto accepts = [](const Type &param, const Type &arg) {
    if (param == arg)
      return true;
    if (!param.is_array() || !arg.is_array())
      return false;
    // an array of the dtype and dimensions, in any memory (shared, local, const), and of any
    // layout for an 'A' parameter
    Type relaxed = arg;
    relaxed.space = param.space;
    relaxed.readonly = param.readonly;
    if (param.layout == 'A')
      relaxed.layout = 'A';
    return relaxed == param;
  };
  std::vector<Scalar> scalars;
  for (const ir::ExprPtr &a : args)
    if (a->type.is_scalar())
      scalars.push_back(a->type.scalar);
  std::vector<Signature> cases; // the scalar parameters of the signatures that fit otherwise
  std::vector<size_t> fitting;
  for (size_t s = 0; s < fn.signatures.size(); ++s) {
    const FunctionSignature &sig = fn.signatures[s];
    if (sig.params.size() != args.size())
      continue;
    Signature scalar_case{Scalar::I64, {}};
    bool fits = true;
    for (size_t i = 0; i < args.size() && fits; ++i) {
      if (args[i]->type.is_scalar()) {
        fits = sig.params[i].is_scalar();
        scalar_case.params.push_back(sig.params[i].scalar);
      } else {
        fits = accepts(sig.params[i], args[i]->type);
      }
    }
    if (fits) {
      cases.push_back(std::move(scalar_case));
      fitting.push_back(s);
    }
  }
  if (std::optional<size_t> best = select_overload_index(scalars, cases))
    return fn.signatures[fitting[*best]];
  std::string given, declared;
  for (const ir::ExprPtr &a : args)
    given += (given.empty() ? "" : ", ") + a->type.str();
  for (const FunctionSignature &sig : fn.signatures) {
    std::string params;
    for (const Type &p : sig.params)
      params += (params.empty() ? "" : ", ") + p.str();
    declared +=
        "\n * (" + params + ")" + (sig.return_inferred ? "" : " -> " + sig.return_type.str());
  }
  // Numba's wording (python/simt/errors.py raises it as its TypingError too)
  error(e.loc, "Invalid use of type(CUDADispatcher(" + fn.name + ")) with parameters (" + given +
                   "): no declared signature accepts them. Known signatures:" + declared);
}

// numba.extending.overload: the implementation the overload function gives for the arguments'
// types (Numba's types of them), compiled as a device function.
Value FunctionTyper::call_overload(const std::string &name, const ast::Expr &e) {
  if (!e.keywords.empty())
    error(e.keywords[0].loc,
          "simt: keyword arguments to @overload functions are not supported yet (" + name + ")");
  std::vector<std::string> types;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    Value v = value(*e.elts[i]);
    const bool function = v.kind == Value::Kind::Function ||
                          (v.kind == Value::Kind::InnerFunction && !v.nested_scope);
    types.push_back(function ? kFunctionArgument
                             : rvalue_of(std::move(v), e.elts[i]->loc)->type.str());
  }
  GlobalValue impl;
  if (source_.resolver)
    impl = source_.resolver->overload(name, types);
  if (impl.kind != GlobalValue::Kind::Function) {
    std::string listed;
    for (const std::string &t : types)
      listed.append(listed.empty() ? "" : ", ").append(t);
    error(e.loc, "no @overload implementation of " + name + " for CUDA accepts (" + listed + ")");
  }
  return call_function(impl.function, e);
}

// A declared external device function: its parameters' types convert as an explicit signature's
// do (Numba's casting rules: any real to any real), and it returns its declared type.
Value FunctionTyper::call_extern(const ExternFunction &fn, const ast::Expr &e) {
  if (!e.keywords.empty())
    error(e.keywords[0].loc, fn.name + "() takes no keyword arguments");
  if (e.elts.size() - 1 != fn.params.size())
    error(e.loc, fn.name + "() takes " + plural(fn.params.size(), "argument") + ", " +
                     std::to_string(e.elts.size() - 1) + " given");
  std::vector<ir::ExprPtr> args;
  for (size_t i = 1; i < e.elts.size(); ++i)
    args.push_back(rvalue(*e.elts[i]));
  for (size_t i = 0; i < args.size(); ++i) {
    const Type &param = fn.params[i];
    if (!param.is_scalar() || is_complex(param.scalar))
      error(e.loc, "simt: external device functions with a parameter of type " + param.str() +
                       " are not supported yet (" + fn.name + ")");
    if (!args[i]->type.is_scalar() ||
        conversion(args[i]->type.scalar, param.scalar) == Conversion::Never)
      error(e.elts[i + 1]->loc, "cannot convert " + args[i]->type.str() + " to " + param.str() +
                                    " for parameter " + std::to_string(i + 1) + " of " + fn.name);
    args[i] = cast(std::move(args[i]), param);
  }
  if (!fn.return_type.is_none() &&
      (!fn.return_type.is_scalar() || is_complex(fn.return_type.scalar)))
    error(e.loc, "simt: external device functions returning " + fn.return_type.str() +
                     " are not supported yet (" + fn.name + ")");
  auto call = make_expr(ir::ExprKind::ExternCall, fn.return_type, e.loc);
  call->index = module_.extern_function(fn);
  if (call->index < 0)
    error(e.loc, "simt: the external device function " + fn.name +
                     " is declared with two different signatures");
  call->args = std::move(args);
  return expr_value(std::move(call));
}

} // namespace simt

namespace simt {

// Binds a call's positional and keyword arguments to the device function's parameters as Python
// does; an omitted parameter gets its default, typed as Numba types an Omitted argument.
std::vector<ir::ExprPtr> FunctionTyper::device_call_args(const FunctionSource &fn,
                                                         const ast::Expr &e, StaticArgs &statics) {
  ast::FunctionDef def = parse_function(fn.source, fn.file, fn.first_line);
  const std::vector<ast::Param> &params = def.params;
  std::string name = def.name + "()";
  size_t positional = e.elts.size() - 1;
  if (positional > params.size() && def.vararg.empty())
    error(e.loc, name + " takes " + plural(params.size(), "positional argument") + " but " +
                     std::to_string(positional) + (positional == 1 ? " was" : " were") + " given");
  std::vector<ir::ExprPtr> args(params.size());
  if (!def.vararg.empty()) { // *args: the positional arguments past the others, as a tuple
    std::vector<ir::ExprPtr> rest;
    std::vector<Type> types;
    for (size_t i = params.size(); i < positional; ++i) {
      rest.push_back(rvalue(*e.elts[i + 1]));
      types.push_back(rest.back()->type);
    }
    auto tuple = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(std::move(types)), e.loc);
    tuple->args = std::move(rest);
    args.push_back(std::move(tuple));
  }
  // A compile-time value binds its parameter (StaticArg); anything else is a runtime argument.
  auto argument = [&](size_t i, const ast::Expr &given) {
    Value v = value(given);
    if (v.kind == Value::Kind::InnerFunction && !v.nested_scope) // a closure passed on
      v = function_value(v);
    if (std::optional<StaticArg> fixed = static_argument(v, def, params[i].name)) {
      statics[params[i].name] = std::move(*fixed);
      return;
    }
    args[i] = rvalue_of(std::move(v), given.loc);
  };
  for (size_t i = 0; i < positional && i < params.size(); ++i)
    argument(i, *e.elts[i + 1]);
  for (const ast::Keyword &k : e.keywords) {
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const ast::Param &p) { return p.name == k.name; });
    if (it == params.end())
      error(k.loc, name + " got an unexpected keyword argument '" + k.name + "'");
    size_t i = it - params.begin();
    if (args[i] || statics.count(k.name))
      error(k.loc, name + " got multiple values for argument '" + k.name + "'");
    argument(i, *k.value);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (args[i] || statics.count(params[i].name))
      continue;
    if (!params[i].default_value)
      error(e.loc, name + " missing required argument '" + params[i].name + "'");
    const ast::Expr &default_value = *params[i].default_value;
    if (default_value.kind == ast::ExprKind::None ||
        (default_value.kind == ast::ExprKind::String && !default_value.bytes)) {
      // Numba's omitted None (`if bias is None:` takes its branch) or literal string
      Value literal = value(default_value);
      if (std::optional<StaticArg> fixed = static_argument(literal, def, params[i].name)) {
        statics[params[i].name] = std::move(*fixed);
        continue;
      }
    }
    args[i] = default_argument(fn, params[i], e.loc);
  }
  return args;
}

ir::ExprPtr FunctionTyper::default_argument(const FunctionSource &fn, const ast::Param &param,
                                            ir::Loc loc) {
  const ast::Expr &d = *param.default_value;
  auto unsupported = [&]() {
    error(loc, "simt: the default value of parameter '" + param.name +
                   "' is not supported yet (use a number, a tuple of numbers or a global "
                   "number)");
  };
  // literals mean the same here as in the callee's module; names are the callee's globals
  std::function<bool(const ast::Expr &)> is_literal = [&](const ast::Expr &x) {
    switch (x.kind) {
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Bool:
      return true;
    case ast::ExprKind::UnaryOp:
    case ast::ExprKind::Tuple:
      return std::all_of(x.elts.begin(), x.elts.end(),
                         [&](const ast::ExprPtr &p) { return is_literal(*p); });
    default:
      return false;
    }
  };
  if (is_literal(d))
    return rvalue(d);
  if (d.kind != ast::ExprKind::Name || !fn.resolver)
    unsupported();
  GlobalValue g = fn.resolver->resolve(d.id);
  using K = GlobalValue::Kind;
  if (g.kind != K::Int && g.kind != K::Float && g.kind != K::Bool && g.kind != K::Tuple)
    unsupported();
  Value v = from_global(g, d.id, loc);
  if (v.kind != Value::Kind::Expr)
    unsupported();
  return std::move(v.expr);
}

} // namespace simt
