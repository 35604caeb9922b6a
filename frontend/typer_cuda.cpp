// CUDA intrinsics beyond the thread indexing and memory (cuda.popc, cuda.selp, cuda.threadfence,
// cuda.syncthreads_count, ...), the thread block group cuda.cg.this_thread_block() and the grid
// group cuda.cg.this_grid().
//
// The thread block group is a simt extension (Numba has only cuda.cg.this_grid()): a value of
// type ThreadBlock with the attributes thread_rank (the thread's linear index in the block,
// int32), size (the threads in the block, int32) and the method sync() (cuda.syncthreads()). It
// holds no state, so reading an attribute does not evaluate the group expression itself; groups
// may be stored in variables and passed to device functions.
//
// The grid group is Numba's (cudadecl.py's Cuda_cg_this_grid and GridGroup_attrs): a value of type
// GridGroup whose one attribute is the method sync(), the grid-wide barrier, which returns int32
// (0). A kernel that reaches it is launched cooperatively.
#include "frontend/builtins.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

#include <algorithm>
#include <optional>

namespace simt {

namespace {

// The paths a group's sync() method resolves to (typed by cuda_intrinsic_calls).
const char *const kThreadBlockSync = "cuda.cg.ThreadBlock.sync";
const char *const kGridGroupSync = "cuda.cg.GridGroup.sync";

// cuda.threadfence, threadfence_block, threadfence_system and nanosleep: statements of no value.
std::optional<ir::Intrinsic> fence_or_sleep(const std::string &name) {
  for (ir::Intrinsic id : {ir::Intrinsic::Threadfence, ir::Intrinsic::ThreadfenceBlock,
                           ir::Intrinsic::ThreadfenceSystem, ir::Intrinsic::Nanosleep})
    if (name == ir::intrinsic_name(id))
      return id;
  return std::nullopt;
}

} // namespace

CallFamily FunctionTyper::cuda_intrinsic_calls() {
  using Name = const std::string &;
  return {"cuda intrinsics",
          {{"cuda.",
            [](FunctionTyper &t, Name name, const ast::Expr &e) {
              return t.call_cuda_function(*find_cuda_function(name), "cuda." + name, e);
            },
            [](Name name) { return find_cuda_function(name) != nullptr; }},
           {"cuda.selp",
            [](FunctionTyper &t, Name, const ast::Expr &e) { return expr_value(t.selp(e)); }},
           {"cuda.",
            [](FunctionTyper &t, Name name, const ast::Expr &e) {
              return t.cache_hinted_access(name, e);
            },
            [](Name name) { return is_cache_hinted_load(name) || is_cache_hinted_store(name); }},
           {"cuda.",
            [](FunctionTyper &t, Name name, const ast::Expr &e) {
              Scalar base;
              int count;
              parse_vector_type_name(name, base, count);
              return expr_value(
                  t.vector_constructor("cuda." + name, Type::vector_of(base, count), e));
            },
            [](Name name) {
              Scalar base;
              int count;
              return parse_vector_type_name(name, base, count);
            }},
           {"cuda.",
            [](FunctionTyper &t, Name name, const ast::Expr &e) {
              return t.call_fence(*fence_or_sleep(name), e);
            },
            [](Name name) { return fence_or_sleep(name).has_value(); }},
           {"cuda.cg.this_thread_block",
            [](FunctionTyper &t, Name path, const ast::Expr &e) {
              t.positional_args(e, path, 0);
              return expr_value(
                  make_intrinsic(ir::Intrinsic::ThisThreadBlock, Type::thread_block(), e.loc));
            }},
           {"cuda.cg.this_grid",
            [](FunctionTyper &t, Name path, const ast::Expr &e) {
              t.positional_args(e, path, 0);
              return expr_value(make_intrinsic(ir::Intrinsic::ThisGrid, Type::grid_group(), e.loc));
            }},
           {kThreadBlockSync,
            [](FunctionTyper &t, Name, const ast::Expr &e) { return t.thread_block_sync(e); }},
           {kGridGroupSync,
            [](FunctionTyper &t, Name, const ast::Expr &e) { return t.grid_sync(e); }}}};
}

// cuda.<name>(args) of the table of cudadecl.py's cases (builtins.h): popc, fma, fp16.hadd, ...
Value FunctionTyper::call_cuda_function(const CudaFunction &fn, const std::string &full,
                                        const ast::Expr &e) {
  auto [args, types] = type_scalar_call(e, {.name = full}, fn.cases.front().params.size());
  auto chosen = select_overload(types, fn.cases); // none only for complex operands
  if (!chosen)
    error(e.loc, "function " + full + " does not accept complex numbers");
  Signature sig = *chosen;
  auto call = make_intrinsic(fn.intrinsic, Type::scalar_of(sig.result), e.loc);
  for (size_t i = 0; i < args.size(); ++i)
    call->args.push_back(cast(std::move(args[i]), Type::scalar_of(sig.params[i])));
  return expr_value(std::move(call));
}

// cuda.ldca(array, i) and kin: array[i]; cuda.stcg(array, i, value) and kin: array[i] = value.
Value FunctionTyper::cache_hinted_access(const std::string &name, const ast::Expr &e) {
  const bool store = is_cache_hinted_store(name);
  auto args = positional_ast_args(e, {.name = "cuda." + name, .at_keyword = true}, store ? 3 : 2);
  auto element = std::make_unique<ast::Expr>(); // array[i]
  element->kind = ast::ExprKind::Subscript;
  element->loc = e.loc;
  element->elts.push_back(copy_ast(*args[0]));
  element->elts.push_back(copy_ast(*args[1]));
  if (!store)
    return value(*element);
  assign_subscript(*element, rvalue(*args[2]), e.loc);
  return Value{};
}

Value FunctionTyper::call_fence(ir::Intrinsic fence, const ast::Expr &e) {
  const std::string full = std::string("cuda.") + ir::intrinsic_name(fence);
  ScalarCall typed = type_scalar_call(e, {.name = full}, ir::intrinsic_info(fence).arity);
  auto call = make_intrinsic(fence, Type::none(), e.loc);
  if (!typed.args.empty()) // nanosleep's
    call->args.push_back(cast(std::move(typed.args[0]), Type::scalar_of(Scalar::U32)));
  ir::Stmt s;
  s.kind = ir::StmtKind::Eval;
  s.loc = e.loc;
  s.exprs.push_back(std::move(call));
  emit(std::move(s));
  return Value{};
}

Value FunctionTyper::thread_block_sync(const ast::Expr &e) {
  positional_args(e, "ThreadBlock.sync", 0);
  ir::Stmt s;
  s.kind = ir::StmtKind::SyncThreads;
  s.loc = e.loc;
  emit(std::move(s));
  return Value{};
}

Value FunctionTyper::grid_sync(const ast::Expr &e) {
  positional_args(e, "GridGroup.sync", 0);
  auto sync = make_intrinsic(ir::Intrinsic::GridSync, Type::scalar_of(Scalar::I32), e.loc);
  return expr_value(std::move(sync));
}

// cuda.selp(test, a, b): a and b of one type among those PTX's selp takes (Numba's Cuda_selp).
ir::ExprPtr FunctionTyper::selp(const ast::Expr &e) {
  auto args = positional_args(e, "cuda.selp", 3);
  static const Scalar supported[] = {Scalar::F64, Scalar::F32, Scalar::I16, Scalar::U16,
                                     Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64};
  const Type &a = args[1]->type, &b = args[2]->type;
  if (a != b || !a.is_scalar() ||
      std::find(std::begin(supported), std::end(supported), a.scalar) == std::end(supported))
    error(e.loc, "function cuda.selp expects two values of one type among float64, float32, "
                 "int16, uint16, int32, uint32, int64 and uint64, got " +
                     a.str() + " and " + b.str());
  if (!args[0]->type.is_scalar())
    error(e.elts[1]->loc, "function cuda.selp does not accept " + args[0]->type.str());
  auto call = make_intrinsic(ir::Intrinsic::Selp, a, e.loc);
  call->args.push_back(to_bool(std::move(args[0])));
  call->args.push_back(std::move(args[1]));
  call->args.push_back(std::move(args[2]));
  return call;
}

// Numba's vector type constructors (vector_types.py's build_constructor_overloads): the elements
// in order, each given as a number (converted to the element type) or as a vector of the same
// element type, which gives all its elements; numba-cuda-mlir's complex number gives its real
// and imaginary parts (float2(z)).
ir::ExprPtr FunctionTyper::vector_constructor(const std::string &fn, const Type &vector,
                                              const ast::Expr &e) {
  if (!e.keywords.empty())
    error(e.loc, "function " + fn + " takes no keyword arguments");
  Type element = Type::scalar_of(vector.scalar);
  auto make = make_expr(ir::ExprKind::TupleMake, vector, e.loc);
  for (size_t i = 1; i < e.elts.size(); ++i) {
    ir::ExprPtr arg = rvalue(*e.elts[i]);
    if (arg->type.is_vector() && arg->type.scalar == vector.scalar) {
      arg = stable(std::move(arg));
      for (int k = 0; k < arg->type.ndim; ++k) {
        auto get = make_expr(ir::ExprKind::TupleGet, element, e.loc);
        get->index = k;
        get->args.push_back(clone(*arg));
        make->args.push_back(std::move(get));
      }
    } else if (arg->type.is_scalar() && is_complex(arg->type.scalar)) {
      arg = stable(std::move(arg));
      make->args.push_back(cast(complex_part(clone(*arg), false, e.loc), element));
      make->args.push_back(cast(complex_part(std::move(arg), true, e.loc), element));
    } else if (arg->type.is_scalar()) {
      make->args.push_back(cast(std::move(arg), element));
    } else {
      error(e.elts[i]->loc, "function " + fn + " does not accept " + arg->type.str());
    }
  }
  if (make->args.size() != size_t(vector.ndim))
    error(e.loc, "function " + fn + " expects " + std::to_string(vector.ndim) +
                     " elements (numbers or " + scalar_name(vector.scalar) + " vectors), got " +
                     std::to_string(make->args.size()));
  return make;
}

Value FunctionTyper::vector_attribute(ir::ExprPtr vector, const std::string &attr, ir::Loc loc) {
  static const std::string names = "xyzw";
  size_t k = attr.size() == 1 ? names.find(attr[0]) : std::string::npos;
  if (k == std::string::npos || int(k) >= vector->type.ndim)
    error(loc, "unknown attribute '" + attr + "' of " + vector->type.str());
  auto get = make_expr(ir::ExprKind::TupleGet, Type::scalar_of(vector->type.scalar), loc);
  get->index = int(k);
  get->args.push_back(std::move(vector));
  return expr_value(std::move(get));
}

Value FunctionTyper::thread_block_attribute(const std::string &attr, ir::Loc loc) {
  if (attr ==
      "thread_rank") { // threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
    auto yz =
        make_binary(ir::Op::Add, Scalar::I32, make_special(ir::Op::ThreadIdx, 1, loc),
                    make_binary(ir::Op::Mul, Scalar::I32, make_special(ir::Op::BlockDim, 1, loc),
                                make_special(ir::Op::ThreadIdx, 2, loc), loc),
                    loc);
    return expr_value(
        make_binary(ir::Op::Add, Scalar::I32, make_special(ir::Op::ThreadIdx, 0, loc),
                    make_binary(ir::Op::Mul, Scalar::I32, make_special(ir::Op::BlockDim, 0, loc),
                                std::move(yz), loc),
                    loc));
  }
  if (attr == "size")
    return expr_value(
        make_binary(ir::Op::Mul, Scalar::I32,
                    make_binary(ir::Op::Mul, Scalar::I32, make_special(ir::Op::BlockDim, 0, loc),
                                make_special(ir::Op::BlockDim, 1, loc), loc),
                    make_special(ir::Op::BlockDim, 2, loc), loc));
  if (attr == "sync") {
    Value v;
    v.kind = Value::Kind::Path;
    v.path = kThreadBlockSync;
    return v;
  }
  error(loc, "unknown attribute '" + attr + "' of ThreadBlock");
}

Value FunctionTyper::grid_group_attribute(const std::string &attr, ir::Loc loc) {
  if (attr == "sync") {
    Value v;
    v.kind = Value::Kind::Path;
    v.path = kGridGroupSync;
    return v;
  }
  error(loc, "unknown attribute '" + attr + "' of GridGroup");
}

} // namespace simt
