// Expressions -> ir::Expr, with Numba's typing of names, operators and attributes.
#include "frontend/builtins.h"
#include "frontend/complex_prelude.h"
#include "frontend/ir_build.h"
#include "frontend/python_int.h"
#include "frontend/typer.h"
#include "frontend/ufuncs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

namespace simt {

namespace {

// The path prefix of a module other than the ones the frontend knows (a user's module):
// "module:mymod" (by the name the kernel uses, "mymod.sub" for a submodule).
const std::string kOtherModule = "module:";
// The path of numba.cuda.libdevice (a function of it is "cuda.libdevice.<name>").
const std::string kLibdeviceModule = "cuda.libdevice";
// The path of numba.cuda.bf16 (a function of it is "cuda.bf16.<name>").
const std::string kBf16Module = "cuda.bf16";
// The path of numba-cuda's FP8 conversion intrinsics (simt.fp8's stubs are "fp8.<name>"; the
// module itself resolves as a user's module does, through its attributes).
const std::string kFp8Module = "cuda.fp8";

Value path_value(std::string path) {
  Value v;
  v.kind = Value::Kind::Path;
  v.path = std::move(path);
  return v;
}

// Paths a kernel may name (calls are checked again by the call typer).
bool is_known_path(const std::string &path) {
  static const std::set<std::string> cuda = {
      "cuda.grid",        "cuda.gridsize",     "cuda.syncthreads",
      "cuda.shared",      "cuda.shared.array", "cuda.local",
      "cuda.local.array", "cuda.const",        "cuda.const.array_like",
      "cuda.atomic",      "cuda.threadIdx",    "cuda.blockIdx",
      "cuda.blockDim",    "cuda.gridDim"};
  if (cuda.count(path))
    return true;
  if (path.rfind("cuda.atomic.", 0) == 0)
    return find_atomic_function(path.substr(12)) != nullptr;
  if (path == kLibdeviceModule)
    return true;
  if (path.rfind(kLibdeviceModule + ".", 0) == 0)
    return ir::find_libdevice(path.substr(kLibdeviceModule.size() + 1)).has_value();
  if (path == kBf16Module)
    return true;
  if (path.rfind(kBf16Module + ".", 0) == 0)
    return ir::find_bf16(path.substr(kBf16Module.size() + 1)).has_value();
  if (path == kFp8Module)
    return true;
  if (path.rfind(kFp8Module + ".", 0) == 0)
    return ir::find_fp8(path.substr(kFp8Module.size() + 1)) ||
           ir::find_fp8_type(path.substr(kFp8Module.size() + 1));
  if (path.rfind("cuda.", 0) == 0 && is_cuda_intrinsic(path.substr(5)))
    return true;
  auto dot = path.find('.');
  if (dot == std::string::npos)
    return false;
  std::string module = path.substr(0, dot), name = path.substr(dot + 1);
  if (module == "builtins")
    return is_builtin_function(name);
  if (module == "numpy" && (name == "abs" || name == "absolute"))
    return true;
  if (module == "numpy" && array_reduction_method(name, true))
    return true;
  if (module == "numpy" && find_ufunc(name))
    return true;
  if (module == "numpy" && is_allocation_function(name))
    return true;
  if (module == "cmath")
    return is_cmath_function(name);
  if (module == "operator") // call_operator reports the ones kernels cannot call
    return true;
  if (path == "numba.literal_unroll" || path == "numba.prange") // for loops' iterables only
    return true;
  return find_math_function(module, name) != nullptr;
}

std::string canonical_module(const std::string &name) {
  if (name == "numba.cuda" || name == "cuda")
    return "cuda";
  if (name == "numba.cuda.libdevice" || name == "simt.cuda.libdevice")
    return kLibdeviceModule;
  if (name == "numba.cuda.bf16" || name == "simt.cuda.bf16" || name == "simt.bf16")
    return kBf16Module;
  if (name == "numba.types" || name == "numba.core.types")
    return "numba";
  return name;
}

ir::Op special_register(const std::string &name) {
  if (name == "threadIdx")
    return ir::Op::ThreadIdx;
  if (name == "blockIdx")
    return ir::Op::BlockIdx;
  if (name == "blockDim")
    return ir::Op::BlockDim;
  return ir::Op::GridDim;
}

} // namespace

void FunctionTyper::deeper(Nesting &nesting, ir::Loc loc) {
  nesting.enter([&] { error(loc, too_deeply_nested()); });
}

Value FunctionTyper::value(const ast::Expr &e) {
  Nesting nesting(module_.nesting_depth());
  deeper(nesting, e.loc);
  switch (e.kind) {
  case ast::ExprKind::Name:
    return name(e);
  case ast::ExprKind::Lambda: { // called where it is written: (lambda x: x + 1)(y)
    Value v;
    v.kind = Value::Kind::InnerFunction;
    v.inner = e.function;
    v.nested_scope = true;
    return v;
  }
  case ast::ExprKind::Int:
    return expr_value(int_constant(*python_folded_int(e), e));
  case ast::ExprKind::Float:
    if (e.imaginary)
      return expr_value(complex_const(Scalar::C128, 0, e.float_value, e.loc));
    return expr_value(scalar_const(Scalar::F64, 0, e.float_value, e.loc));
  case ast::ExprKind::Bool:
    return expr_value(scalar_const(Scalar::Bool, e.int_value, 0, e.loc));
  case ast::ExprKind::None:
    return Value{};
  case ast::ExprKind::String: {
    auto s = make_expr(ir::ExprKind::String, Type::none(), e.loc);
    s->name = e.text;
    s->int_value = e.bytes;
    return expr_value(std::move(s));
  }
  case ast::ExprKind::Tuple:
    return expr_value(tuple_display(e));
  case ast::ExprKind::UnaryOp:
    return expr_value(unary(e));
  case ast::ExprKind::BinOp:
    return expr_value(binary_chain(e));
  case ast::ExprKind::BoolOp:
    return expr_value(bool_op(e));
  case ast::ExprKind::Compare:
    return expr_value(compare(e));
  case ast::ExprKind::IfExp:
    return expr_value(if_exp(e));
  case ast::ExprKind::Call:
    return call(e);
  case ast::ExprKind::Attribute:
    return attribute(e);
  case ast::ExprKind::Subscript:
    return expr_value(subscript(e));
  case ast::ExprKind::Slice:
    error(e.loc, "simt: array slicing/views are not supported yet");
  case ast::ExprKind::List:
    error(e.loc, "simt: lists are not supported yet");
  case ast::ExprKind::Ellipsis:
    error(e.loc, "simt: Ellipsis ('...') is only supported as an array index");
  case ast::ExprKind::Starred:
    error(e.loc, "can't use starred expression here");
  }
  error(e.loc, "simt: this expression is not supported yet");
}

ir::ExprPtr FunctionTyper::int_constant(const FoldedInt &value, const ast::Expr &e) const {
  if (!value.fits) {
    const std::string folded = e.kind == ast::ExprKind::Int
                                   ? ""
                                   : ", the one constant CPython folds " + int_expression_text(e) +
                                         " into before Numba sees it";
    error(e.loc, "int value is too large: " + value.decimal + folded +
                     " (Numba's int constants are int64 or uint64)");
  }
  return scalar_const(value.is_uint64 ? Scalar::U64 : Scalar::I64, value.bits, 0, e.loc);
}

ir::ExprPtr FunctionTyper::binary_chain(const ast::Expr &e) {
  // (a + b) + c ...: typed from the innermost operator out in a loop, so that however long the
  // chain, it takes no stack (see nesting.h). Its innermost operators are one constant where
  // CPython folds them into one.
  const std::vector<const ast::Expr *> spine = left_spine(e);
  const FoldedChain folded = python_folded_chain(spine);
  size_t next = spine.size() - folded.links; // spine[next - 1]: the innermost operator left
  ir::ExprPtr lhs;
  if (folded.value && next > 0 && spine[next - 1]->op == Operator::Pow) {
    // int ** negative int is a float CPython folds: 2 ** -1 == 0.5
    const ast::Expr &power = *spine[next - 1];
    const std::optional<FoldedInt> exponent = python_folded_int(*power.elts[1]);
    if (exponent && exponent->negative && folded.value->decimal != "0") {
      lhs =
          scalar_const(Scalar::F64, 0, std::pow(folded.value->approx, exponent->approx), power.loc);
      --next;
    }
  }
  if (!lhs)
    lhs = folded.links ? int_constant(*folded.value, *spine[next]) : rvalue(*spine.back()->elts[0]);
  for (size_t i = next; i-- > 0;) {
    const ast::Expr &link = *spine[i];
    lhs = binary(link.op, std::move(lhs), rvalue(*link.elts[1]), link.loc);
  }
  return lhs;
}

ir::ExprPtr FunctionTyper::rvalue(const ast::Expr &e) { return rvalue_of(value(e), e.loc); }

ir::ExprPtr FunctionTyper::tuple_display(const ast::Expr &e) {
  std::vector<ir::ExprPtr> elems;
  std::vector<Type> types;
  for (const auto &elt : e.elts) {
    elems.push_back(rvalue(*elt));
    types.push_back(elems.back()->type);
  }
  auto t = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(types), e.loc);
  t->args = std::move(elems);
  return t;
}

ir::ExprPtr FunctionTyper::iterated(const ast::Expr &e) {
  // CPython compiles a list display that is only iterated or searched (`for x in [a, b]`,
  // `x in [3, 4]`) to a tuple, and Numba compiles what CPython did
  return e.kind == ast::ExprKind::List ? tuple_display(e) : rvalue(e);
}

ir::ExprPtr FunctionTyper::rvalue_of(Value v, ir::Loc loc) {
  switch (v.kind) {
  case Value::Kind::Expr:
    if (v.expr->kind == ir::ExprKind::String)
      error(loc, "simt: strings are only supported as print arguments and messages");
    if (v.expr->type.is_optional())
      return optional_value(std::move(v.expr), loc);
    return std::move(v.expr);
  case Value::Kind::None:
    error(loc, "simt: None is not supported as a value here");
  case Value::Kind::Path:
    error(loc, "simt: '" + v.path + "' is not supported as a value");
  case Value::Kind::Dtype:
    error(loc, "simt: the type " + scalar_name(v.dtype) + " is not supported as a value");
  case Value::Kind::Function:
  case Value::Kind::Extern:
  case Value::Kind::Overload:
    error(loc, "simt: functions are not supported as values yet");
  case Value::Kind::Exception:
    error(loc, "simt: exception classes are not supported as values");
  case Value::Kind::NamedTupleClass:
    error(loc, "simt: namedtuple classes are not supported as values (call one to make a tuple)");
  case Value::Kind::InnerFunction:
    error(loc, "simt: nested functions and lambdas are only supported called, not as values");
  case Value::Kind::ArrayCtypes:
    error(loc, "simt: an array's ctypes is only supported for its .data");
  }
  error(loc, "simt: this expression is not supported yet");
}

ir::ExprPtr FunctionTyper::condition(const ast::Expr &e) {
  Value v = value(e);
  if (v.kind != Value::Kind::Expr || !v.expr->type.is_optional())
    return to_bool(rvalue_of(std::move(v), e.loc));
  // An optional is false when None, else as its value is.
  ir::ExprPtr optional = stable(std::move(v.expr));
  auto both = make_expr(ir::ExprKind::And, Type::scalar_of(Scalar::Bool), e.loc);
  both->args.push_back(optional_part(clone(*optional), 0, e.loc));
  both->args.push_back(to_bool(optional_part(std::move(optional), 1, e.loc)));
  return both;
}

ir::ExprPtr FunctionTyper::optional_value(ir::ExprPtr e, ir::Loc loc) {
  ir::ExprPtr optional = stable(std::move(e));
  auto none = make_expr(ir::ExprKind::Unary, Type::scalar_of(Scalar::Bool), loc);
  none->op = ir::Op::Not;
  none->args.push_back(optional_part(clone(*optional), 0, loc));
  raise_if(std::move(none), "TypeError", "expected " + optional->type.elems[1].str() + ", got None",
           loc);
  return optional_part(std::move(optional), 1, loc);
}

ir::ExprPtr FunctionTyper::optional_part(ir::ExprPtr optional, int part, ir::Loc loc) const {
  auto get = make_expr(ir::ExprKind::TupleGet, optional->type.elems[size_t(part)], loc);
  get->index = part;
  get->args.push_back(std::move(optional));
  return get;
}

void FunctionTyper::raise_if(ir::ExprPtr condition, const std::string &exception,
                             std::string message, ir::Loc loc) {
  ir::Stmt check = make_stmt(ir::StmtKind::If, loc);
  check.exprs.push_back(std::move(condition));
  ir::Stmt raise = make_stmt(ir::StmtKind::Raise, loc);
  raise.exc = exception;
  raise.message = std::move(message);
  check.body.push_back(std::move(raise));
  emit(std::move(check));
}

ir::ExprPtr FunctionTyper::optional_none(const Type &t, ir::Loc loc) const {
  const Type &value = t.elems[1];
  auto none = make_expr(ir::ExprKind::TupleMake, t, loc);
  none->args.push_back(scalar_const(Scalar::Bool, 0, 0, loc));
  none->args.push_back(is_complex(value.scalar) ? complex_const(value.scalar, 0, 0, loc)
                                                : scalar_const(value.scalar, 0, 0, loc));
  return none;
}

Value FunctionTyper::name(const ast::Expr &e) {
  if (e.id.front() == '$') // a temp named in a call the typer rewrote (expand_star_arguments)
    for (size_t slot = 0; slot < fn_.slots.size(); ++slot)
      if (fn_.slots[slot].name == e.id)
        return expr_value(local(static_cast<int>(slot), e.loc));
  if (auto param = inline_scope_.find(e.id); param != inline_scope_.end())
    return expr_value(local(param->second, e.loc));
  if (auto inner = inner_functions_.find(e.id); inner != inner_functions_.end()) {
    Value v;
    v.kind = Value::Kind::InnerFunction;
    v.inner = inner->second;
    return v;
  }
  if (auto named = value_names_.find(e.id); named != value_names_.end())
    return value_of(named->second);
  if (scope_.locals.count(e.id))
    return expr_value(local(slot_for(e.id, e.loc), e.loc));
  if (auto bound = statics_.find(e.id); bound != statics_.end())
    return from_global(bound->second.value, e.id, e.loc);
  if (auto text = string_constants_.find(e.id); text != string_constants_.end()) {
    GlobalValue string;
    string.kind = GlobalValue::Kind::String;
    string.member = text->second;
    return from_global(string, e.id, e.loc);
  }
  return global(e.id, e.loc);
}

Value FunctionTyper::global(const std::string &name, ir::Loc loc) {
  GlobalValue g;
  if (source_.resolver)
    g = source_.resolver->resolve(name);
  return from_global(g, name, loc);
}

// A global's value that is data: a number, None, a string, a tuple of them, a NumPy array (the
// kernel's constant memory).
Value FunctionTyper::global_constant(const GlobalValue &g, const std::string &name, ir::Loc loc) {
  using K = GlobalValue::Kind;
  switch (g.kind) {
  case K::Int:
    return expr_value(scalar_const(g.scalar, g.int_value, 0, loc));
  case K::Float:
    if (is_complex(g.scalar))
      return expr_value(complex_const(g.scalar, g.float_value, g.imag_value, loc));
    return expr_value(scalar_const(g.scalar, 0, g.float_value, loc));
  case K::Bool:
    return expr_value(scalar_const(Scalar::Bool, g.int_value != 0, 0, loc));
  case K::None:
    return Value{};
  case K::String: {
    auto s = make_expr(ir::ExprKind::String, Type::none(), loc);
    s->name = g.member;
    return expr_value(std::move(s));
  }
  case K::Tuple: {
    std::vector<ir::ExprPtr> elems;
    std::vector<Type> types;
    for (const GlobalValue &elem : g.elems) {
      Value v = from_global(elem, name, loc);
      if (v.kind != Value::Kind::Expr)
        error(loc, "simt: global tuple '" + name + "' holds something other than numbers");
      types.push_back(v.expr->type);
      elems.push_back(std::move(v.expr));
    }
    auto t = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(types), loc);
    t->args = std::move(elems);
    return expr_value(std::move(t));
  }
  case K::Array: {
    ir::ConstArrayDecl decl;
    decl.dtype = g.scalar;
    decl.shape = g.shape;
    decl.data = g.data;
    int index = module_.const_array(function_key(source_) + ":" + name, std::move(decl));
    int ndim = static_cast<int>(g.shape.size());
    auto a = make_expr(ir::ExprKind::ConstArray,
                       g.record ? Type::record_array_of(g.record, ndim, 'C', MemSpace::Const)
                                : Type::array_of(g.scalar, ndim, 'C', MemSpace::Const),
                       loc);
    a->index = index;
    return expr_value(std::move(a));
  }
  default:
    break;
  }
  error(loc, "unknown name '" + name + "'");
}

Value FunctionTyper::from_global(const GlobalValue &g, const std::string &name, ir::Loc loc) {
  using K = GlobalValue::Kind;
  if (g.nominal && g.kind != K::NamedTupleClass) { // an enum member: its value's constant
    GlobalValue value = g;
    value.nominal = nullptr;
    Value v = from_global(value, name, loc);
    if (v.kind != Value::Kind::Expr)
      error(loc, "simt: the value of enum member '" + name + "' is not supported in kernels");
    v.expr->type.nominal = g.nominal;
    return v;
  }
  switch (g.kind) {
  case K::Unknown:
    if (!g.member.empty())
      error(loc, "simt: " + g.member);
    if (is_builtin_function(name))
      return path_value("builtins." + name);
    if (is_builtin_exception(name)) {
      Value v;
      v.kind = Value::Kind::Exception;
      v.exception = name;
      return v;
    }
    error(loc, "unknown name '" + name + "'");
  case K::Int:
  case K::Float:
  case K::Bool:
  case K::None:
  case K::String:
  case K::Tuple:
  case K::Array:
    return global_constant(g, name, loc);
  case K::Module: {
    std::string module = canonical_module(g.module_name);
    if (module != "cuda" && module != "math" && module != "numpy" && module != "numba" &&
        module != "cmath" && module != "operator" && module != kLibdeviceModule &&
        module != kBf16Module)
      return path_value(kOtherModule + name); // its attributes resolve as dotted names
    return path_value(module);
  }
  case K::ModuleMember:
    return path_attribute(canonical_module(g.module_name) + "." + g.member, loc);
  case K::Dtype: {
    Value v;
    v.kind = Value::Kind::Dtype;
    v.dtype = g.scalar;
    v.record = g.record;
    return v;
  }
  case K::ArrayType:
    error(loc, "simt: array types are only supported in signatures");
  case K::Function: {
    Value v;
    v.kind = Value::Kind::Function;
    v.function = g.function;
    return v;
  }
  case K::Extern: {
    Value v;
    v.kind = Value::Kind::Extern;
    v.extern_function = g.extern_function;
    return v;
  }
  case K::Exception: {
    Value v;
    v.kind = Value::Kind::Exception;
    v.exception = g.member;
    return v;
  }
  case K::Overload: {
    Value v;
    v.kind = Value::Kind::Overload;
    v.path = name;
    return v;
  }
  case K::NamedTupleClass: {
    Value v;
    v.kind = Value::Kind::NamedTupleClass;
    v.nominal = g.nominal;
    v.defaults = g.elems;
    return v;
  }
  case K::Builtin:
    if (!is_builtin_function(g.member))
      error(loc, "simt: the builtin '" + g.member + "' is not supported yet");
    return path_value("builtins." + g.member);
  }
  error(loc, "unknown name '" + name + "'");
}

Value FunctionTyper::attribute(const ast::Expr &e) {
  return attribute_of(value(*e.elts[0]), e.id, e.loc);
}

Value FunctionTyper::attribute_of(Value base, const std::string &attr, ir::Loc loc) {
  if (base.kind == Value::Kind::Path)
    return path_attribute(base.path + "." + attr, loc);
  if (base.kind == Value::Kind::Dtype && attr == "type") // a.dtype.type: the scalar class
    return base;
  if (base.kind == Value::Kind::Expr && base.expr->type.is_array())
    return array_attribute(std::move(base.expr), attr, loc);
  if (base.kind == Value::Kind::ArrayCtypes)
    return array_ctypes_attribute(std::move(base.expr), attr, loc);
  if (base.kind == Value::Kind::Expr && base.expr->type.is_thread_block())
    return thread_block_attribute(attr, loc);
  if (base.kind == Value::Kind::Expr && base.expr->type.is_grid_group())
    return grid_group_attribute(attr, loc);
  if (base.kind == Value::Kind::Expr && base.expr->type.is_record()) {
    int field = field_index(base.expr->type, attr, loc);
    return expr_value(field_load(std::move(base.expr), field, loc));
  }
  if (base.kind == Value::Kind::Expr && base.expr->type.nominal)
    return nominal_attribute(std::move(base.expr), attr, loc);
  if (base.kind == Value::Kind::Expr && base.expr->type.is_vector())
    return vector_attribute(std::move(base.expr), attr, loc);
  if (base.kind == Value::Kind::Expr && base.expr->type.is_scalar())
    return number_attribute(std::move(base.expr), attr, loc);
  if (base.kind == Value::Kind::Expr)
    error(loc, "unknown attribute '" + attr + "' of " + base.expr->type.str());
  error(loc, "unknown attribute '" + attr + "'");
}

Value FunctionTyper::path_attribute(const std::string &path, ir::Loc loc) {
  if (path.rfind(kOtherModule, 0) == 0) { // mymod.f: what the resolver says `mymod.f` is
    std::string dotted = path.substr(kOtherModule.size());
    GlobalValue g;
    if (source_.resolver)
      g = source_.resolver->resolve(dotted);
    if (g.kind == GlobalValue::Kind::Unknown)
      error(loc, "simt: '" + dotted + "' is not supported yet");
    return from_global(g, dotted, loc);
  }
  auto dot = path.rfind('.');
  std::string owner = path.substr(0, dot), attr = path.substr(dot + 1);
  if (owner == "cuda.threadIdx" || owner == "cuda.blockIdx" || owner == "cuda.blockDim" ||
      owner == "cuda.gridDim") {
    if (attr != "x" && attr != "y" && attr != "z")
      error(loc, "unknown attribute '" + path + "'");
    auto s = make_expr(ir::ExprKind::Special, Type::scalar_of(Scalar::I32), loc);
    s->op = special_register(owner.substr(5));
    s->index = attr[0] - 'x';
    return expr_value(std::move(s));
  }
  if (path == "cuda.laneid" || path == "cuda.warpsize") {
    auto s = make_expr(ir::ExprKind::Special, Type::scalar_of(Scalar::I32), loc);
    s->op = path == "cuda.laneid" ? ir::Op::LaneId : ir::Op::WarpSize;
    return expr_value(std::move(s));
  }
  if (owner == "math" || owner == "numpy" || owner == "cmath") {
    static const std::map<std::string, double> constants = {{"pi", std::numbers::pi},
                                                            {"e", std::numbers::e},
                                                            {"tau", 2 * std::numbers::pi},
                                                            {"inf", HUGE_VAL},
                                                            {"nan", std::nan("")}};
    auto c = constants.find(attr);
    if (c != constants.end() && (owner != "numpy" || attr != "tau"))
      return expr_value(scalar_const(Scalar::F64, 0, c->second, loc));
  }
  Scalar dtype;
  // (bfloat16 is numba.cuda.types.bfloat16 and numba.cuda.bf16.bfloat16 only)
  if (((owner == "numpy" && parse_scalar_name(attr, dtype)) ||
       (owner == "numba" && parse_numba_type_name(attr, dtype))) &&
      dtype != Scalar::BF16) {
    Value v;
    v.kind = Value::Kind::Dtype;
    v.dtype = dtype;
    return v;
  }
  // numba-cuda's and numba-cuda-mlir's cuda packages re-export the type names (cuda.float32),
  // and numba-cuda-mlir's has cuda.shared_array / cuda.local_array for cuda.shared.array / ...
  if (owner == "cuda" && parse_numba_type_name(attr, dtype)) {
    Value v;
    v.kind = Value::Kind::Dtype;
    v.dtype = dtype;
    return v;
  }
  if (path == "cuda.shared_array" || path == "cuda.local_array")
    return path_value("cuda." + attr.substr(0, attr.find('_')) + ".array");
  // numba.cuda, numba.types.float32, numba.core.types.int32: modules known by other names.
  if (const std::string known = canonical_module(path); known != path)
    return path_value(known);
  if (path == "numba.core") // numba.core.types
    return path_value(path);
  if (owner == kLibdeviceModule && !ir::find_libdevice(attr))
    error(loc, "module 'numba.cuda.libdevice' has no attribute '" + attr + "'");
  if (owner == kBf16Module && (attr == "bfloat16" || attr == "nv_bfloat16")) {
    Value v;
    v.kind = Value::Kind::Dtype;
    v.dtype = Scalar::BF16;
    return v;
  }
  if (owner == kBf16Module && !ir::find_bf16(attr))
    error(loc, "module 'numba.cuda.bf16' has no attribute '" + attr + "'");
  if (owner == "cuda" && is_unsupported_cuda_name(attr))
    error(loc, "simt: cuda." + attr + " is not supported yet");
  if (!is_known_path(path))
    error(loc, "unknown attribute '" + path + "'");
  return path_value(path);
}

Value FunctionTyper::array_attribute(ir::ExprPtr array, const std::string &attr, ir::Loc loc) {
  const Type type = array->type;
  if (attr == "shape" || attr == "strides") {
    array = stable(std::move(array));
    std::vector<Type> types(type.ndim, Type::scalar_of(Scalar::I64));
    auto t = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(types), loc);
    for (int axis = 0; axis < type.ndim; ++axis) {
      auto e = make_expr(attr == "shape" ? ir::ExprKind::ArrayShape : ir::ExprKind::ArrayStride,
                         Type::scalar_of(Scalar::I64), loc);
      e->index = axis;
      e->args.push_back(clone(*array));
      t->args.push_back(std::move(e));
    }
    return expr_value(std::move(t));
  }
  if (attr == "size") {
    auto e = make_expr(ir::ExprKind::ArraySize, Type::scalar_of(Scalar::I64), loc);
    e->args.push_back(std::move(array));
    return expr_value(std::move(e));
  }
  if (attr == "ndim")
    return expr_value(scalar_const(Scalar::I64, type.ndim, 0, loc));
  if (attr == "ctypes") { // only its .data, the data's address
    Value v;
    v.kind = Value::Kind::ArrayCtypes;
    v.expr = std::move(array);
    return v;
  }
  if (attr == "T")
    return expr_value(transposed(std::move(array), loc));
  if (attr == "dtype" && type.record)
    error(loc, "simt: the dtype of a record array is not supported as a value yet");
  if (attr == "dtype") {
    Value v;
    v.kind = Value::Kind::Dtype;
    v.dtype = type.scalar;
    return v;
  }
  // Views of one part of each element, strided over the others (NumPy's and Numba's): a complex
  // array's .real and .imag, a record array's scalar field.
  std::optional<Scalar> part;
  int64_t offset = 0;
  if (!type.record && is_complex(type.scalar) && (attr == "real" || attr == "imag")) {
    part = component_of(type.scalar);
    offset = attr == "imag" ? byte_size(*part) : 0;
  } else if (type.record) {
    const int field = type.record->field_index(attr);
    if (field >= 0 && type.record->fields[size_t(field)].shape.empty() &&
        !type.record->fields[size_t(field)].record) {
      part = type.record->fields[size_t(field)].scalar;
      offset = type.record->fields[size_t(field)].offset;
    }
  }
  if (part) {
    Type view_type = Type::array_of(*part, type.ndim, 'A', type.space);
    view_type.readonly = type.readonly;
    auto view = make_expr(ir::ExprKind::FieldView, view_type, loc);
    view->index = static_cast<int>(offset);
    view->args.push_back(std::move(array));
    return expr_value(std::move(view));
  }
  error(loc, "unknown attribute '" + attr + "' of " + type.str());
}

// arr.ctypes.data: the address of the array's data, as Numba's (uintp).
Value FunctionTyper::array_ctypes_attribute(ir::ExprPtr array, const std::string &attr,
                                            ir::Loc loc) {
  if (attr != "data")
    error(loc, "simt: an array's ctypes has no attribute '" + attr + "' in kernels (only data)");
  auto e = make_expr(ir::ExprKind::ArrayAddress, Type::scalar_of(Scalar::U64), loc);
  e->args.push_back(std::move(array));
  return expr_value(std::move(e));
}

ir::ExprPtr FunctionTyper::subscript(const ast::Expr &e) {
  Value base_value = value(*e.elts[0]);
  if (base_value.kind == Value::Kind::Path && base_value.path.rfind(kOtherModule, 0) == 0 &&
      e.elts[1]->kind == ast::ExprKind::String) // Color['red']: an enum class's member by name
    return rvalue_of(path_attribute(base_value.path + "." + e.elts[1]->text, e.loc), e.loc);
  ir::ExprPtr base = rvalue_of(std::move(base_value), e.elts[0]->loc);
  if (base->type.has_no_operators())
    error(e.loc, "cannot index " + base->type.str());
  if (base->type.is_record()) {
    int field = field_key(base->type, *e.elts[1]);
    return field_load(std::move(base), field, e.loc);
  }
  if (base->type.is_array()) {
    if (e.elts[1]->kind == ast::ExprKind::Ellipsis)
      error(e.loc, "simt: reading a[...] is not supported, as in Numba's CUDA target (storing "
                   "a[...] = value is); use the array itself or a[:]");
    return array_subscript(std::move(base), *e.elts[1], e.loc);
  }
  if (!base->type.is_tuple())
    error(e.loc, "cannot index " + base->type.str());
  if (e.elts[1]->kind == ast::ExprKind::Slice)
    return tuple_slice(std::move(base), *e.elts[1], e.loc);
  ir::ExprPtr index = rvalue(*e.elts[1]);
  if (!index->type.is_scalar() || is_real(index->type.scalar))
    error(e.elts[1]->loc, "tuple indices must be integers, not " + index->type.str());
  if (index->kind != ir::ExprKind::Const)
    return tuple_index(std::move(base), std::move(index), e.loc);
  int64_t size = static_cast<int64_t>(base->type.elems.size());
  int64_t i = index->int_value < 0 ? index->int_value + size : index->int_value;
  if (i < 0 || i >= size)
    error(e.elts[1]->loc, "tuple index out of range");
  return tuple_item(std::move(base), static_cast<int>(i), e.loc);
}

ir::ExprPtr FunctionTyper::tuple_slice(ir::ExprPtr tuple, const ast::Expr &slice, ir::Loc loc) {
  // Numba's static slice of a tuple: constant bounds, a tuple of the elements chosen (Python's
  // slice.indices rules)
  auto part = [&](size_t k) -> std::optional<int64_t> {
    if (!slice.elts[k])
      return std::nullopt;
    const std::optional<int64_t> value = constant_int(*rvalue(*slice.elts[k]));
    if (!value)
      error(slice.elts[k]->loc, "simt: a tuple is sliced by constant integers only");
    return value;
  };
  const int64_t size = static_cast<int64_t>(tuple->type.elems.size());
  const int64_t step = part(2).value_or(1);
  if (step == 0)
    error(loc, "slice step cannot be zero");
  auto bound = [&](std::optional<int64_t> given, int64_t absent) {
    if (!given)
      return absent;
    int64_t at = *given < 0 ? *given + size : *given;
    return step > 0 ? std::clamp<int64_t>(at, 0, size) : std::clamp<int64_t>(at, -1, size - 1);
  };
  const int64_t start = bound(part(0), step > 0 ? 0 : size - 1);
  const int64_t stop = bound(part(1), step > 0 ? size : -1);
  tuple = stable(std::move(tuple));
  std::vector<ir::ExprPtr> elems;
  std::vector<Type> types;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    types.push_back(tuple->type.elems[size_t(i)]);
    elems.push_back(tuple_item(clone(*tuple), static_cast<int>(i), loc));
  }
  auto made = make_expr(ir::ExprKind::TupleMake, Type::tuple_of(std::move(types)), loc);
  made->args = std::move(elems);
  return made;
}

ir::ExprPtr FunctionTyper::tuple_item(ir::ExprPtr tuple, int i, ir::Loc loc) {
  if (tuple->kind == ir::ExprKind::TupleMake)
    return std::move(tuple->args[i]);
  auto get = make_expr(ir::ExprKind::TupleGet, tuple->type.elems[i], loc);
  get->index = i;
  get->args.push_back(std::move(tuple));
  return get;
}

Value FunctionTyper::nominal_attribute(ir::ExprPtr value, const std::string &attr, ir::Loc loc) {
  const NominalClass &cls = *value->type.nominal;
  if (cls.kind == NominalClass::Kind::Storage)
    return storage_attribute(std::move(value), attr, loc);
  if (cls.kind == NominalClass::Kind::NamedTuple) {
    auto field = std::find(cls.fields.begin(), cls.fields.end(), attr);
    if (field == cls.fields.end())
      error(loc, "unknown attribute '" + attr + "' of namedtuple " + cls.name);
    return expr_value(tuple_item(std::move(value), int(field - cls.fields.begin()), loc));
  }
  const Type plain = value->type.plain();
  if (attr == "value")
    return expr_value(cast(std::move(value), plain));
  if (attr == "name")
    error(loc, "simt: the name of an enum member is a string, and strings are only supported as "
               "print arguments and messages");
  if (cls.kind == NominalClass::Kind::IntEnum && value->type.is_scalar())
    return number_attribute(cast(std::move(value), plain), attr, loc);
  error(loc, "unknown attribute '" + attr + "' of " + value->type.str());
}

std::vector<ir::ExprPtr> FunctionTyper::array_indices(const ir::Expr &array, const ast::Expr &index,
                                                      ir::Loc loc, bool allow_partial) {
  auto is_slice = [](const ast::Expr &x) { return x.kind == ast::ExprKind::Slice; };
  std::vector<ir::ExprPtr> indices;
  if (index.kind == ast::ExprKind::Tuple) {
    for (const auto &elt : index.elts) {
      if (is_slice(*elt))
        error(elt->loc, "simt: slices are not supported in this subscript yet");
      indices.push_back(rvalue(*elt));
    }
  } else {
    if (is_slice(index))
      error(index.loc, "simt: slices are not supported in this subscript yet");
    ir::ExprPtr v = rvalue(index);
    if (v->type.is_tuple() && v->kind == ir::ExprKind::TupleMake) {
      for (auto &a : v->args)
        indices.push_back(std::move(a));
    } else if (v->type.is_tuple()) {
      v = stable(std::move(v));
      for (size_t i = 0; i < v->type.elems.size(); ++i) {
        auto get = make_expr(ir::ExprKind::TupleGet, v->type.elems[i], v->loc);
        get->index = static_cast<int>(i);
        get->args.push_back(clone(*v));
        indices.push_back(std::move(get));
      }
    } else {
      indices.push_back(std::move(v));
    }
  }
  int ndim = array.type.ndim;
  if (static_cast<int>(indices.size()) < ndim && !allow_partial)
    error(loc, "expected " + std::to_string(ndim) + " indices for a " + std::to_string(ndim) +
                   "-dimensional array, got " + std::to_string(indices.size()));
  if (static_cast<int>(indices.size()) > ndim)
    error(loc, "wrong number of indices: " + std::to_string(indices.size()) + " for a " +
                   std::to_string(ndim) + "-dimensional array");
  for (auto &i : indices) {
    i = zero_d_index(std::move(i));
    if (!i->type.is_scalar() || !is_integer(i->type.scalar))
      error(i->loc, "array indices must be integers, not " + i->type.str());
    i = cast(std::move(i), Type::scalar_of(Scalar::I64));
  }
  return indices;
}

// A 0-d integer array used as an index is its value (Numba's get_array_index_type), as where
// scalar arguments reach a kernel as np.asarray(x).
ir::ExprPtr FunctionTyper::zero_d_index(ir::ExprPtr index) {
  const Type &type = index->type;
  if (!type.is_array() || type.ndim != 0 || type.record || !is_integer(type.scalar))
    return index;
  auto value = make_expr(ir::ExprKind::ArrayLoad, type.element(), index->loc);
  value->args.push_back(std::move(index));
  return value;
}

ir::ExprPtr FunctionTyper::unary(const ast::Expr &e) {
  // An int constant past int64 is folded as CPython folds it: -9223372036854775808 is an int64,
  // ~(2 ** 64) too large, not 2 ** 64 False. (Within int64 the operation gives the same.)
  const ast::Expr *innermost = e.elts[0].get();
  while (innermost->kind == ast::ExprKind::UnaryOp && innermost->op != Operator::Not)
    innermost = innermost->elts[0].get();
  if (innermost->kind == ast::ExprKind::Int || innermost->kind == ast::ExprKind::BinOp) {
    const std::optional<FoldedInt> folded = python_folded_int(*e.elts[0]);
    if (folded && (!folded->fits || folded->is_uint64))
      return e.op == Operator::Not ? scalar_const(Scalar::Bool, 0, 0, e.loc)
                                   : int_constant(*python_folded_int(e), e);
  }
  ir::ExprPtr operand = rvalue(*e.elts[0]);
  if (e.op == Operator::Not) {
    auto n = make_expr(ir::ExprKind::Unary, Type::scalar_of(Scalar::Bool), e.loc);
    n->op = ir::Op::Not;
    n->args.push_back(to_bool(std::move(operand)));
    return n;
  }
  if (operand->type.is_time())
    return time_unary(e.op, std::move(operand), e.loc);
  if (!operand->type.is_scalar() || operand->type.has_no_operators())
    error(e.loc, "bad operand type for unary " + spelling(e.op) + ": " + operand->type.str());
  auto sig = unary_operator_signature(e.op, operand->type.scalar);
  if (!sig)
    error(e.loc, "bad operand type for unary " + spelling(e.op) + ": " + operand->type.str());
  Type result = Type::scalar_of(sig->result);
  auto u = make_expr(ir::ExprKind::Unary, result, e.loc);
  u->op = ir_op(e.op);
  if (e.op == Operator::Invert && sig->result == Scalar::Bool)
    u->op = ir::Op::Not; // Numba follows NumPy: ~ on a bool is logical not
  const Type param = Type::scalar_of(sig->params[0]);
  if (is_integer(sig->params[0]) && u->op != ir::Op::Not) {
    // Numba negates and inverts in the operand's width, then widens: ~uint8(1) is 254,
    // -int8(-128) is -128
    u->type = param;
    u->args.push_back(cast(std::move(operand), param));
    return cast(std::move(u), result);
  }
  u->args.push_back(cast(cast(std::move(operand), param), result));
  return u;
}

ir::ExprPtr FunctionTyper::binary(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc) {
  auto fail = [&] {
    error(loc, "unsupported operand types for " + spelling(op) + ": " + lhs->type.str() + " and " +
                   rhs->type.str());
  };
  if (op == Operator::MatMul)
    error(loc, "simt: the @ operator is not supported yet");
  if (lhs->type.is_time() || rhs->type.is_time())
    return time_binary(op, std::move(lhs), std::move(rhs), loc);
  if ((op == Operator::Add && lhs->type.is_tuple() && rhs->type.is_tuple()) ||
      (op == Operator::Mul && lhs->type.is_tuple() != rhs->type.is_tuple())) {
    // concatenation, or repetition a constant number of times
    std::optional<int64_t> times = 1;
    std::vector<ir::ExprPtr> tuples;
    if (op == Operator::Mul) {
      times = constant_int(lhs->type.is_tuple() ? *rhs : *lhs);
      if (!times)
        error(loc, "simt: a tuple is repeated a constant number of times only");
      tuples.push_back(lhs->type.is_tuple() ? std::move(lhs) : std::move(rhs));
    } else {
      tuples.push_back(std::move(lhs));
      tuples.push_back(std::move(rhs));
    }
    return tuple_repeat(std::move(tuples), *times, loc);
  }
  if (!lhs->type.is_scalar() || !rhs->type.is_scalar() || lhs->type.has_no_operators() ||
      rhs->type.has_no_operators())
    fail();
  auto sig = binary_operator_signature(op, lhs->type.scalar, rhs->type.scalar);
  if (!sig)
    fail();
  Type result = Type::scalar_of(sig->result);
  if (op == Operator::Pow && is_float(sig->result) && is_integer(sig->params[1])) {
    auto power = make_intrinsic(ir::Intrinsic::PowInt, result, loc);
    power->args.push_back(cast(std::move(lhs), result));
    power->args.push_back(cast(std::move(rhs), Type::scalar_of(sig->params[1])));
    return power;
  }
  if (is_complex(sig->result) && (op == Operator::TrueDiv || op == Operator::Pow))
    return complex_binary(ir_op(op), cast(std::move(lhs), result), cast(std::move(rhs), result),
                          loc);
  auto b = make_expr(ir::ExprKind::Binary, result, loc);
  b->op = ir_op(op);
  b->args.push_back(cast(cast(std::move(lhs), Type::scalar_of(sig->params[0])), result));
  b->args.push_back(cast(cast(std::move(rhs), Type::scalar_of(sig->params[1])), result));
  return b;
}

ir::ExprPtr FunctionTyper::compare(const ast::Expr &e) {
  if (e.ops.size() == 1 && (e.ops[0] == Operator::Is || e.ops[0] == Operator::IsNot) &&
      (e.elts[0]->kind == ast::ExprKind::None || e.elts[1]->kind == ast::ExprKind::None)) {
    // `x is None`: an optional's validity; None is None; any other value is not None.
    const bool negated = e.ops[0] == Operator::IsNot;
    Value v = value(*e.elts[e.elts[0]->kind == ast::ExprKind::None ? 1 : 0]);
    if (v.kind == Value::Kind::Expr && v.expr->type.is_optional()) {
      ir::ExprPtr valid = optional_part(std::move(v.expr), 0, e.loc);
      if (negated)
        return valid;
      auto none = make_expr(ir::ExprKind::Unary, Type::scalar_of(Scalar::Bool), e.loc);
      none->op = ir::Op::Not;
      none->args.push_back(std::move(valid));
      return none;
    }
    return scalar_const(Scalar::Bool, (v.kind == Value::Kind::None) != negated, 0, e.loc);
  }
  // a < b < c is (a < b) and (b < c), one And over all the pairs however long the chain
  auto all = make_expr(ir::ExprKind::And, Type::scalar_of(Scalar::Bool), e.loc);
  ir::ExprPtr lhs = rvalue(*e.elts[0]);
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const bool membership = e.ops[i] == Operator::In || e.ops[i] == Operator::NotIn;
    ir::ExprPtr rhs = membership ? iterated(*e.elts[i + 1]) : rvalue(*e.elts[i + 1]);
    bool last = i + 1 == e.ops.size();
    if (!last)
      rhs = stable(std::move(rhs)); // the middle operand is evaluated once
    all->args.push_back(
        compare_pair(e.ops[i], std::move(lhs), last ? std::move(rhs) : clone(*rhs), e.loc));
    if (!last)
      lhs = std::move(rhs);
  }
  if (all->args.size() == 1)
    return std::move(all->args[0]);
  return all;
}

ir::ExprPtr FunctionTyper::compare_pair(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs,
                                        ir::Loc loc) {
  if (op == Operator::In || op == Operator::NotIn) {
    if (!rhs->type.is_tuple())
      error(loc, "simt: '" + spelling(op) + "' on " + rhs->type.str() + " is not supported yet");
    ir::ExprPtr found = tuple_contains(std::move(lhs), std::move(rhs), loc);
    if (op == Operator::In)
      return found;
    auto n = make_expr(ir::ExprKind::Unary, Type::scalar_of(Scalar::Bool), loc);
    n->op = ir::Op::Not;
    n->args.push_back(std::move(found));
    return n;
  }
  const bool is = op == Operator::Is || op == Operator::IsNot;
  if (!is && (lhs->type.is_storage() || rhs->type.is_storage()))
    error(loc, "unsupported operand types for " + spelling(op) + ": " + lhs->type.str() + " and " +
                   rhs->type.str());
  if (!is && (lhs->type.is_time() || rhs->type.is_time()))
    return time_compare(op, std::move(lhs), std::move(rhs), loc);
  if (is || lhs->type.is_plain_enum() || rhs->type.is_plain_enum()) {
    // Numba's `is`: values of different types are not identical, immutable values of one type
    // are when equal. Enum members equal only members of their own class (IntEnum members also
    // compare as integers with ==).
    const bool negated = op == Operator::IsNot || op == Operator::NotEq;
    const bool enums = lhs->type.nominal && rhs->type.nominal &&
                       lhs->type.nominal->kind != NominalClass::Kind::NamedTuple;
    const bool same_class =
        enums ? *lhs->type.nominal == *rhs->type.nominal : lhs->type == rhs->type;
    if (!is && op != Operator::Eq && op != Operator::NotEq)
      error(loc, "'" + spelling(op) + "' is not supported between " + lhs->type.str() + " and " +
                     rhs->type.str());
    if (!same_class && (is || !lhs->type.is_nominal(NominalClass::Kind::IntEnum) ||
                        !rhs->type.is_nominal(NominalClass::Kind::IntEnum)))
      return scalar_const(Scalar::Bool, negated, 0, loc);
    if (is && !lhs->type.is_scalar() && !lhs->type.is_tuple())
      error(loc, "simt: 'is' between " + lhs->type.str() + " values is not supported yet");
    const Type plain = lhs->type.plain();
    return compare_pair(negated ? Operator::NotEq : Operator::Eq, cast(std::move(lhs), plain),
                        cast(std::move(rhs), plain), loc);
  }
  if (lhs->type.is_tuple() && rhs->type.is_tuple() && (op == Operator::Eq || op == Operator::NotEq))
    return tuple_equal(std::move(lhs), std::move(rhs), op == Operator::Eq, loc);
  if (lhs->type.is_tuple() && rhs->type.is_tuple() &&
      (op == Operator::Lt || op == Operator::LtE || op == Operator::Gt || op == Operator::GtE))
    return tuple_order(std::move(lhs), std::move(rhs), op, loc);
  if (!lhs->type.is_scalar() || !rhs->type.is_scalar())
    error(loc, "simt: comparing " + lhs->type.str() + " and " + rhs->type.str() +
                   " is not supported yet");
  if ((is_complex(lhs->type.scalar) || is_complex(rhs->type.scalar)) && op != Operator::Eq &&
      op != Operator::NotEq)
    error(loc, "'" + spelling(op) + "' is not supported between " + lhs->type.str() + " and " +
                   rhs->type.str());
  auto sig = compare_signature(lhs->type.scalar, rhs->type.scalar);
  Type operand = Type::scalar_of(sig->params[0]);
  return make_compare(ir_op(op), cast(std::move(lhs), operand), cast(std::move(rhs), operand), loc);
}

ir::ExprPtr FunctionTyper::bool_op(const ast::Expr &e) {
  std::vector<ir::ExprPtr> operands;
  Type type;
  for (const auto &elt : e.elts) {
    operands.push_back(rvalue(*elt));
    if (!operands.back()->type.is_scalar())
      error(elt->loc, "simt: '" + spelling(e.op) + "' on " + operands.back()->type.str() +
                          " is not supported yet");
    if (operands.size() == 1)
      type = operands.back()->type;
    else
      unify(type, operands.back()->type, type);
  }
  auto op = make_expr(e.op == Operator::And ? ir::ExprKind::And : ir::ExprKind::Or, type, e.loc);
  for (ir::ExprPtr &operand : operands)
    op->args.push_back(cast(std::move(operand), type));
  return op;
}

ir::ExprPtr FunctionTyper::if_exp(const ast::Expr &e) {
  ir::ExprPtr test = condition(*e.elts[0]);
  if (const std::optional<bool> truth = constant_truth(*test)) // the other one is not typed
    return rvalue(*e.elts[*truth ? 1 : 2]);
  // Optionals stay optional here: their values are checked where the chosen one is used.
  auto branch = [&](const ast::Expr &x) {
    Value v = value(x);
    return v.kind == Value::Kind::Expr && v.expr->type.is_optional()
               ? std::move(v.expr)
               : rvalue_of(std::move(v), x.loc);
  };
  ir::ExprPtr yes = branch(*e.elts[1]);
  ir::ExprPtr no = branch(*e.elts[2]);
  Type type;
  if (!unify(yes->type, no->type, type))
    error(e.loc, "cannot unify " + yes->type.str() + " and " + no->type.str() +
                     " in a conditional expression");
  ir::ExprPtr chosen =
      make_select(std::move(test), cast(std::move(yes), type), cast(std::move(no), type));
  chosen->loc = e.loc;
  return chosen;
}

} // namespace simt
