// Type inference of one Python function: AST -> typed ir::Function, with Numba's rules.
//
// Locals get one type each, the unification of everything assigned to them. The typer runs over
// the body repeatedly until no local's type changes; a read of a local whose type is not known
// yet (assigned later in a loop) defers its statement to the next round.
#pragma once

#include "frontend/ast.h"
#include "frontend/compile.h"
#include "frontend/module_builder.h"
#include "frontend/nesting.h"
#include "frontend/python_int.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace simt {

using Operator = ast::Operator;

struct Ufunc; // frontend/ufuncs.h
struct UfuncLoop;
struct CudaFunction; // frontend/builtins.h
struct CallFamily;   // frontend/typer_calls.h
class CallRegistry;

// A deep copy of a syntax tree (typer_constant.cpp), for expressions the typer rewrites.
ast::ExprPtr copy_ast(const ast::Expr &e);
// The value of an integer expression of constants (literals, global constants, locals defined
// once from them: `N + 2`, `N // 2`, `W * H`), as Python computes it; nothing when it is not one
// or overflows int64.
std::optional<int64_t> constant_int(const ir::Expr &x);
// The truth of a condition of constants (`a.ndim == 2`, `len(t) > 1 and not FLAG`), as Numba's
// dead branch pruning knows it; nothing when it is not one.
std::optional<bool> constant_truth(const ir::Expr &x);
// Whether running `body` may reach its end (rather than return or raise on every path).
bool may_complete(const std::vector<ast::StmtPtr> &body);
// Whether np.<numpy_name> allocates an array in the kernel (typer_alloc.cpp: np.empty, ...).
bool is_allocation_function(const std::string &numpy_name);
// How often a body binds a name (assignments, loop and `with` targets, each once per target) and
// the value of its last binding when that is a plain `name = value` (else null).
struct Binding {
  int count = 0;
  const ast::Expr *value = nullptr;
};
using Bindings = std::map<std::string, Binding>;
Bindings collect_bindings(const std::vector<ast::StmtPtr> &body); // typer_constant.cpp

// What an expression denotes at compile time: a typed run-time value (an ir::Expr), or a module,
// function, dtype, exception class or None that only calls and attributes can use. The parts
// other than the expression (CompileTimeValue) copy, so names can stand for them.
struct CompileTimeValue {
  // Overload: a function with @overload implementations, by the global name in `path`.
  // NamedTupleClass: a namedtuple class, called to make one.
  enum class Kind : uint8_t {
    Expr,
    Path,
    Dtype,
    Function,
    Extern,
    Exception,
    Overload,
    NamedTupleClass,
    InnerFunction, // a nested def or lambda of the function: inlined where it is called
    ArrayCtypes,   // arr.ctypes: `expr` is the array (its .data is typed)
    None
  };
  Kind kind = Kind::None;
  std::string path;           // Path: "cuda", "cuda.atomic.add", "math.sin", "builtins.len", ...
  Scalar dtype = Scalar::F64; // Dtype
  std::shared_ptr<const Record> record;     // Dtype of a structured dtype (then `dtype` is moot)
  std::shared_ptr<FunctionSource> function; // Function
  std::shared_ptr<const ExternFunction> extern_function; // Extern
  std::string exception;                                 // Exception
  std::shared_ptr<const NominalClass> nominal;           // NamedTupleClass
  std::vector<GlobalValue> defaults;             // NamedTupleClass: the defaults of its last fields
  std::shared_ptr<const ast::FunctionDef> inner; // InnerFunction
  bool nested_scope = false; // InnerFunction: a lambda written in the scope of the call
};

struct Value : CompileTimeValue {
  ir::ExprPtr expr; // Expr
};

// A value of the compile-time parts alone (what names of compile-time values stand for).
inline Value value_of(const CompileTimeValue &parts) {
  Value v;
  static_cast<CompileTimeValue &>(v) = parts;
  return v;
}

inline Value expr_value(ir::ExprPtr e) {
  Value v;
  v.kind = Value::Kind::Expr;
  v.expr = std::move(e);
  return v;
}

// "2 arguments", "1 argument" (typer_arguments.cpp).
std::string plural(size_t n, const char *word);

// How a call's errors name the function called: "function <name> takes no keyword arguments",
// "... expects 2 arguments, got 3", "... does not accept <type>", each ending in `note` (the
// signature, for libdevice's, bf16's and fp8's functions); an error of keyword arguments is at the
// first of them where `at_keyword`, else at the call.
struct Callee {
  std::string name;
  std::string note = "";
  bool at_keyword = false;
};

// A call's arguments typed as scalars, and their scalar types.
struct ScalarCall {
  std::vector<ir::ExprPtr> args;
  std::vector<Scalar> types;
};

class FunctionTyper {
public:
  // `arg_types`: those of the parameters not in `statics` (compile-time arguments).
  FunctionTyper(ModuleBuilder &module, const FunctionSource &source,
                const std::vector<Type> &arg_types, bool is_kernel, std::string unique_name,
                StaticArgs statics = {});
  ir::Function run();
  // One attempt at typing the function (run() retries with loop variables versioned).
  ir::Function type_function();
  // The type the returns typed so far unify to: none for a function that returns no value,
  // nullopt before the first of its value returns is typed.
  std::optional<Type> return_type_so_far() const;
  // A CompileError at the function's `def`.
  [[noreturn]] void error_at_definition(const std::string &message) const {
    error(def_.loc, message);
  }

private:
  struct Deferred {}; // a local's type is not known yet in this round

  // rounds
  void start_round();
  void collect_locals(const std::vector<ast::StmtPtr> &body);
  void collect_string_constants();                       // string_constants_ from the locals
  bool binds_once(const std::string &name) const;        // one plain `name = value` in the function
  const Binding &binding(const std::string &name) const; // of bindings_ (count 0 if none)
  void collect_inner_functions(const std::vector<ast::StmtPtr> &body);
  void unrolled_for(const ast::Stmt &s);                  // for v in literal_unroll(t)
  Value inline_call(const Value &fn, const ast::Expr &e); // a nested def's or lambda's call
  // a nested def as a device function of its own (typer_closure.cpp): Numba's make_function
  // -> JIT function, its free variables the enclosing function's constants
  Value function_value(const Value &inner);
  std::shared_ptr<FunctionSource> closure_source(const ast::FunctionDef &def, int depth);
  GlobalValue captured_value(const std::string &name, int depth);
  // Numba's dead branch pruning of top-level `if`s of constant conditions (typer_prune.cpp)
  void prune_constant_branches();
  std::optional<bool> constant_condition(const ast::Expr &e, const Bindings &bound) const;
  void collect_target(const ast::Expr &target);

  // statements (typer_stmt.cpp)
  std::vector<ir::Stmt> block(const std::vector<ast::StmtPtr> &body);
  void stmt(const ast::Stmt &s);
  void assign(const ast::Expr &target, Value value, ir::Loc loc);
  void assign_name(const std::string &name, ir::ExprPtr value, ir::Loc loc);
  void assign_subscript(const ast::Expr &target, ir::ExprPtr value, ir::Loc loc);
  void unpack(const ast::Expr &target, ir::ExprPtr value, ir::Loc loc);
  void aug_assign(const ast::Stmt &s);
  void if_stmt(const ast::Stmt &s);
  void while_stmt(const ast::Stmt &s);
  void for_stmt(const ast::Stmt &s);
  void return_stmt(const ast::Stmt &s);
  void raise_stmt(const ast::Stmt &s);
  void assert_stmt(const ast::Stmt &s);
  void emit(ir::Stmt s);

  // expressions (typer_expr.cpp)
  Value value(const ast::Expr &e);
  // The int constant `value` that `e` (an int literal, or an operator expression CPython folds)
  // is, or a CompileError when Numba could not type it (past uint64, or below int64).
  ir::ExprPtr int_constant(const FoldedInt &value, const ast::Expr &e) const;
  // The left-associative chain of operators whose outermost is `e` (a BinOp), typed in a loop.
  ir::ExprPtr binary_chain(const ast::Expr &e);
  ir::ExprPtr rvalue(const ast::Expr &e);
  ir::ExprPtr rvalue_of(Value v, ir::Loc loc); // `v` as a value, or an error at `loc`
  // Numba's OptionalType: the value of `e` (TypeError when it is None), and None of type `t`.
  ir::ExprPtr optional_value(ir::ExprPtr e, ir::Loc loc);
  ir::ExprPtr optional_none(const Type &t, ir::Loc loc) const;
  // Part 0 (whether it is not None, bool) or 1 (its value, unchecked) of an optional.
  ir::ExprPtr optional_part(ir::ExprPtr optional, int part, ir::Loc loc) const;
  // Emits `if condition: raise exception(message)`.
  void raise_if(ir::ExprPtr condition, const std::string &exception, std::string message,
                ir::Loc loc);
  ir::ExprPtr condition(const ast::Expr &e);
  Value name(const ast::Expr &e);
  Value global(const std::string &name, ir::Loc loc);
  Value from_global(const GlobalValue &g, const std::string &name, ir::Loc loc);
  Value global_constant(const GlobalValue &g, const std::string &name, ir::Loc loc);
  Value attribute(const ast::Expr &e);
  // The attribute `attr` of a value already typed.
  Value attribute_of(Value base, const std::string &attr, ir::Loc loc);
  Value path_attribute(const std::string &path, ir::Loc loc);
  Value array_attribute(ir::ExprPtr array, const std::string &attr, ir::Loc loc);
  Value array_ctypes_attribute(ir::ExprPtr array, const std::string &attr, ir::Loc loc);
  ir::ExprPtr subscript(const ast::Expr &e);
  std::vector<ir::ExprPtr> array_indices(const ir::Expr &array, const ast::Expr &index, ir::Loc loc,
                                         bool allow_partial = false);
  ir::ExprPtr unary(const ast::Expr &e);
  ir::ExprPtr binary(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc);
  ir::ExprPtr compare(const ast::Expr &e);
  ir::ExprPtr compare_pair(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc);
  ir::ExprPtr bool_op(const ast::Expr &e);
  ir::ExprPtr if_exp(const ast::Expr &e);

  // views and tuple indexing (typer_view.cpp)
  ir::ExprPtr array_subscript(ir::ExprPtr array, const ast::Expr &index, ir::Loc loc);
  // a[i:j] = (x, y): a tuple of one scalar type into a 1-d view (frontend/typer_slice_store.cpp).
  void store_tuple_into_view(ir::ExprPtr view, ir::ExprPtr value, ir::Loc loc);
  // Augmented assignment to a slice or Ellipsis subscript (a[1:3] += 1) is an error, as in Numba's
  // CUDA target, which has no in-place array operators (frontend/typer_ellipsis.cpp).
  void reject_view_aug_assign(const ast::Expr &index, ir::Loc loc);
  // array_subscript of an index holding an Ellipsis (frontend/typer_ellipsis.cpp).
  ir::ExprPtr ellipsis_subscript(ir::ExprPtr array, const ast::Expr &index, ir::Loc loc);
  ir::ExprPtr slice_operand(const ast::Expr &slice);
  void store_into_view(ir::ExprPtr view, ir::ExprPtr value, ir::Loc loc);
  ir::ExprPtr tuple_index(ir::ExprPtr tuple, ir::ExprPtr index, ir::Loc loc);
  ir::ExprPtr tuple_item(ir::ExprPtr tuple, int i, ir::Loc loc); // tuple[i], i a constant
  ir::ExprPtr tuple_equal(ir::ExprPtr lhs, ir::ExprPtr rhs, bool equal, ir::Loc loc);
  // lhs < rhs (<=, >, >=) of tuples, as Python orders them
  // The elements of `tuples` in order, all `times` times over: t1 + t2, t * 3 (a plain tuple).
  ir::ExprPtr tuple_repeat(std::vector<ir::ExprPtr> tuples, int64_t times, ir::Loc loc);
  // a.sum(), a.prod(), a.min(), a.max(), a.mean() (and NumPy's functions of an array)
  ir::ExprPtr array_reduction(const std::string &op, ir::ExprPtr array, ir::Loc loc);
  ir::ExprPtr transposed(ir::ExprPtr array, ir::Loc loc); // a.T
  ir::ExprPtr tuple_display(const ast::Expr &e);          // (a, b): a TupleMake
  ir::ExprPtr iterated(const ast::Expr &e); // an iterable or `in` operand (lists as tuples)
  ir::ExprPtr tuple_slice(ir::ExprPtr tuple, const ast::Expr &slice, ir::Loc loc); // t[1:]
  ir::ExprPtr tuple_order(ir::ExprPtr lhs, ir::ExprPtr rhs, Operator op, ir::Loc loc);
  ir::ExprPtr tuple_contains(ir::ExprPtr item, ir::ExprPtr tuple, ir::Loc loc);

  // for loops over arrays, tuples, enumerate() and zip() (typer_loop.cpp)
  struct Iterable;
  Iterable iterable(const ast::Expr &e);
  ir::ExprPtr iteration_count(const Iterable &it, ir::Loc loc);
  ir::ExprPtr iteration_item(const Iterable &it, const ir::Expr &counter, ir::Loc loc);
  void for_each(const ast::Stmt &s);

  // device function arguments (typer_call.cpp)
  // The runtime arguments of a call of device function `fn` (null where a parameter takes a
  // compile-time value, then in `statics`).
  std::vector<ir::ExprPtr> device_call_args(const FunctionSource &fn, const ast::Expr &e,
                                            StaticArgs &statics);
  // `v` as a compile-time argument for parameter `param` of `def`, or nothing.
  std::optional<StaticArg> static_argument(const Value &v, const ast::FunctionDef &def,
                                           const std::string &param) const;
  ir::ExprPtr default_argument(const FunctionSource &fn, const ast::Param &param, ir::Loc loc);

  // The call families (typer_calls.h), each registering the paths it types from its own file.
  friend const CallRegistry &call_registry();
  static CallFamily builtin_calls();        // builtins, np.abs, modules (typer_call.cpp)
  static CallFamily print_calls();          // typer_print.cpp
  static CallFamily complex_calls();        // complex(), cmath (typer_complex.cpp)
  static CallFamily operator_calls();       // typer_operator.cpp
  static CallFamily cuda_calls();           // grid, syncthreads, arrays (typer_call.cpp)
  static CallFamily atomic_calls();         // typer_call.cpp
  static CallFamily cuda_intrinsic_calls(); // typer_cuda.cpp
  static CallFamily warp_calls();           // typer_warp.cpp
  static CallFamily libdevice_calls();      // typer_libdevice.cpp
  static CallFamily bf16_calls();           // typer_bf16.cpp
  static CallFamily fp8_calls();            // typer_fp8.cpp
  static CallFamily reduction_calls();      // np.sum, np.amax, ... (typer_view.cpp)
  static CallFamily allocation_calls();     // typer_alloc.cpp
  static CallFamily ufunc_calls();          // typer_ufunc.cpp
  static CallFamily math_calls();           // math and numpy functions (typer_call.cpp)
  // The call of a module, typed as Python's TypeError (typer_calls.cpp).
  [[noreturn]] static Value not_callable(FunctionTyper &typer, const std::string &,
                                         const ast::Expr &e);

  // calls (typer_call.cpp)
  Value call(const ast::Expr &e);
  // The call `e` of `fn`, the callee already typed.
  Value call_value(Value fn, const ast::Expr &e);
  Value call_path(const std::string &path, const ast::Expr &e); // by the registry (typer_calls.cpp)
  // len(x), int(x), float(x), bool(x), abs(x)
  Value call_builtin(const std::string &name, const ast::Expr &e);
  Value breakpoint(const ast::Expr &e);
  ir::ExprPtr divmod(const ast::Expr &e);
  Value syncthreads(const ast::Expr &e);
  // print() (typer_print.cpp): its items, tuples and dim3 values spelled out
  Value call_print(const ast::Expr &e);
  // Arrays the kernel allocates (typer_alloc.cpp): np.empty and kin, np.copy, array.copy().
  Value call_allocation(const std::string &name, const ast::Expr &e);
  ir::ExprPtr array_copy(ir::ExprPtr array, ir::Loc loc);
  std::vector<ir::ExprPtr> shape_extents(const ast::Expr &shape);
  // Values given as extents (integers, or one tuple of them where `tuple_allowed`), each cast to
  // int64 and held stable; `what` begins the error for any other type.
  std::vector<ir::ExprPtr> int64_extents(std::vector<ir::ExprPtr> values, bool tuple_allowed,
                                         const std::string &what, ir::Loc loc);
  // `body` inside a loop per axis of `array`, counters[axis] counting that axis, the last
  // innermost (typer_loop.cpp).
  std::vector<ir::Stmt> looped_over_axes(const ir::Expr &array, const std::vector<int> &counters,
                                         std::vector<ir::Stmt> body, ir::Loc loc);
  ir::ExprPtr allocated_array(Scalar dtype, std::vector<ir::ExprPtr> extents, bool zeroed,
                              ir::Loc loc);
  void copy_elements(ir::ExprPtr dst, ir::ExprPtr src, ir::Loc loc);
  // array.reshape(...) (typer_reshape.cpp)
  ir::ExprPtr reshaped(ir::ExprPtr array, const ast::Expr &call);
  std::vector<ir::ExprPtr> reshape_extents(const ast::Expr &call);
  void print_item(Value v, ir::Loc loc, std::vector<ir::ExprPtr> &items);
  void print_tuple(std::vector<Value> elements, ir::Loc loc, std::vector<ir::ExprPtr> &items);
  Value call_math(const std::string &module, const std::string &name, const ast::Expr &e);
  Value call_function(const std::shared_ptr<FunctionSource> &fn, const ast::Expr &e);
  const FunctionSignature &declared_signature(const FunctionSource &fn,
                                              const std::vector<ir::ExprPtr> &args,
                                              const ast::Expr &e);
  ir::ExprPtr zero_d_index(ir::ExprPtr index);
  Value call_overload(const std::string &name, const ast::Expr &e);
  Value call_extern(const ExternFunction &fn, const ast::Expr &e);
  Value call_atomic(const std::string &name, const ast::Expr &e);
  // operator.add(a, b), ... (typer_operator.cpp)
  Value call_operator(const std::string &name, const ast::Expr &e);
  Value array_decl(const std::string &kind, const ast::Expr &e);
  ir::ExprPtr grid(bool size, const ast::Expr &e);
  ir::ExprPtr min_max(bool is_max, const ast::Expr &e);
  ir::ExprPtr round(const ast::Expr &e);
  // CUDA intrinsics and the thread block group (typer_cuda.cpp)
  Value call_cuda_function(const CudaFunction &fn, const std::string &full, const ast::Expr &e);
  Value cache_hinted_access(const std::string &name, const ast::Expr &e);
  Value call_fence(ir::Intrinsic fence, const ast::Expr &e); // threadfence*, nanosleep
  Value thread_block_sync(const ast::Expr &e);
  Value grid_sync(const ast::Expr &e);
  ir::ExprPtr selp(const ast::Expr &e);
  Value thread_block_attribute(const std::string &attr, ir::Loc loc);
  ir::ExprPtr vector_constructor(const std::string &fn, const Type &vector, const ast::Expr &e);
  Value vector_attribute(ir::ExprPtr vector, const std::string &attr, ir::Loc loc);
  // Enum members' .value, namedtuples' fields.
  Value nominal_attribute(ir::ExprPtr value, const std::string &attr, ir::Loc loc);
  Value call_warp_intrinsic(ir::Intrinsic id, const ast::Expr &e); // typer_warp.cpp
  // libdevice.<name>(...) (numba.cuda.libdevice; typer_libdevice.cpp)
  Value call_libdevice(const std::string &name, const ast::Expr &e);
  // numba.cuda.bf16.<name>(args) (ir/bf16.def)
  Value call_bf16(const std::string &name, const ast::Expr &e);
  // The call of bf16 function `fn` on already typed arguments (converted to its parameters).
  ir::ExprPtr bf16_call(ir::Bf16Fn fn, std::vector<ir::ExprPtr> args, ir::Loc loc);
  // numba.cuda._internal.cuda_fp8.<name>(x, saturate, mode) and its value types' constructors
  // <type>(x) (ir/fp8.def; typer_fp8.cpp)
  Value call_fp8(const std::string &name, const ast::Expr &e);
  ir::ExprPtr fp8_constructor(ir::Fp8Type type, const ast::Expr &e);
  // An explicit conversion of x to `to`, as number classes (float32(x)), int(), float() and
  // truth make it: a Storage value's own conversion operators (an FP8 value's), else cast().
  ir::ExprPtr explicit_conversion(ir::ExprPtr x, Scalar to);
  // The fields of Storage values: __x of the FP8 x2 / x4 forms, x of a bfloat16_raw.
  Value storage_attribute(ir::ExprPtr value, const std::string &attr, ir::Loc loc);
  Value grid_group_attribute(const std::string &attr, ir::Loc loc);
  // arguments of calls (typer_arguments.cpp)
  // By parameter name: `required` of `params` at least, keywords for any of them.
  std::vector<const ast::Expr *> call_args(const ast::Expr &e, const std::string &fn,
                                           const std::vector<std::string> &params, size_t required);
  // By position: `count` of them, no keywords; untyped, or typed.
  std::vector<const ast::Expr *> positional_ast_args(const ast::Expr &e, const Callee &fn,
                                                     size_t count);
  std::vector<ir::ExprPtr> positional_args(const ast::Expr &e, const std::string &fn, size_t count);
  // The call of a function of numbers: `arity` positional arguments, each typed as a scalar that
  // `accepts` takes (any scalar where none is given).
  ScalarCall type_scalar_call(const ast::Expr &e, const Callee &fn, size_t arity,
                              const std::function<bool(const Type &)> &accepts = nullptr);
  // "function <name> does not accept <type>", at the argument.
  [[noreturn]] void refuse_argument(const ast::Expr &arg, const Type &type, const Callee &fn) const;
  Scalar dtype_of(const ast::Expr &e);
  ir::ArrayElements elements_of(const ast::Expr &e); // a dtype, scalar or structured
  std::vector<int64_t> constant_shape(const ast::Expr &e);
  int64_t array_alignment(const ast::Expr *e);
  // `e` with locals assigned once from a constant replaced by it (typer_constant.cpp).
  ast::ExprPtr constant_definition(const ast::Expr &e, int depth = 0);

  // records (typer_record.cpp)
  int field_index(const Type &record, const std::string &name, ir::Loc loc) const;
  int field_key(const Type &record, const ast::Expr &key); // rec['name']
  // The text of a string literal, or of a global or closure variable holding a str.
  std::optional<std::string> constant_string(const ast::Expr &e);
  ir::ExprPtr field_load(ir::ExprPtr record, int field, ir::Loc loc) const;
  void field_store(ir::ExprPtr record, int field, ir::ExprPtr value, ir::Loc loc);
  void aug_assign_field(ir::ExprPtr record, int field, const ast::Stmt &s);
  void nested_field_copy(ir::ExprPtr record, int field, ir::ExprPtr value, ir::Loc loc);
  // `store` holds the record array and its indices; appends the Record value and emits it.
  void record_store(ir::Stmt store, ir::ExprPtr value);
  // A str or bytes constant (an ir String) into the character sequence `chars` (a Record value).
  void store_chars(ir::ExprPtr chars, const ir::Expr &text, ir::Loc loc);
  // array.view(dtype) (typer_view.cpp)
  ir::ExprPtr dtype_view(ir::ExprPtr array, const ast::Expr &call);
  // A copy of `call` whose *tuple arguments, evaluated into temps, are their elements.
  ast::ExprPtr expand_star_arguments(const ast::Expr &call);

  // helpers (typer.cpp)
  [[noreturn]] void error(ir::Loc loc, const std::string &message) const;
  // Stores, atomics and in-place operators into `target` (an array or record) need it writable:
  // not a constant array, nor a read-only one (Numba's readonly array) or a record of one.
  void require_writable(const ir::Expr &target, ir::Loc loc) const;
  // One level deeper in the module's nesting at `loc` (every expression and statement).
  void deeper(Nesting &nesting, ir::Loc loc);
  ir::ExprPtr cast(ir::ExprPtr e, const Type &to);
  // datetime64 and timedelta64 (typer_datetime.cpp)
  ir::ExprPtr time_cast(ir::ExprPtr e, const Type &to);
  ir::ExprPtr time_binary(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc);
  ir::ExprPtr timedelta_scaled(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, bool by_float,
                               ir::Loc loc);
  ir::ExprPtr time_compare(Operator op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc);
  ir::ExprPtr time_unary(Operator op, ir::ExprPtr operand, ir::Loc loc);
  ir::ExprPtr time_count(const ir::Expr &time) const; // a copy of a stable time, as int64
  ir::ExprPtr is_not_a_time(const ir::Expr &time) const;
  // `value` typed `result`, or NaT where any of `nat_tests` holds.
  ir::ExprPtr unless_not_a_time(std::vector<ir::ExprPtr> nat_tests, ir::ExprPtr value,
                                const Type &result);
  // complex numbers (typer_complex.cpp)
  ir::ExprPtr fold_complex_cast(ir::ExprPtr constant, Scalar to) const;
  ir::ExprPtr complex_const(Scalar s, double real, double imag, ir::Loc loc) const;
  ir::ExprPtr complex_part(ir::ExprPtr z, bool imag, ir::Loc loc) const;
  Value number_attribute(ir::ExprPtr number, const std::string &attr, ir::Loc loc);
  Value call_complex(const ast::Expr &e);
  Value call_cmath(const std::string &name, const ast::Expr &e);
  // A call of the complex prelude's function `name`, its result cast to `result`.
  ir::ExprPtr call_prelude(const std::string &name, std::vector<ir::ExprPtr> args, Scalar result,
                           ir::Loc loc);
  // `/` and `**` on two complexes of one type (Numba's complex_div and the CUDA cpow).
  ir::ExprPtr complex_binary(ir::Op op, ir::ExprPtr lhs, ir::ExprPtr rhs, ir::Loc loc);
  ir::ExprPtr complex_abs(ir::ExprPtr z, ir::Loc loc);
  // NumPy ufuncs (typer_ufunc.cpp): np.<ufunc>(inputs[, out]) of scalars or arrays, the loop
  // over an out array, and the element operations (typer_ufunc_element.cpp)
  Value call_ufunc(const Ufunc &u, const ast::Expr &e);
  ir::ExprPtr ufunc_loop_call(const Ufunc &u, const UfuncLoop &loop, std::vector<ir::ExprPtr> args,
                              ir::Loc loc);
  ir::ExprPtr ufunc_element(const Ufunc &u, const UfuncLoop &loop, std::vector<ir::ExprPtr> args,
                            ir::Loc loc);
  ir::ExprPtr ufunc_math(const Ufunc &u, const UfuncLoop &loop, std::vector<ir::ExprPtr> args,
                         ir::Loc loc);
  ir::ExprPtr ufunc_truth(ir::ExprPtr x, ir::Loc loc);
  ir::ExprPtr ufunc_predicate(const std::string &name, ir::ExprPtr x, ir::Loc loc);
  ir::ExprPtr ufunc_compare(Operator op, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc);
  ir::ExprPtr ufunc_min_max(const std::string &op, ir::ExprPtr a, ir::ExprPtr b, ir::Loc loc);
  ir::ExprPtr to_bool(ir::ExprPtr e);
  ir::ExprPtr scalar_const(Scalar s, int64_t i, double f, ir::Loc loc) const;
  ir::ExprPtr local(int slot, ir::Loc loc) const;
  ir::ExprPtr clone(const ir::Expr &e) const;
  ir::ExprPtr stable(ir::ExprPtr e); // a copy-safe expr: itself if pure and cheap, else a temp
  int temp_holding(ir::ExprPtr e);   // a new temporary assigned `e` (emitted): its slot
  int slot_for(const std::string &name, ir::Loc loc);
  int new_temp(const Type &type);

  ModuleBuilder &module_;
  const FunctionSource &source_;
  std::vector<Type> arg_types_;
  StaticArgs statics_; // parameters bound to compile-time values (not locals)
  // The statement just typed was a constant `if` whose branch taken returns or raises.
  bool rest_unreachable_ = false;
  // Locals bound once, to a string literal: names of the constant (msg = "..."; raise E(msg)),
  // as Numba's literal strings.
  std::map<std::string, std::string> string_constants_;
  // Locals bound once to what is no run-time value: None (or a call returning nothing: Numba's
  // none-typed variables), a dtype (`dtype = a.dtype`), a function or module: names for it.
  std::map<std::string, CompileTimeValue> value_names_;
  // Nested defs and lambdas bound once to a name (inlined where called, as Numba's closures),
  // and while one is inlined, its parameters' slots.
  std::map<std::string, std::shared_ptr<const ast::FunctionDef>> inner_functions_;
  std::map<std::string, int> inline_scope_;
  int inline_depth_ = 0;
  bool is_kernel_;
  std::string unique_name_;
  ast::FunctionDef def_;
  std::vector<std::string> lines_;
  Bindings bindings_; // of def_'s body, taken when typing starts (one walk, not one per name)

  // The function's locals and the types everything assigned to each (and returned) unifies to:
  // they widen from round to round, and start afresh when run() retries with loop variables
  // versioned.
  struct Scope {
    std::set<std::string> locals;
    std::map<std::string, Type> types;
    std::optional<Type> return_type;
  };
  Scope scope_;

  // One round of typing the body, started afresh by start_round().
  struct Round {
    std::map<std::string, int> slots;     // the locals', by name
    std::vector<ir::Stmt> prologue;       // copies of retyped parameters into their locals
    std::vector<ir::Stmt> *out = nullptr; // where statements typed now go (emit())
    int temps = 0;
    int loop_depth = 0;
    bool changed = false;  // a local's or the return's type widened: the round is redone
    bool deferred = false; // a statement waits for a local's type (defer())
    bool returns_none = false;
    // Why the first statement dropped in this round waits (its error if nothing changes).
    std::string deferred_error;
    ir::Loc deferred_loc;
  };
  Round round_;
  ir::Function fn_; // what the current round types

  // The local whose assignments' types did not unify (the last error's), "" when none.
  std::string conflicting_local_;
  // Where a name split apart by param_versions.h means its slot, by the slot's name.
  std::map<std::string, std::pair<int, int>> version_lines_;
  // Defers the current statement to the next round, for the reason `error` (see block()).
  [[noreturn]] void defer(const std::string &error, ir::Loc loc);
};

} // namespace simt
