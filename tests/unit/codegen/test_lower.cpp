// The generic lowering, through a minimal Target that records what it was asked for.
#include "analysis/spin.h"
#include "codegen/lower.h"
#include "tests/unit/ir_builder.h"

#include <doctest/doctest.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

using namespace simt;
using namespace simt::irb;
using I = simt::ir::Intrinsic;

namespace {

// Emits every target-specific operation as a call of an external function named after it, so
// tests can see what the lowering asked for.
class RecordingTarget final : public codegen::Target, public codegen::InstrumentationHooks {
public:
  std::vector<std::string> entry_points;

  void configure(llvm::Module &) override {}
  llvm::Type *environment_type(llvm::LLVMContext &ctx) override {
    return llvm::PointerType::getUnqual(ctx);
  }
  llvm::Value *special_register(codegen::Emitter &e, ir::Op op, int axis) override {
    return external(e, "sreg", e.b.getInt32Ty(), {e.b.getInt32(int(op)), e.b.getInt32(axis)});
  }
  llvm::Value *shared_memory(codegen::Emitter &e, int64_t offset) override {
    return external(e, "shared", e.b.getPtrTy(), {e.b.getInt64(offset)});
  }
  llvm::Value *dynamic_shared_bytes(codegen::Emitter &e) override {
    return external(e, "dynamic_shared_bytes", e.b.getInt64Ty(), {});
  }
  void barrier(codegen::Emitter &e, int32_t loc) override {
    external(e, "barrier", e.b.getVoidTy(), {e.b.getInt32(loc)});
  }
  llvm::Value *barrier_reduce(codegen::Emitter &e, Reduction reduction, llvm::Value *predicate,
                              int32_t loc) override {
    return external(e, "barrier_reduce", e.b.getInt32Ty(),
                    {e.b.getInt32(int32_t(reduction)), predicate, e.b.getInt32(loc)});
  }
  llvm::Value *warp_op(codegen::Emitter &e, ir::WarpOp op, llvm::Value *mask, llvm::Value *value,
                       llvm::Value *operand, int32_t loc) override {
    return external(e, "warp_op", e.b.getInt64Ty(),
                    {e.b.getInt32(int32_t(op)), mask, value, operand, e.b.getInt32(loc)});
  }
  llvm::Value *active_mask(codegen::Emitter &e, int32_t loc) override {
    return external(e, "active_mask", e.b.getInt32Ty(), {e.b.getInt32(loc)});
  }
  void grid_barrier(codegen::Emitter &e, int32_t loc) override {
    external(e, "grid_barrier", e.b.getVoidTy(), {e.b.getInt32(loc)});
  }
  void index_error(codegen::Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                   llvm::Value *loc) override {
    external(e, "index_error", e.b.getVoidTy(), {index, axis, size, loc});
  }
  void raise(codegen::Emitter &e, const std::string &exception, const std::string &,
             llvm::Value *loc) override {
    external(e, "raise." + exception, e.b.getVoidTy(), {loc});
  }
  llvm::Value *must_return(codegen::Emitter &e) override {
    return external(e, "must_return", e.b.getInt1Ty(), {});
  }
  llvm::Value *enter_recursive_call(codegen::Emitter &e) override {
    return external(e, "enter_recursive_call", e.b.getInt1Ty(), {});
  }
  void leave_recursive_call(codegen::Emitter &e) override {
    external(e, "leave_recursive_call", e.b.getVoidTy(), {});
  }
  llvm::Value *loop_back_edge(codegen::Emitter &e, bool spins, int32_t loc) override {
    return external(e, spins ? "spin_back_edge" : "back_edge", e.b.getInt1Ty(),
                    {e.b.getInt32(loc)});
  }
  void print(codegen::Emitter &e, const std::vector<codegen::PrintItem> &items) override {
    external(e, "print", e.b.getVoidTy(), {e.b.getInt32(int(items.size()))});
  }
  llvm::Value *math(codegen::Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                    Scalar) override {
    return external(e, std::string("math.") + ir::intrinsic_name(fn), args[0]->getType(), args);
  }
  codegen::InstrumentationHooks *instrumentation() override { return this; }
  void enter_function(codegen::Emitter &e, int32_t function, llvm::Value *frame) override {
    external(e, "enter", e.b.getVoidTy(), {e.b.getInt32(function), frame});
  }
  void leave_function(codegen::Emitter &e) override { external(e, "leave", e.b.getVoidTy(), {}); }
  void statement(codegen::Emitter &e, int32_t loc) override {
    external(e, "statement", e.b.getVoidTy(), {e.b.getInt32(loc)});
  }
  void breakpoint_call(codegen::Emitter &e, int32_t loc) override {
    external(e, "breakpoint", e.b.getVoidTy(), {e.b.getInt32(loc)});
  }
  void memory_access(codegen::Emitter &e, llvm::Value *address, uint32_t size, uint32_t align,
                     codegen::AccessKind kind, MemSpace space, llvm::Value *value,
                     int32_t loc) override {
    external(e, "access", e.b.getVoidTy(),
             {address, e.b.getInt32(int32_t(size)), e.b.getInt32(int32_t(align)),
              e.b.getInt32(int32_t(kind)), e.b.getInt32(int32_t(space)), value, e.b.getInt32(loc)});
  }
  void emit_entry_points(llvm::Module &, llvm::Function *body, const ir::Module &,
                         const std::string &symbol) override {
    body->setLinkage(llvm::GlobalValue::ExternalLinkage);
    entry_points.push_back(symbol);
  }

private:
  llvm::Value *external(codegen::Emitter &e, const std::string &name, llvm::Type *result,
                        std::vector<llvm::Value *> args) {
    std::vector<llvm::Type *> params{e.env->getType()};
    for (llvm::Value *arg : args)
      params.push_back(arg->getType());
    args.insert(args.begin(), e.env);
    llvm::Module &m = *e.b.GetInsertBlock()->getModule();
    return e.b.CreateCall(
        m.getOrInsertFunction("target." + name, llvm::FunctionType::get(result, params, false)),
        args);
  }
};

struct Lowered {
  llvm::LLVMContext ctx;
  RecordingTarget target;
  codegen::LoweredModule result;
  std::string text;

  explicit Lowered(const ir::Module &module) {
    result = codegen::lower(module, target, ctx, "t0.");
    std::string problems;
    llvm::raw_string_ostream errors(problems);
    bool broken = llvm::verifyModule(*result.module, &errors);
    INFO(problems);
    CHECK_FALSE(broken);
    llvm::raw_string_ostream out(text);
    result.module->print(out, nullptr);
  }
  bool has(const std::string &needle) const { return text.find(needle) != std::string::npos; }
};

// kernel(a: float32[:], out: float32[:]): out[i] = a[i] * 2 for i = cuda.grid(1).
ir::Module scale_kernel() {
  FunctionBuilder k("scale", true);
  int a = k.param("a", array(Scalar::F32, 1));
  int out = k.param("out", array(Scalar::F32, 1));
  int i = k.var("i", i64());
  k.f.body = block(
      assign(i, grid_x()),
      store(k.get(out), list(k.get(i)),
            binary(Op::Mul, at(load(k.get(a), list(k.get(i))), 3), float_const(2, f32())), 3));
  return module_of(std::move(k.f));
}

} // namespace

TEST_CASE("lowering a kernel gives a valid module with bounds checks on the cold path") {
  Lowered l(scale_kernel());
  CHECK(l.result.symbol == "t0.scale");
  REQUIRE(l.target.entry_points.size() == 1);
  CHECK(l.has(
      "define dso_local i1 @t0.scale.body(ptr noalias %env, { ptr, [1 x i64], [1 x i64] } %a"));
  CHECK(l.has("call void @target.index_error"));
  CHECK(l.has("!prof")); // error branches carry branch weights
  CHECK(l.has("fmul float"));
  // Both accesses at line 3 share one location.
  REQUIRE(l.result.locations.size() == 1);
  CHECK(l.result.locations[0].line == 3);
  CHECK(l.result.locations[0].file == "kernel.py");
  CHECK(l.result.locations[0].function == "scale");
}

TEST_CASE("integer floor division raises on zero in the Python error model, float division not") {
  auto kernel = [] {
    FunctionBuilder k("div", true);
    int x = k.param("x", i64());
    int y = k.param("y", f64());
    int q = k.var("q", i64());
    int r = k.var("r", f64());
    k.f.body = block(assign(q, binary(Op::FloorDiv, k.get(x), k.get(x))),
                     assign(r, binary(Op::TrueDiv, k.get(y), k.get(y))),
                     assign(r, binary(Op::Mod, k.get(y), k.get(y))));
    return module_of(std::move(k.f));
  };
  Lowered numpy_model(kernel());
  CHECK_FALSE(numpy_model.has("raise.ZeroDivisionError")); // integer // 0 is 0
  CHECK(numpy_model.has("sdiv i64"));
  ir::Module python = kernel();
  python.options.python_error_model = true;
  Lowered l(python);
  CHECK(l.has("call void @target.raise.ZeroDivisionError"));
  CHECK(l.has("sdiv i64"));
  CHECK(l.has("fdiv double"));
  CHECK(l.has("frem double"));
}

TEST_CASE("atomics lower to real atomic instructions") {
  FunctionBuilder k("atomics", true);
  int f = k.param("f", array(Scalar::F64, 1));
  int u = k.param("u", array(Scalar::U32, 1));
  int n = k.param("n", array(Scalar::I64, 2));
  k.f.body = block(
      eval(atomic(Op::AtomicAdd, k.get(f), list(int_const(0)), list(float_const(1)))),
      eval(atomic(Op::AtomicMax, k.get(f), list(int_const(0)), list(float_const(1)))),
      eval(atomic(Op::AtomicInc, k.get(u), list(int_const(0)), list(int_const(5, u32())))),
      eval(atomic(Op::AtomicDec, k.get(u), list(int_const(0)), list(int_const(5, u32())))),
      eval(atomic(Op::AtomicMin, k.get(n), list(int_const(0), int_const(1)), list(int_const(3)))),
      eval(atomic(Op::AtomicCas, k.get(n), list(int_const(0), int_const(1)),
                  list(int_const(3), int_const(4)))));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("atomicrmw fadd ptr"));
  CHECK(l.has("atomicrmw uinc_wrap ptr"));
  CHECK(l.has("atomicrmw udec_wrap ptr"));
  CHECK(l.has("atomicrmw min ptr"));
  CHECK(l.has("cmpxchg ptr"));
  CHECK_FALSE(l.has("atomicrmw fmax")); // NaN-propagating max is a compare-exchange loop
}

TEST_CASE("device calls are followed by a status check only when the callee can fault") {
  FunctionBuilder pure("pure", false, i64());
  int p = pure.param("v", i64());
  pure.f.body = block(ret(binary(Op::Add, pure.get(p), int_const(1))));
  FunctionBuilder faulty("faulty", false, i64());
  int q = faulty.param("v", i64());
  faulty.f.body = block(ret(binary(Op::FloorDiv, int_const(10), faulty.get(q))));

  FunctionBuilder k("caller", true);
  int x = k.var("x", i64());
  k.f.body = block(assign(x, call(1, i64(), list(int_const(1)))),
                   assign(x, call(2, i64(), list(k.get(x)))));
  Lowered l(module_of(std::move(k.f), std::move(pure.f), std::move(faulty.f)));
  CHECK(l.has("define internal i64 @t0.pure(ptr noalias %env, i64 %v)"));
  // One must_return query: after the call of `faulty` only.
  size_t first = l.text.find("call i1 @target.must_return");
  REQUIRE(first != std::string::npos);
  CHECK(l.text.find("call i1 @target.must_return", first + 1) == std::string::npos);
}

TEST_CASE("for range checks the step, tuples are structs, casts saturate") {
  FunctionBuilder k("loops", true);
  int n = k.param("n", i64());
  int step = k.param("step", i64());
  int i = k.var("i", i64());
  int t = k.var("t", Type::tuple_of({i64(), f64()}));
  int z = k.var("z", i32());
  k.f.body = block(
      for_range(i, int_const(0), k.get(n), k.get(step), block(print(list(text("i"), k.get(i))))),
      assign(t, tuple(list(k.get(i), float_const(2.5)))), assign(z, cast(get(k.get(t), 1), i32())));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("call void @target.raise.ValueError"));
  CHECK(l.has("call void @target.print"));
  CHECK(l.has("alloca { i64, double }"));
  CHECK(l.has("llvm.fptosi.sat.i32.f64"));
}

TEST_CASE("shared, local and const arrays") {
  FunctionBuilder k("memories", true);
  ir::Module m;
  ir::SharedArrayDecl shared{Scalar::F32, {4, 8}, 16, false};
  ir::SharedArrayDecl dynamic{Scalar::F64, {}, 0, true};
  ir::LocalArrayDecl local{Scalar::I32, {3}};
  ir::ConstArrayDecl constant{Scalar::I64, {2}, std::vector<uint8_t>(16, 1)};
  k.f.local_arrays.push_back(local);
  int x = k.var("x", f64());
  k.f.body =
      block(store(shared_array(0, shared), list(int_const(1), int_const(2)), float_const(1, f32())),
            store(local_array(0, local), list(int_const(2)), int_const(7, i32())),
            assign(x, load(shared_array(1, dynamic), list(int_const(0)))),
            assign(x, cast(load(const_array(0, constant), list(int_const(1))), f64())));
  m.functions.push_back(std::move(k.f));
  m.shared_arrays = {shared, dynamic};
  m.const_arrays = {constant};
  m.static_shared_bytes = 144;
  Lowered l(m);
  CHECK(l.has("call ptr @target.shared(ptr %env, i64 16)"));
  CHECK(l.has("call ptr @target.shared(ptr %env, i64 144)"));
  CHECK(l.has("call i64 @target.dynamic_shared_bytes"));
  CHECK(l.has("alloca i8, i64 12, align 16"));
  CHECK(l.has("@t0.const.0 = private unnamed_addr constant [16 x i8]"));
}

TEST_CASE("cuda intrinsics lower to LLVM intrinsics, syncthreads_count to the target's barrier") {
  FunctionBuilder k("intrinsics", true);
  int u = k.param("u", u32());
  int x = k.param("x", f64());
  int r = k.var("r", u32());
  int c = k.var("c", i32());
  int d = k.var("d", f64());
  int g = k.var("g", Type::thread_block());
  k.f.body = block(assign(r, intrinsic(I::Popc, u32(), list(k.get(u)))),
                   assign(r, intrinsic(I::Brev, u32(), list(k.get(u)))),
                   assign(r, intrinsic(I::Clz, u32(), list(k.get(u)))),
                   assign(r, intrinsic(I::Ffs, u32(), list(k.get(u)))),
                   assign(d, intrinsic(I::Fma, f64(), list(k.get(x), k.get(x), k.get(x)))),
                   assign(d, intrinsic(I::Cbrt, f64(), list(k.get(x)))),
                   assign(d, intrinsic(I::Selp, f64(), list(bool_const(true), k.get(x), k.get(x)))),
                   assign(c, intrinsic(I::SyncthreadsOr, i32(), list(int_const(1, i32())))),
                   eval(intrinsic(I::Threadfence, Type::none(), {})),
                   eval(intrinsic(I::Nanosleep, Type::none(), list(k.get(u)))),
                   assign(g, intrinsic(I::ThisThreadBlock, Type::thread_block(), {})));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("@llvm.ctpop.i32"));
  CHECK(l.has("@llvm.bitreverse.i32"));
  CHECK(l.has("@llvm.ctlz.i32"));
  CHECK(l.has("@llvm.cttz.i32"));
  CHECK(l.has("@llvm.fma.f64"));
  CHECK(l.has("call double @target.math.cbrt"));
  CHECK(l.has("call i32 @target.barrier_reduce(ptr %env, i32 2, i32 1, i32 0)"));
  CHECK(l.has("call i1 @target.must_return")); // a barrier can stop the thread
  CHECK(l.has("fence seq_cst"));
  CHECK(l.has("alloca {}")); // the group has no state
}

TEST_CASE("a grid sync lowers to the target's grid barrier, then a status check") {
  FunctionBuilder k("grid", true);
  int g = k.var("g", Type::grid_group());
  int r = k.var("r", i32());
  k.f.body = block(assign(g, intrinsic(I::ThisGrid, Type::grid_group(), {})),
                   assign(r, intrinsic(I::GridSync, i32(), {})));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("call void @target.grid_barrier(ptr %env, i32 0)"));
  CHECK(l.has("call i1 @target.must_return"));
}

TEST_CASE("the Python error model raises on float division by zero, the NumPy one does not") {
  auto kernel = [] {
    FunctionBuilder k("div", true);
    int y = k.param("y", f64());
    int n = k.param("n", i64());
    int r = k.var("r", f64());
    int p = k.var("p", i64());
    k.f.body = block(assign(r, binary(Op::TrueDiv, float_const(1), k.get(y))),
                     assign(p, binary(Op::Pow, int_const(0), k.get(n))));
    return module_of(std::move(k.f));
  };
  Lowered numpy_model(kernel());
  CHECK_FALSE(numpy_model.has("raise.ZeroDivisionError"));
  CHECK(numpy_model.has("i64 -9223372036854775808")); // 0 ** negative
  ir::Module python = kernel();
  python.options.python_error_model = true;
  Lowered python_model(python);
  CHECK(python_model.has("call void @target.raise.ZeroDivisionError"));
}

TEST_CASE("atomic nanmax/nanmin: compare-exchange loops on floats, max/min on integers") {
  FunctionBuilder k("nanatomics", true);
  int f = k.param("f", array(Scalar::F32, 1));
  int n = k.param("n", array(Scalar::I64, 1));
  k.f.body = block(
      eval(atomic(Op::AtomicNanMax, k.get(f), list(int_const(0)), list(float_const(1, f32())))),
      eval(atomic(Op::AtomicNanMin, k.get(n), list(int_const(0)), list(int_const(3)))));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("cmpxchg ptr"));
  CHECK(l.has("atomicrmw min ptr"));
}

TEST_CASE("record fields load and store at their offsets; whole records copy") {
  auto packed = std::make_shared<Record>();
  packed->fields = {{"a", Scalar::I8, 0}, {"b", Scalar::F64, 1}};
  packed->size = 9;
  Type records = Type::record_array_of(packed, 1, 'C');
  Type record = Type::record_of(packed);
  FunctionBuilder k("records", true);
  int recs = k.param("recs", records);
  int rec = k.var("rec", record);
  auto field = [&](int index) {
    return node(ir::ExprKind::RecordField,
                packed->fields[index].scalar == Scalar::I8 ? scalar(Scalar::I8) : f64(),
                list(k.get(rec)), Op::None, index);
  };
  Stmt field_store = stmt(ir::StmtKind::FieldStore, list(k.get(rec), field(1)));
  field_store.field = 1;
  k.f.body = block(assign(rec, load(k.get(recs), list(int_const(3)))), std::move(field_store),
                   store(k.get(recs), list(int_const(0)), k.get(rec)), eval(cast(field(0), i64())));
  Lowered l(module_of(std::move(k.f)));
  CHECK(l.has("mul i64 %index, 9")); // the element address: index times the itemsize
  CHECK(l.has("%b = getelementptr inbounds i8, ptr %rec3, i64 1"));
  CHECK(l.has("load double, ptr %b, align 1")); // packed: fields may be unaligned
  CHECK(l.has("store double"));
  CHECK(l.has("call void @llvm.memmove.p0.p0.i64(ptr align 1 "));
  CHECK(l.has("load i8, ptr %a, align 1"));
}

TEST_CASE("warp intrinsics exchange 64-bit patterns through the target's warp_op") {
  FunctionBuilder k("warps", true);
  int x = k.param("x", f32());
  int n = k.param("n", i64());
  int y = k.var("y", f32());
  int m = k.var("m", i64());
  int p = k.var("p", boolean());
  int b = k.var("b", i32());
  int t = k.var("t", Type::tuple_of({i32(), boolean()}));
  int a = k.var("a", u32());
  auto full = [] { return int_const(-1, i32()); };
  k.f.body = block(
      assign(y, intrinsic(I::ShflDownSync, f32(), list(full(), k.get(x), int_const(16, i32())))),
      assign(m, intrinsic(I::ShflXorSync, i64(), list(full(), k.get(n), int_const(1, i32())))),
      assign(p, intrinsic(I::AllSync, boolean(), list(full(), bool_const(true)))),
      assign(b, intrinsic(I::BallotSync, i32(), list(full(), bool_const(false)))),
      assign(t, intrinsic(I::MatchAllSync, Type::tuple_of({i32(), boolean()}),
                          list(full(), k.get(n)))),
      eval(intrinsic(I::Syncwarp, Type::none(), list(full()))),
      assign(a, intrinsic(I::Activemask, u32(), {})),
      assign(a, intrinsic(I::LanemaskLt, u32(), {})));
  Lowered l(module_of(std::move(k.f)));
  // float32 travels as its bits, zero-extended; the result is truncated and cast back.
  CHECK(l.has("bitcast float %x3 to i32"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 2, i32 -1, i64 %"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 3, i32 -1, i64 %n4, i32 1, i32 0)"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 4, i32 -1, i64 1, i32 0, i32 0)"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 7, i32 -1, i64 0, i32 0, i32 0)"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 9, i32 -1, i64 %n8, i32 0, i32 0)"));
  CHECK(l.has("call i64 @target.warp_op(ptr %env, i32 10, i32 -1, i64 0, i32 0, i32 0)"));
  CHECK(l.has("call i32 @target.active_mask(ptr %env, i32 0)"));
  CHECK(l.has("shl i32 1, %"));                // lanemask_lt from the lane id
  CHECK(l.has("call i1 @target.must_return")); // a warp operation can stop the thread
}

TEST_CASE("every loop iteration passes the target's back-edge; waiting loops spin there") {
  FunctionBuilder k("loops", true);
  int flag = k.param("flag", array(Scalar::I32, 1));
  int n = k.param("n", i64());
  int i = k.var("i", i64());
  auto flag_unset = [&] {
    return compare(Op::Eq, load(k.get(flag), list(int_const(0))), int_const(0, i32()));
  };
  k.f.body =
      block(while_(compare(Op::Lt, k.get(i), k.get(n)),
                   block(assign(i, binary(Op::Add, k.get(i), int_const(1))))),
            for_range(i, int_const(0), k.get(n), int_const(1), {}), while_(flag_unset(), {}));
  CHECK_FALSE(ir::loop_may_spin(k.f.body[0]));
  CHECK_FALSE(ir::loop_may_spin(k.f.body[1]));
  CHECK(ir::loop_may_spin(k.f.body[2]));
  Lowered l(module_of(std::move(k.f)));
  const std::string back_edge = "call i1 @target.back_edge(";
  size_t first = l.text.find(back_edge);
  REQUIRE(first != std::string::npos);
  CHECK(l.text.find(back_edge, first + 1) != std::string::npos); // the while and the for loop
  CHECK(l.has("call i1 @target.spin_back_edge("));
}

TEST_CASE("a call of a function that reaches a warp operation or a loop checks the status") {
  auto full = [] { return int_const(-1, i32()); };
  FunctionBuilder shuffle("shuffle", false, i64());
  int v = shuffle.param("v", i64());
  shuffle.f.body = block(
      ret(intrinsic(I::ShflDownSync, i64(), list(full(), shuffle.get(v), int_const(1, i32())))));
  FunctionBuilder looping("looping", false, i64());
  int w = looping.param("w", i64());
  looping.f.body =
      block(while_(compare(Op::Gt, looping.get(w), int_const(0)), {}), ret(looping.get(w)));
  FunctionBuilder k("caller", true);
  int x = k.var("x", i64());
  k.f.body = block(assign(x, call(1, i64(), list(int_const(1)))),
                   assign(x, call(2, i64(), list(k.get(x)))));
  Lowered l(module_of(std::move(k.f), std::move(shuffle.f), std::move(looping.f)));
  // Each callee checks after its warp operation or back-edge, the caller after each call.
  size_t checks = 0;
  for (size_t at = l.text.find("@target.must_return("); at != std::string::npos;
       at = l.text.find("@target.must_return(", at + 1))
    ++checks;
  CHECK(checks == 3 + 1); // + the declaration
}

namespace {

size_t occurrences(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

} // namespace

TEST_CASE("faults share one block per kind and an elif chain one merge block (linear in size)") {
  // if i == 0: out[0] = 1  elif i == 1: out[1] = 2  elif i == 2: out[2] = 3
  // then out[i] = out[i] + 1 and two raises of the same exception, at lines 1..7.
  FunctionBuilder k("chain", true);
  int out = k.param("out", array(Scalar::I64, 1));
  int i = k.var("i", i64());
  std::vector<Stmt> chain;
  for (int branch = 2; branch >= 0; --branch) {
    std::vector<Stmt> orelse;
    if (!chain.empty())
      orelse.push_back(std::move(chain.back()));
    chain.clear();
    chain.push_back(
        if_(compare(Op::Eq, k.get(i), int_const(branch)),
            block(store(k.get(out), list(int_const(branch)), int_const(branch + 1), branch + 1)),
            std::move(orelse)));
  }
  k.f.body =
      block(assign(i, grid_x()), std::move(chain.back()),
            store(k.get(out), list(k.get(i)),
                  binary(Op::Add, at(load(k.get(out), list(k.get(i))), 4), int_const(1)), 4),
            if_(compare(Op::Eq, k.get(i), int_const(7)), block(raise("ValueError", "no", 5))),
            if_(compare(Op::Eq, k.get(i), int_const(8)), block(raise("ValueError", "no", 6))));
  Lowered l(module_of(std::move(k.f)));
  // Five bounds checks, one report of them; two raise sites, one report.
  CHECK(occurrences(l.text, "call void @target.index_error") == 1);
  CHECK(occurrences(l.text, "call void @target.raise.ValueError") == 1);
  // The chain's three branches meet in one block; each raise's if has its own.
  CHECK(occurrences(l.text, "\nendif") == 3);
  CHECK(l.result.locations.size() == 6); // every site still reports its own line
}

TEST_CASE("the debug variant keeps locals in a frame and reports statements, calls and accesses") {
  ir::Module release = scale_kernel();
  Lowered plain(release);
  for (const char *hook : {"@target.enter", "@target.statement", "@target.access", "@target.leave"})
    CHECK_FALSE(plain.has(hook));
  CHECK(plain.result.frames.empty());

  ir::Module debug = scale_kernel();
  debug.options.instrumentation = Instrumentation::Debug;
  Lowered instrumented(debug);
  CHECK(instrumented.has("call void @target.enter(ptr %env, i32 0, ptr %frame)"));
  CHECK(instrumented.has("call void @target.statement("));
  CHECK(instrumented.has("call void @target.leave("));
  // The load of a[i] (kind 0, global memory) and the store of out[i] (kind 1, with its bits).
  CHECK(instrumented.has("i32 4, i32 0, i32 0, i64 0"));
  CHECK(instrumented.has("i32 4, i32 1, i32 0, i64 %"));
  REQUIRE(instrumented.result.frames.size() == 1);
  const codegen::FrameLayout &frame = instrumented.result.frames[0];
  CHECK(frame.function == "scale");
  CHECK(frame.num_params == 2);
  REQUIRE(frame.slots.size() == 3);
  CHECK(frame.slots[2].name == "i");
  CHECK(frame.slots[2].type == i64());
  CHECK(frame.slots[1].offset > frame.slots[0].offset);
  CHECK(frame.slots[2].offset > frame.slots[1].offset);

  // Instrumentation changes nothing in the release variant's code.
  CHECK(Lowered(scale_kernel()).text == plain.text);
}

TEST_CASE("loops report their test before every iteration in the debug variant") {
  FunctionBuilder k("loop", true);
  int n = k.param("n", i64());
  int i = k.var("i", i64());
  k.f.body = block(for_range(i, int_const(0), k.get(n), int_const(1), {}));
  ir::Module module = module_of(std::move(k.f));
  module.options.instrumentation = Instrumentation::Debug;
  Lowered l(module);
  // Once before the loop, once on each further iteration.
  size_t statements = 0;
  for (size_t at = l.text.find("call void @target.statement("); at != std::string::npos;
       at = l.text.find("call void @target.statement(", at + 1))
    ++statements;
  CHECK(statements == 2);
}
