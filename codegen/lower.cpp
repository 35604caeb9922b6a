#include "codegen/lower.h"

#include "codegen/debug_info.h"
#include "codegen/float_minmax.h"
#include "codegen/llvm_types.h"
#include "codegen/lower_alloc.h"
#include "codegen/lower_bf16.h"
#include "codegen/lower_complex.h"
#include "codegen/lower_fp16.h"
#include "codegen/lower_fp8.h"
#include "codegen/symbol_name.h"
#include "frontend/ir_fission.h"
#include "frontend/param_versions.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/Local.h>

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>

namespace simt::codegen {

llvm::Value *Target::local_memory(Emitter &e, int64_t bytes, int64_t alignment) {
  // Named as Numba names a local array given alignment= (its inspect_llvm shows the alignment).
  llvm::AllocaInst *memory =
      e.b.CreateAlloca(e.b.getInt8Ty(), e.b.getInt64(bytes), alignment ? "_cudapy_lmem" : "local");
  memory->setAlignment(llvm::Align(std::max<int64_t>(16, alignment)));
  return memory;
}

llvm::Value *Target::const_memory(llvm::Module &module, const ir::ConstArrayDecl &decl,
                                  const std::string &name) {
  llvm::Constant *data = llvm::ConstantDataArray::get(module.getContext(), decl.data);
  auto *global = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, data, name);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(16));
  return global;
}

void Target::fence(Emitter &e, FenceScope) {
  e.b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

void Target::nanosleep(Emitter &, llvm::Value *) {}

bool Target::fissions(const ir::Module &) { return false; }

void Target::enter_thread(Emitter &, llvm::ArrayRef<llvm::Value *>) {
  throw std::logic_error("simt: this target does not fission kernels");
}

void Target::fissioned_barrier(Emitter &, int32_t) {
  throw std::logic_error("simt: this target does not fission kernels");
}

llvm::Value *Target::block_scratch(Emitter &, llvm::Value *) {
  throw std::logic_error("simt: this target does not fission kernels");
}

namespace {

[[noreturn]] void unsupported(const std::string &what) {
  throw std::runtime_error("simt: " + what + " is not supported yet");
}

// Error paths are cold: branch weights keep them out of the hot code's layout.
llvm::MDNode *unlikely(llvm::LLVMContext &ctx) {
  return llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20);
}

llvm::MDNode *likely(llvm::LLVMContext &ctx) {
  return llvm::MDBuilder(ctx).createBranchWeights(1 << 20, 1);
}

class ModuleLowering;

class FunctionLowering {
public:
  FunctionLowering(ModuleLowering &m, int index);
  void run();

private:
  struct Loop {
    llvm::BasicBlock *next;
    llvm::BasicBlock *exit;
  };

  llvm::LLVMContext &ctx() { return fn_->getContext(); }
  int32_t loc(ir::Loc where);
  llvm::BasicBlock *block(const char *name) { return llvm::BasicBlock::Create(ctx(), name, fn_); }
  // After a terminator: later statements of the same list are unreachable.
  void start_dead_block() { b_.SetInsertPoint(block("dead")); }
  bool terminated() { return b_.GetInsertBlock()->getTerminator() != nullptr; }
  // Faults of one kind in a function share a block that reports them, its operands phis of the
  // faulting sites': a loop with n bounds checks then has one exit for them, not n, which LLVM's
  // loop passes (LCSSA, LICM) would handle in time quadratic in n. A block takes at most
  // kFaultSitesPerBlock sites, as phis with thousands of incoming values make instruction
  // selection and SimplifyCFG quadratic in turn (10,000 indexing statements took 34 s).
  static constexpr int kFaultSitesPerBlock = 64;
  struct Fault {
    llvm::BasicBlock *block = nullptr;
    std::vector<llvm::PHINode *> operands;
    int sites = 0;
    bool full() const { return !block || sites >= kFaultSitesPerBlock; }
  };
  Fault &index_fault();
  Fault &raise_fault(const std::string &exception, const std::string &message);
  // Branches to `fault` with `operands` (when `failed` holds, cold; else continues in a fresh
  // block).
  void enter_fault(Fault &fault, llvm::ArrayRef<llvm::Value *> operands);
  void fault_if(llvm::Value *failed, Fault &fault, llvm::ArrayRef<llvm::Value *> operands);
  llvm::BasicBlock *bail();
  void check_status();
  // Ends a loop iteration: stops the thread when the target says so, else branches to `head`.
  void back_edge(llvm::BasicBlock *head, bool spins, ir::Loc where);
  void return_from_function(bool stopped);
  // The debugger's variant (Instrumentation::Debug): the locals in one frame the runtime can read,
  // hooks before statements, the call stack kept by the runtime.
  bool instrumented() const;
  // Either instrumented variant: hooks before memory accesses (the checkers' variant also reports
  // fences and fresh local arrays, check_variant()).
  bool reports_accesses() const;
  bool check_variant() const;
  // The checkers' variant: reports an event that is not an array access (AccessKind::Fence or
  // LocalArray) through the access hook.
  void memory_event(AccessKind kind, llvm::Value *address, uint32_t size, int64_t value,
                    ir::Loc where);
  void local_array_event(int index, llvm::Value *address);
  // cuda.threadfence*(): the target's fence, reported in the checkers' variant.
  void fence(Target::FenceScope scope, ir::Loc where);
  void allocate_slots();
  void statement_hook(ir::Loc where);
  // `value`: a stored scalar's bits (register_to_memory's form), else null.
  void access_hook(llvm::Value *address, const Type &array, Scalar scalar, uint32_t size,
                   AccessKind kind, llvm::Value *value, ir::Loc where);
  void raise_if(llvm::Value *failed, const std::string &exception, const std::string &message,
                ir::Loc where);

  void statements(std::span<const ir::Stmt> stmts);
  void statement(const ir::Stmt &s);
  // `merge`: where the if's branches continue; null for a block of its own after the if.
  void if_statement(const ir::Stmt &s, llvm::BasicBlock *merge = nullptr);
  // One branch of an if statement, continuing at `merge`.
  void branch(const std::vector<ir::Stmt> &stmts, llvm::BasicBlock *merge);
  // `block_level`: in a fissioned kernel, a loop that runs once per block (block_statement).
  void while_statement(const ir::Stmt &s, bool block_level = false);
  void for_range(const ir::Stmt &s, bool block_level = false);
  // A loop's body or else clause: per thread, or once per block (block_statements).
  void loop_statements(const std::vector<ir::Stmt> &stmts, bool block_level);
  // The condition of an if or a loop, or range()'s bounds; once per block (block_level), after
  // the barrier reductions in them, as the first live thread.
  std::vector<llvm::Value *> control_values(const std::vector<ir::ExprPtr> &exprs,
                                            bool block_level);
  // Whether a range() loop has constant bounds and at most a few thousand iterations.
  static bool short_constant_range(const ir::Stmt &s);
  void print(const ir::Stmt &s);

  llvm::Value *expr(const ir::Expr &e);
  // A special register (thread ids, lane id, ...) of the thread running the code.
  llvm::Value *special_register(ir::Op op, int index);
  llvm::Value *constant(const ir::Expr &e);
  llvm::Value *unary(const ir::Expr &e);
  llvm::Value *binary(const ir::Expr &e);
  llvm::Value *int_binary(ir::Op op, Scalar s, llvm::Value *x, llvm::Value *y, ir::Loc where);
  // x ** n for a float x and an integer n, as Numba's int_power (intrinsic PowInt).
  llvm::Value *float_int_pow(llvm::Value *x, llvm::Value *n, bool n_signed, Scalar s);
  // x // y or x % y (Python's: floored) for a y that is not 0.
  llvm::Value *int_floor_div_or_mod(ir::Op op, bool is_signed, llvm::Value *x, llvm::Value *y);
  llvm::Value *float_binary(ir::Op op, Scalar s, llvm::Value *x, llvm::Value *y);
  llvm::Value *int_pow(Scalar s, llvm::Value *x, llvm::Value *y, ir::Loc where);
  llvm::Value *compare(const ir::Expr &e);
  llvm::Value *short_circuit(const ir::Expr &e);
  llvm::Value *select(const ir::Expr &e);
  llvm::Value *cast(llvm::Value *value, const Type &from, const Type &to);
  llvm::Value *truth(llvm::Value *value, const Type &type);
  llvm::Value *intrinsic(const ir::Expr &e);
  // The value of intrinsic `e` on `args` (lowered operands); null for a void intrinsic.
  llvm::Value *intrinsic_value(const ir::Expr &e, const std::vector<llvm::Value *> &args);
  // The intrinsics on numbers: integer bits, float tests, complex parts, fma, frexp, modf, selp.
  llvm::Value *number_intrinsic(const ir::Expr &e, const std::vector<llvm::Value *> &args);
  llvm::Value *modf(const ir::Expr &e, llvm::Value *x);
  // The warp intrinsics (shuffles, votes, match, syncwarp, activemask, lanemask_lt).
  llvm::Value *warp_intrinsic(const ir::Expr &e, const std::vector<llvm::Value *> &args);
  void raise_on_float_zero_division(const ir::Expr &e, llvm::Value *divisor);
  llvm::Value *call(const ir::Expr &e);
  llvm::Value *extern_call(const ir::Expr &e);
  llvm::Value *libdevice(const ir::Expr &e);
  // `itemsize` 0: the dtype's size (records pass theirs).
  llvm::Value *memory_array(llvm::Value *data, Scalar dtype, const std::vector<int64_t> &shape,
                            int64_t itemsize = 0);
  llvm::Value *shared_array(const ir::Expr &e);
  llvm::Value *array_size(llvm::Value *array, int ndim);
  // The bounds-checked address of array[indices] (`first` = index of the first index expr).
  llvm::Value *element_address(const std::vector<ir::ExprPtr> &operands, size_t first,
                               ir::Loc where);
  llvm::Value *array_view(const ir::Expr &e);
  // `index` wrapped once if negative and checked against `extent` (IndexError on `axis`).
  llvm::Value *checked_index(llvm::Value *index, llvm::Value *extent, int axis, ir::Loc where);
  llvm::Value *tuple_index(const ir::Expr &e);
  // Runs `orelse` of a loop that ended other than by break, then continues at `exit`.
  void loop_else(const ir::Stmt &s, llvm::BasicBlock *normal_exit, llvm::BasicBlock *exit,
                 bool block_level);
  llvm::Value *atomic(const ir::Expr &e);
  // Records: a field's address in the record `record` points to, its load and store, and the
  // copy of a whole record into a record array's element.
  llvm::Value *field_address(llvm::Value *record, const Record &layout, int field,
                             llvm::Align &align);
  llvm::Value *field_load(const ir::Expr &e);
  void field_store(const ir::Stmt &s);
  void record_copy(const ir::Stmt &s);
  llvm::Value *float_atomic_minmax(ir::Op op, llvm::Type *type, llvm::Value *addr,
                                   llvm::Value *value);

  // Loop fission (frontend/ir_fission.h): a fissioned kernel's function runs a whole block. Its
  // block-level statements run once; each region runs once per live thread, in x-fastest order.
  bool fissioned() const { return plan_ != nullptr; }
  void start_fission();
  void block_statements(const std::vector<ir::Stmt> &stmts);
  void block_statement(const ir::Stmt &s);
  void block_if(const ir::Stmt &s);
  // Runs `body` for every thread of the block (only the live ones when `live_only`), with
  // region_ set; the builder continues after the last thread.
  // `x_range`: only the threads whose threadIdx.x lies in [first, end) (i32 values).
  void for_each_thread(bool live_only, const std::function<void()> &body,
                       std::optional<std::pair<llvm::Value *, llvm::Value *>> x_range = {});
  void region(std::span<const ir::Stmt> stmts);
  // The barrier reductions in `e`, each a region reducing every live thread's predicate; their
  // results are what `e` then reads (block_reductions_).
  void reductions(const ir::Expr &e);
  // Makes the first live thread the current one, so a fault in block-level code names it; returns
  // from the kernel when every thread of the block has returned.
  void first_live_thread();
  // The address of slot `slot` (in a region: of the current thread's copy).
  llvm::Value *slot_address(int slot);
  llvm::Value *local_array_address(int index);
  int64_t local_array_alignment(int index) const;
  // Emits `emit`'s straight-line code in the current region's setup block (Region::setup).
  llvm::Value *setup(const std::function<llvm::Value *()> &emit);
  // Tells the target which thread is current (Target::enter_thread).
  void announce_thread();
  // For a region that is one `if` whose (first) condition compares threadIdx.x, plus block-level
  // terms, with a block-level bound (`if tid < s:`, `if cuda.grid(1) < n:`), the range of
  // threadIdx.x [first, end) where that condition holds; else null.
  std::optional<std::pair<llvm::Value *, llvm::Value *>>
  guarded_range(std::span<const ir::Stmt> stmts);
  // Whether `e` is threadIdx.x plus block-level terms added without wrapping (cuda.grid(1));
  // collects the terms.
  bool thread_x_plus(const ir::Expr &e, std::vector<const ir::Expr *> &terms) const;

  ModuleLowering &m_;
  int index_;
  const ir::Function &f_;
  Target &target_;
  llvm::Function *fn_;
  llvm::IRBuilder<> b_;
  Emitter emitter_;
  std::vector<llvm::Value *> slots_;
  llvm::Value *frame_ = nullptr;        // instrumented code: the frame holding the slots
  llvm::DISubprogram *scope_ = nullptr; // with debug information: this function's
  std::vector<llvm::Value *> local_arrays_;
  std::vector<Loop> loops_;
  llvm::BasicBlock *bail_ = nullptr; // returns at once: this thread must stop
  Fault index_fault_;
  std::map<std::pair<std::string, std::string>, Fault> raise_faults_;

  // Fissioned kernels only.
  struct Region {
    llvm::Value *thread;    // i64: the linear thread index
    llvm::Value *tid[3];    // i32: threadIdx
    llvm::BasicBlock *next; // continues with the next thread
    // Ends with the branch into the thread's statements: the thread's copies of locals are
    // addressed and recomputed before it, where they dominate every statement (setup()).
    llvm::BasicBlock *setup;
    std::map<int, llvm::Value *> slots, local_arrays; // the current thread's copies
  };
  const ir::FissionPlan *plan_ = nullptr;
  // Bounds checks as one branch on the wrapped index (select), not a cold path that wraps a
  // negative index and rejoins. The cold path keeps loops free of the wrap, so IRCE can remove
  // their checks and vectorise them (2x on flat kernels); but its rejoin hides that a checked
  // index is in range, so EarlyCSE merges the checks of one index into one compare with a use per
  // check and, at each cold path's edge, visits all of them: time quadratic in the checks (10,000
  // indexing statements took 24 s). The select form lets EarlyCSE fold every later check of an
  // index already checked. Functions of kLargeFunctionStatements or more, which the JIT
  // optimises without loop passes anyway (sim/jit.cpp), take it.
  static constexpr size_t kLargeFunctionStatements = 1000;
  bool select_form_checks_ = false;
  std::optional<Region> region_;
  llvm::Value *block_dim_[3] = {}; // i32
  llvm::Value *threads_ = nullptr; // i64: threads in the block
  llvm::Value *alive_ = nullptr;   // i8 per thread: not yet returned (when threads may return)
  // The current thread's threadIdx (i32 allocas: registers once SROA is done); the target hears
  // of it (enter_thread) only where code outside the kernel's function may read it: device
  // function calls and fault reports.
  llvm::Value *current_tid_[3] = {};
  std::vector<llvm::Value *> per_thread_slots_;        // per slot: its per-thread array
  std::vector<llvm::Value *> per_thread_local_arrays_; // per local array: the threads' copies
  std::vector<int64_t> local_array_bytes_;
  std::map<const ir::Expr *, llvm::Value *> block_reductions_;
};

class ModuleLowering {
public:
  ModuleLowering(const ir::Module &ir, Target &target, llvm::LLVMContext &ctx,
                 const std::string &prefix)
      : ir(ir), target(target), prefix(prefix),
        module(std::make_unique<llvm::Module>(prefix + ir.kernel().name, ctx)) {}

  LoweredModule run() {
    target.configure(*module);
    if (ir.options.debug_info != DebugInfo::None)
      debug_info = std::make_unique<SourceDebugInfo>(*module, ir.options.debug_info, ir.kernel());
    for (size_t i = 0; i < ir.functions.size(); ++i)
      functions.push_back(declare(int(i)));
    for (size_t i = 0; i < ir.const_arrays.size(); ++i)
      const_arrays.push_back(
          target.const_memory(*module, ir.const_arrays[i], prefix + "const." + std::to_string(i)));
    if (ir.options.instrumentation != Instrumentation::None)
      frames.resize(ir.functions.size());
    if (target.fissions(ir))
      fission = ir::plan_fission(ir);
    for (size_t i = 0; i < ir.functions.size(); ++i)
      FunctionLowering(*this, int(i)).run();
    std::string symbol = kernel_symbol(ir, prefix);
    target.emit_entry_points(*module, functions[0], ir, symbol);
    if (debug_info)
      debug_info->finish(*module, ir.kernel());
    return LoweredModule{std::move(module), symbol, std::move(locations), std::move(frames)};
  }

  int32_t location(int function, ir::Loc where) {
    auto key = std::make_tuple(function, where.line, where.col);
    auto found = location_index.find(key);
    if (found != location_index.end())
      return found->second;
    const ir::Function &f = ir.functions[function];
    locations.push_back(CodeLocation{f.file, where.line, where.col, f.python_name});
    int32_t index = int32_t(locations.size() - 1);
    location_index.emplace(key, index);
    return index;
  }

  // Numba's Python error model raises ZeroDivisionError on float division, but not fast division.
  bool checks_float_division() const {
    return ir.options.python_error_model && !ir.options.fastmath;
  }

  // Whether a call of function `index` can set the thread's status (so the caller checks it):
  // it can fault (ir::intrinsic_may_fault: a parking intrinsic) or loop, or calls a function that
  // can.
  bool may_fault(int index) {
    auto known = faulting.find(index);
    if (known != faulting.end())
      return known->second;
    faulting[index] = true; // a recursive call is assumed to fault
    bool result = stmts_may_fault(ir.functions[index].body);
    faulting[index] = result;
    return result;
  }

  const ir::Module &ir;
  Target &target;
  std::string prefix;
  std::unique_ptr<llvm::Module> module;
  std::vector<llvm::Function *> functions;
  std::vector<llvm::Value *> const_arrays;
  std::vector<FrameLayout> frames; // instrumented modules only, filled by FunctionLowering
  std::unique_ptr<SourceDebugInfo> debug_info; // when CompileOptions::debug_info asks for it
  std::optional<ir::FissionPlan> fission;      // when the target runs the kernel fissioned
  llvm::Function *int_pow_helper(Scalar s);

private:
  llvm::Function *declare(int index) {
    const ir::Function &f = ir.functions[index];
    llvm::LLVMContext &ctx = module->getContext();
    std::vector<llvm::Type *> params;
    llvm::Type *env = target.environment_type(ctx);
    if (env)
      params.push_back(env);
    for (int i = 0; i < f.num_params; ++i)
      params.push_back(register_type(ctx, f.slots[i].type));
    llvm::Type *result =
        f.is_kernel ? llvm::Type::getInt1Ty(ctx) : register_type(ctx, f.return_type);
    auto *type = llvm::FunctionType::get(result, params, false);
    auto *fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                      prefix + symbol_name(f.name) + (f.is_kernel ? ".body" : ""),
                                      *module);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    // The kernel body is inlined into each entry point; device functions are left to LLVM.
    fn->addFnAttr(f.is_kernel ? llvm::Attribute::AlwaysInline : llvm::Attribute::InlineHint);
    if (env)
      fn->addParamAttr(0, llvm::Attribute::NoAlias);
    return fn;
  }

public:
  // Whether evaluating `e` can fault (or stop the thread).
  bool expr_may_fault(const ir::Expr &e) {
    switch (e.kind) {
    case ir::ExprKind::ArrayLoad:
    case ir::ExprKind::Atomic:
    case ir::ExprKind::ArrayView:
    case ir::ExprKind::TupleIndex:
      return true;
    case ir::ExprKind::Call:
      if (may_fault(e.index))
        return true;
      break;
    case ir::ExprKind::Binary:
      if (e.op == ir::Op::FloorDiv || e.op == ir::Op::Mod || e.op == ir::Op::Pow)
        return true;
      if (e.op == ir::Op::TrueDiv && checks_float_division())
        return true;
      break;
    case ir::ExprKind::Intrinsic:
      if (ir::intrinsic_may_fault(e.intrinsic))
        return true;
      break;
    default:
      break;
    }
    for (const ir::ExprPtr &arg : e.args)
      if (expr_may_fault(*arg))
        return true;
    return false;
  }

private:
  bool stmts_may_fault(const std::vector<ir::Stmt> &stmts) {
    for (const ir::Stmt &s : stmts) {
      switch (s.kind) {
      case ir::StmtKind::Store:
      case ir::StmtKind::While: // a loop's back-edge stops the thread when the launch stops
      case ir::StmtKind::ForRange:
      case ir::StmtKind::Raise:
      case ir::StmtKind::Assert:
      case ir::StmtKind::SyncThreads:
        return true;
      default:
        break;
      }
      for (const ir::ExprPtr &e : s.exprs)
        if (expr_may_fault(*e))
          return true;
      if (stmts_may_fault(s.body) || stmts_may_fault(s.orelse))
        return true;
    }
    return false;
  }

  std::map<std::tuple<int, int, int>, int32_t> location_index;
  std::vector<CodeLocation> locations;
  std::map<int, bool> faulting;
  std::map<Scalar, llvm::Function *> int_pow_helpers;
};

// x ** y for integers of one type by repeated squaring; negative exponents (signed types) give
// what Python's int(x ** y) would: 1 for x == 1, +-1 for x == -1, 0 otherwise (x == 0 is
// checked by the caller, it raises).
namespace {

// base ** exponent (an unsigned magnitude) by square and multiply, as Numba's int_power: r *= a
// for each set bit of the exponent, a *= a; 1 for a zero exponent. Integers or floats; leaves `b`
// after the loop.
llvm::Value *square_and_multiply(llvm::IRBuilder<> &b, llvm::Value *base, llvm::Value *exponent) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = fn->getContext();
  llvm::Type *t = base->getType(), *it = exponent->getType();
  const bool real = t->isFloatingPointTy();
  llvm::Value *unit = real ? llvm::ConstantFP::get(t, 1.0) : llvm::ConstantInt::get(t, 1);
  llvm::Value *zero = llvm::ConstantInt::get(it, 0), *one = llvm::ConstantInt::get(it, 1);
  auto multiply = [&](llvm::Value *x, llvm::Value *y) {
    return real ? b.CreateFMul(x, y) : b.CreateMul(x, y);
  };
  llvm::BasicBlock *entry = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(ctx, "pow.loop", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "pow.done", fn);
  b.CreateCondBr(b.CreateICmpEQ(exponent, zero), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *r = b.CreatePHI(t, 2), *a = b.CreatePHI(t, 2), *e = b.CreatePHI(it, 2);
  llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(e, one), zero);
  llvm::Value *r_next = b.CreateSelect(odd, multiply(r, a), r);
  llvm::Value *e_next = b.CreateLShr(e, one);
  llvm::Value *a_next = multiply(a, a);
  r->addIncoming(unit, entry);
  a->addIncoming(base, entry);
  e->addIncoming(exponent, entry);
  r->addIncoming(r_next, loop);
  a->addIncoming(a_next, loop);
  e->addIncoming(e_next, loop);
  b.CreateCondBr(b.CreateICmpEQ(e_next, zero), done, loop);
  b.SetInsertPoint(done);
  llvm::PHINode *result = b.CreatePHI(t, 2);
  result->addIncoming(unit, entry);
  result->addIncoming(r_next, loop);
  return result;
}

} // namespace

llvm::Function *ModuleLowering::int_pow_helper(Scalar s) {
  auto found = int_pow_helpers.find(s);
  if (found != int_pow_helpers.end())
    return found->second;
  llvm::LLVMContext &ctx = module->getContext();
  llvm::Type *t = register_type(ctx, Type::scalar_of(s));
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false),
                                    llvm::GlobalValue::InternalLinkage,
                                    prefix + "ipow." + std::to_string(int(s)), *module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *base = fn->getArg(0), *exp = fn->getArg(1);
  llvm::ConstantInt *zero = llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(t), 0);
  llvm::ConstantInt *one = llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(t), 1);
  if (scalar_is_signed(s)) {
    auto *negative = llvm::BasicBlock::Create(ctx, "negative", fn);
    auto *positive = llvm::BasicBlock::Create(ctx, "positive", fn);
    b.CreateCondBr(b.CreateICmpSLT(exp, zero), negative, positive);
    b.SetInsertPoint(negative);
    llvm::Value *minus_one = llvm::ConstantInt::getSigned(t, -1);
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(exp, one), zero);
    llvm::Value *result = b.CreateSelect(
        b.CreateICmpEQ(base, one), one,
        b.CreateSelect(b.CreateICmpEQ(base, minus_one), b.CreateSelect(odd, minus_one, one), zero));
    b.CreateRet(result);
    b.SetInsertPoint(positive);
  }
  b.CreateRet(square_and_multiply(b, base, exp));
  int_pow_helpers[s] = fn;
  return fn;
}

FunctionLowering::FunctionLowering(ModuleLowering &m, int index)
    : m_(m), index_(index), f_(m.ir.functions[index]), target_(m.target), fn_(m.functions[index]),
      b_(fn_->getContext()), emitter_{b_, nullptr} {
  if (f_.is_kernel && m.fission) {
    if (!m.fission->fissionable())
      throw std::logic_error("simt: fissioning a kernel with " + m.fission->obstacle);
    plan_ = &*m.fission;
  }
  select_form_checks_ = ir::statement_count(f_.body) >= kLargeFunctionStatements;
}

int32_t FunctionLowering::loc(ir::Loc where) { return m_.location(index_, where); }

void FunctionLowering::run() {
  llvm::BasicBlock *entry = block("entry");
  b_.SetInsertPoint(entry);
  if (m_.ir.options.fastmath)
    b_.setFastMathFlags(llvm::FastMathFlags::getFast());
  if (m_.debug_info) {
    scope_ = m_.debug_info->function(*fn_, f_);
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, ir::Loc{f_.first_line, 0}));
  }
  unsigned first_param = 0;
  if (target_.environment_type(ctx())) {
    emitter_.env = fn_->getArg(0);
    emitter_.env->setName("env");
    first_param = 1;
  }
  for (int i = 0; i < f_.num_params; ++i)
    fn_->getArg(first_param + i)->setName(f_.slots[i].name);
  allocate_slots();
  for (const ir::LocalArrayDecl &decl : f_.local_arrays) {
    local_array_bytes_.push_back(decl.elements.bytes(decl.shape));
    if (!fissioned())
      local_arrays_.push_back(
          target_.local_memory(emitter_, local_array_bytes_.back(), decl.alignment));
  }
  if (check_variant() && !fissioned()) // a fissioned kernel's: in start_fission
    for (size_t i = 0; i < f_.local_arrays.size(); ++i)
      local_array_event(int(i), local_arrays_[i]);
  for (int i = 0; i < f_.num_params; ++i) {
    b_.CreateStore(fn_->getArg(first_param + i), slots_[i]);
  }
  if (instrumented())
    target_.enter_function(emitter_, index_, frame_);

  llvm::BasicBlock *body = block("body");
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  if (fissioned()) {
    start_fission();
    block_statements(f_.body);
  } else {
    statements(f_.body);
  }
  if (!terminated())
    return_from_function(false);
  if (bail_) {
    b_.SetInsertPoint(bail_);
    return_from_function(true);
  }
  llvm::removeUnreachableBlocks(*fn_);
}

bool FunctionLowering::instrumented() const {
  return m_.ir.options.instrumentation == Instrumentation::Debug;
}

bool FunctionLowering::reports_accesses() const {
  return m_.ir.options.instrumentation != Instrumentation::None;
}

bool FunctionLowering::check_variant() const {
  return m_.ir.options.instrumentation == Instrumentation::Check;
}

void FunctionLowering::memory_event(AccessKind kind, llvm::Value *address, uint32_t size,
                                    int64_t value, ir::Loc where) {
  target_.memory_access(emitter_, address, size, 1, kind, MemSpace::Local, b_.getInt64(value),
                        loc(where));
  check_status();
}

// The check variant tells the checkers where each call's local array `index` is.
void FunctionLowering::local_array_event(int index, llvm::Value *address) {
  memory_event(AccessKind::LocalArray, address, uint32_t(local_array_bytes_[size_t(index)]),
               int64_t(index_) << 32 | int64_t(index), ir::Loc{f_.first_line, 0});
}

void FunctionLowering::fence(Target::FenceScope scope, ir::Loc where) {
  target_.fence(emitter_, scope);
  if (check_variant())
    memory_event(AccessKind::Fence, llvm::ConstantPointerNull::get(b_.getPtrTy()), 0,
                 int64_t(scope), where);
}

// One alloca per slot (SROA turns them into registers); instrumented code puts them in one frame
// whose address escapes to the runtime, so every local is in memory at every hook.
void FunctionLowering::allocate_slots() {
  std::vector<llvm::Type *> types;
  for (const ir::Slot &slot : f_.slots) {
    if (slot.type.is_none())
      unsupported("a variable of type none ('" + slot.name + "')");
    types.push_back(register_type(ctx(), slot.type));
  }
  if (!instrumented()) {
    for (size_t i = 0; i < types.size(); ++i)
      slots_.push_back(b_.CreateAlloca(types[i], nullptr, f_.slots[i].name));
    return;
  }
  auto *frame_type = llvm::StructType::get(ctx(), types);
  llvm::AllocaInst *frame_memory = b_.CreateAlloca(frame_type, nullptr, "frame");
  frame_ = frame_memory;
  const llvm::StructLayout *layout = m_.module->getDataLayout().getStructLayout(frame_type);
  // Zeroed, so that the runtime reads a local not assigned yet as zeros (an array: no data),
  // never as what the stack held before.
  b_.CreateMemSet(frame_memory, b_.getInt8(0), b_.getInt64(layout->getSizeInBytes()),
                  frame_memory->getAlign());
  FrameLayout &frame = m_.frames[size_t(index_)];
  frame = FrameLayout{f_.python_name, f_.file, f_.first_line, f_.num_params, {}};
  for (size_t i = 0; i < types.size(); ++i) {
    slots_.push_back(b_.CreateStructGEP(frame_type, frame_, unsigned(i), f_.slots[i].name));
    const ir::Slot &slot = f_.slots[i];
    frame.slots.push_back(FrameSlot{python_name(slot.name), slot.type,
                                    layout->getElementOffset(unsigned(i)), slot.first_line,
                                    slot.last_line});
  }
}

void FunctionLowering::statement_hook(ir::Loc where) {
  if (!instrumented())
    return;
  target_.statement(emitter_, loc(where));
  check_status();
}

void FunctionLowering::access_hook(llvm::Value *address, const Type &array, Scalar scalar,
                                   uint32_t size, AccessKind kind, llvm::Value *value,
                                   ir::Loc where) {
  if (!reports_accesses())
    return;
  llvm::Value *bits = b_.getInt64(0);
  const unsigned width = unsigned(byte_size(scalar)) * 8;
  if (value != nullptr &&
      (value->getType()->isIntegerTy() || value->getType()->isFloatingPointTy()) && width <= 64)
    bits = b_.CreateZExt(b_.CreateBitCast(value, b_.getIntNTy(width)), b_.getInt64Ty());
  // A GPU faults on an access that is not aligned to its scalar (a complex to its parts'); the
  // checkers report it. A record copied whole has no one scalar: byte aligned.
  const uint32_t align =
      scalar == Scalar::U8 && size != 1 ? 1 : uint32_t(is_complex(scalar) ? width / 16 : width / 8);
  target_.memory_access(emitter_, address, size, align, kind, array.space, bits, loc(where));
  check_status();
}

llvm::BasicBlock *FunctionLowering::bail() {
  if (!bail_)
    bail_ = block("bail");
  return bail_;
}

FunctionLowering::Fault &FunctionLowering::index_fault() {
  if (index_fault_.full()) {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    index_fault_ = Fault{block("index.error"), {}, 0};
    b_.SetInsertPoint(index_fault_.block);
    std::vector<llvm::PHINode *> &operands = index_fault_.operands;
    operands = {b_.CreatePHI(b_.getInt64Ty(), 2, "fault.index"),
                b_.CreatePHI(b_.getInt32Ty(), 2, "fault.axis"),
                b_.CreatePHI(b_.getInt64Ty(), 2, "fault.size"),
                b_.CreatePHI(b_.getInt32Ty(), 2, "fault.loc")};
    announce_thread(); // the report names the faulting thread
    target_.index_error(emitter_, operands[0], operands[1], operands[2], operands[3]);
    b_.CreateBr(bail());
  }
  return index_fault_;
}

FunctionLowering::Fault &FunctionLowering::raise_fault(const std::string &exception,
                                                       const std::string &message) {
  Fault &fault = raise_faults_[{exception, message}];
  if (fault.full()) {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    fault = Fault{block("raise"), {}, 0};
    b_.SetInsertPoint(fault.block);
    fault.operands.push_back(b_.CreatePHI(b_.getInt32Ty(), 2, "fault.loc"));
    announce_thread(); // the report names the faulting thread
    target_.raise(emitter_, exception, message, fault.operands[0]);
    b_.CreateBr(bail());
  }
  return fault;
}

void FunctionLowering::enter_fault(Fault &fault, llvm::ArrayRef<llvm::Value *> operands) {
  ++fault.sites;
  for (size_t i = 0; i < operands.size(); ++i)
    fault.operands[i]->addIncoming(operands[i], b_.GetInsertBlock());
  b_.CreateBr(fault.block);
}

void FunctionLowering::fault_if(llvm::Value *failed, Fault &fault,
                                llvm::ArrayRef<llvm::Value *> operands) {
  ++fault.sites;
  for (size_t i = 0; i < operands.size(); ++i)
    fault.operands[i]->addIncoming(operands[i], b_.GetInsertBlock());
  llvm::BasicBlock *next = block("ok");
  b_.CreateCondBr(failed, fault.block, next, unlikely(ctx()));
  b_.SetInsertPoint(next);
}

// A kernel returns whether its thread stopped early; a device function's value is unused when it
// stopped (its caller checks the status), and the typer guarantees a value on normal paths.
void FunctionLowering::return_from_function(bool stopped) {
  if (instrumented() && !stopped)
    target_.leave_function(emitter_);
  if (f_.is_kernel)
    b_.CreateRet(b_.getInt1(stopped));
  else if (fn_->getReturnType()->isVoidTy())
    b_.CreateRetVoid();
  else
    b_.CreateRet(llvm::PoisonValue::get(fn_->getReturnType()));
}

void FunctionLowering::check_status() {
  llvm::BasicBlock *next = block("running");
  b_.CreateCondBr(target_.must_return(emitter_), bail(), next, unlikely(ctx()));
  b_.SetInsertPoint(next);
}

void FunctionLowering::raise_if(llvm::Value *failed, const std::string &exception,
                                const std::string &message, ir::Loc where) {
  fault_if(failed, raise_fault(exception, message), {b_.getInt32(loc(where))});
}

// ---- statements ----

void FunctionLowering::statements(std::span<const ir::Stmt> stmts) {
  for (const ir::Stmt &s : stmts) {
    if (terminated())
      start_dead_block();
    statement(s);
  }
}

void FunctionLowering::statement(const ir::Stmt &s) {
  if (scope_)
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, s.loc));
  statement_hook(s.loc);
  switch (s.kind) {
  case ir::StmtKind::Assign:
    b_.CreateStore(expr(*s.exprs[0]), slot_address(s.slot));
    return;
  case ir::StmtKind::Store: {
    if (s.exprs[0]->type.is_record_array()) {
      record_copy(s);
      return;
    }
    // Python evaluates the value before the target.
    Scalar dtype = s.exprs[0]->type.scalar;
    llvm::Value *value = register_to_memory(b_, expr(*s.exprs.back()), dtype);
    llvm::Value *addr = element_address(s.exprs, 1, s.loc);
    access_hook(addr, s.exprs[0]->type, dtype, uint32_t(byte_size(dtype)), AccessKind::Store, value,
                s.loc);
    b_.CreateAlignedStore(value, addr, llvm::Align(byte_size(dtype)));
    return;
  }
  case ir::StmtKind::Eval:
    expr(*s.exprs[0]);
    return;
  case ir::StmtKind::If:
    if_statement(s);
    return;
  case ir::StmtKind::While:
    while_statement(s);
    return;
  case ir::StmtKind::ForRange:
    for_range(s);
    return;
  case ir::StmtKind::Break:
  case ir::StmtKind::Continue:
    if (loops_.empty())
      throw std::logic_error("simt: break/continue outside a loop");
    b_.CreateBr(s.kind == ir::StmtKind::Break ? loops_.back().exit : loops_.back().next);
    return;
  case ir::StmtKind::Return:
    if (region_ && f_.is_kernel) {
      // The thread leaves the block's later regions.
      if (!s.exprs.empty())
        expr(*s.exprs[0]);
      if (alive_) // else no region follows this one
        b_.CreateStore(b_.getInt8(0),
                       b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, region_->thread));
      b_.CreateBr(region_->next);
      return;
    }
    if (!s.exprs.empty() && !f_.is_kernel && !fn_->getReturnType()->isVoidTy()) {
      llvm::Value *result = expr(*s.exprs[0]);
      if (instrumented())
        target_.leave_function(emitter_);
      b_.CreateRet(result);
      return;
    }
    if (!s.exprs.empty())
      expr(*s.exprs[0]);
    return_from_function(false);
    return;
  case ir::StmtKind::Raise:
    enter_fault(raise_fault(s.exc, s.message), {b_.getInt32(loc(s.loc))});
    return;
  case ir::StmtKind::Assert:
    raise_if(b_.CreateNot(expr(*s.exprs[0])), "AssertionError", s.message, s.loc);
    return;
  case ir::StmtKind::SyncThreads:
    target_.barrier(emitter_, loc(s.loc));
    check_status();
    return;
  case ir::StmtKind::Print:
    print(s);
    return;
  case ir::StmtKind::FieldStore:
    field_store(s);
    return;
  }
}

void FunctionLowering::if_statement(const ir::Stmt &s, llvm::BasicBlock *merge) {
  llvm::Value *cond = expr(*s.exprs[0]);
  llvm::BasicBlock *then_block = block("then");
  llvm::BasicBlock *else_block = s.orelse.empty() ? nullptr : block("else");
  const bool own_merge = merge == nullptr;
  if (own_merge)
    merge = block("endif");
  b_.CreateCondBr(cond, then_block, else_block ? else_block : merge);
  b_.SetInsertPoint(then_block);
  branch(s.body, merge);
  if (else_block) {
    b_.SetInsertPoint(else_block);
    branch(s.orelse, merge);
  }
  if (own_merge)
    b_.SetInsertPoint(merge);
}

// An if that ends a branch (an elif, or an if last in a body) continues at the enclosing if's
// merge block: a chain of n of them gets one merge block, not n nested empty ones, which LLVM's
// CFG simplification would fold one by one in time quadratic in n.
void FunctionLowering::branch(const std::vector<ir::Stmt> &stmts, llvm::BasicBlock *merge) {
  const bool ends_with_if = !stmts.empty() && stmts.back().kind == ir::StmtKind::If;
  statements(std::span(stmts).first(stmts.size() - ends_with_if));
  if (ends_with_if) {
    if (terminated())
      start_dead_block();
    if_statement(stmts.back(), merge);
  } else if (!terminated()) {
    b_.CreateBr(merge);
  }
}

void FunctionLowering::while_statement(const ir::Stmt &s, bool block_level) {
  llvm::BasicBlock *head = block("while");
  llvm::BasicBlock *body = block("while.body");
  llvm::BasicBlock *latch = block("while.next");
  llvm::BasicBlock *exit = block("while.end");
  llvm::BasicBlock *normal_exit = s.orelse.empty() ? exit : block("while.else");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  b_.CreateCondBr(control_values(s.exprs, block_level)[0], body, normal_exit);
  b_.SetInsertPoint(body);
  loops_.push_back({latch, exit});
  loop_statements(s.body, block_level);
  loops_.pop_back();
  if (!terminated())
    b_.CreateBr(latch);
  b_.SetInsertPoint(latch);
  statement_hook(s.loc);
  back_edge(head, ir::loop_may_spin(s), s.loc);
  loop_else(s, normal_exit, exit, block_level);
}

void FunctionLowering::loop_statements(const std::vector<ir::Stmt> &stmts, bool block_level) {
  if (block_level)
    block_statements(stmts);
  else
    statements(stmts);
}

std::vector<llvm::Value *> FunctionLowering::control_values(const std::vector<ir::ExprPtr> &exprs,
                                                            bool block_level) {
  if (block_level) {
    for (const ir::ExprPtr &e : exprs)
      reductions(*e);
    first_live_thread();
  }
  std::vector<llvm::Value *> values;
  for (const ir::ExprPtr &e : exprs)
    values.push_back(expr(*e));
  block_reductions_.clear();
  return values;
}

void FunctionLowering::back_edge(llvm::BasicBlock *head, bool spins, ir::Loc where) {
  if (!bail_)
    bail_ = block("bail");
  b_.CreateCondBr(target_.loop_back_edge(emitter_, spins, loc(where)), bail_, head,
                  unlikely(ctx()));
}

void FunctionLowering::loop_else(const ir::Stmt &s, llvm::BasicBlock *normal_exit,
                                 llvm::BasicBlock *exit, bool block_level) {
  if (normal_exit != exit) {
    b_.SetInsertPoint(normal_exit);
    loop_statements(s.orelse, block_level);
    if (!terminated())
      b_.CreateBr(exit);
  }
  b_.SetInsertPoint(exit);
}

// for slot in range(start, stop, step): the loop variable runs in a register; the slot gets
// each value, so it keeps the last one after the loop as in Python.
void FunctionLowering::for_range(const ir::Stmt &s, bool block_level) {
  const std::vector<llvm::Value *> bounds = control_values(s.exprs, block_level);
  llvm::Value *start = bounds[0], *stop = bounds[1], *step = bounds[2];
  llvm::Value *zero = b_.getInt64(0);
  raise_if(b_.CreateICmpEQ(step, zero), "ValueError", "range() arg 3 must not be zero", s.loc);
  llvm::Value *ascending = b_.CreateICmpSGT(step, zero);
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::BasicBlock *head = block("for");
  llvm::BasicBlock *body = block("for.body");
  llvm::BasicBlock *next = block("for.next");
  llvm::BasicBlock *exit = block("for.end");
  llvm::BasicBlock *normal_exit = s.orelse.empty() ? exit : block("for.else");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode *i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
  i->addIncoming(start, before);
  llvm::Value *more =
      b_.CreateSelect(ascending, b_.CreateICmpSLT(i, stop), b_.CreateICmpSGT(i, stop));
  b_.CreateCondBr(more, body, normal_exit);
  b_.SetInsertPoint(body);
  b_.CreateStore(i, slot_address(s.slot));
  loops_.push_back({next, exit});
  loop_statements(s.body, block_level);
  loops_.pop_back();
  if (!terminated())
    b_.CreateBr(next);
  b_.SetInsertPoint(next);
  statement_hook(s.loc);
  llvm::Value *i_next = b_.CreateNSWAdd(i, step, "i.next");
  // A loop of a few iterations fixed at compile time ends soon: it need not look for a stop
  // request (its body's own loops do), which would keep LLVM from unrolling and vectorising it.
  // A block-level loop's iterations run whole regions: it looks.
  if (short_constant_range(s) && !instrumented() && !block_level)
    b_.CreateBr(head);
  else
    back_edge(head, /*spins=*/false, s.loc);
  i->addIncoming(i_next, b_.GetInsertBlock());
  loop_else(s, normal_exit, exit, block_level);
}

bool FunctionLowering::short_constant_range(const ir::Stmt &s) {
  constexpr int64_t kMaxUnpolledIterations = 4096;
  for (const ir::ExprPtr &bound : s.exprs)
    if (bound->kind != ir::ExprKind::Const)
      return false;
  const int64_t start = s.exprs[0]->int_value, stop = s.exprs[1]->int_value,
                step = s.exprs[2]->int_value;
  if (step == 0)
    return false;
  const int64_t span = step > 0 ? stop - start : start - stop;
  const int64_t magnitude = step > 0 ? step : -step;
  return span <= kMaxUnpolledIterations * magnitude;
}

void FunctionLowering::print(const ir::Stmt &s) {
  std::vector<PrintItem> items;
  for (const ir::ExprPtr &e : s.exprs) {
    if (e->kind == ir::ExprKind::String) {
      items.push_back(PrintItem{nullptr, e->type, e->name});
      continue;
    }
    if (!e->type.is_scalar())
      unsupported("printing a value of type " + e->type.str());
    if (e->type.scalar == Scalar::BF16) { // printed as the float32 it is
      items.push_back(PrintItem{bfloat16_to_float(b_, expr(*e)), Type::scalar_of(Scalar::F32), ""});
      continue;
    }
    items.push_back(PrintItem{expr(*e), e->type, ""});
  }
  for (size_t i = 0; i < items.size(); ++i) {
    auto glue = [&](size_t k) {
      return s.exprs[k]->kind == ir::ExprKind::String ? s.exprs[k]->int_value : 0;
    };
    items[i].space_before =
        i > 0 && !(glue(i) & ir::kPrintGlueBefore) && !(glue(i - 1) & ir::kPrintGlueAfter);
  }
  target_.print(emitter_, items);
}

// ---- loop fission (frontend/ir_fission.h) ----

// Lays out the block's per-thread memory in the target's scratch memory: which threads are live,
// the locals threads keep across regions, their local arrays; every thread starts live, its
// parameters holding the arguments.
void FunctionLowering::start_fission() {
  for (int axis = 0; axis < 3; ++axis)
    block_dim_[axis] = target_.special_register(emitter_, ir::Op::BlockDim, axis);
  llvm::Value *threads =
      b_.CreateNUWMul(b_.CreateNUWMul(block_dim_[0], block_dim_[1]), block_dim_[2]);
  threads_ = b_.CreateZExt(threads, b_.getInt64Ty(), "threads");
  const llvm::DataLayout &layout = m_.module->getDataLayout();
  // Each array starts 16-byte aligned: offsets grow by multiples of 16 bytes per thread.
  std::vector<llvm::Value *> offsets;
  llvm::Value *offset = b_.getInt64(0);
  auto allocate = [&](int64_t bytes_per_thread, int64_t alignment = 16) {
    if (alignment > 16) // alignment= of a local array: the scratch is max_array_alignment-aligned
      offset = b_.CreateAnd(b_.CreateNUWAdd(offset, b_.getInt64(alignment - 1)), -alignment);
    offsets.push_back(offset);
    const int64_t rounded = (bytes_per_thread + alignment - 1) / alignment * alignment;
    offset = b_.CreateNUWAdd(offset, b_.CreateNUWMul(threads_, b_.getInt64(rounded)));
  };
  for (int axis = 0; axis < 3; ++axis) {
    current_tid_[axis] = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "current.tid");
    b_.CreateStore(b_.getInt32(0), current_tid_[axis]);
  }
  if (plan_->threads_return)
    allocate(1); // alive flags
  for (size_t slot = 0; slot < f_.slots.size(); ++slot)
    if (plan_->per_thread_slots[slot])
      allocate(int64_t(layout.getTypeAllocSize(register_type(ctx(), f_.slots[slot].type))));
  for (size_t k = 0; k < local_array_bytes_.size(); ++k)
    allocate(local_array_bytes_[k], local_array_alignment(int(k)));
  // A kernel keeping nothing across regions asks for no scratch (a call per block).
  llvm::Value *scratch = offsets.empty() ? nullptr : target_.block_scratch(emitter_, offset);
  size_t next = 0;
  auto base = [&]() { return b_.CreateInBoundsGEP(b_.getInt8Ty(), scratch, offsets[next++]); };
  if (plan_->threads_return) {
    alive_ = base();
    b_.CreateMemSet(alive_, b_.getInt8(1), threads_, llvm::MaybeAlign(16));
  }
  per_thread_slots_.assign(f_.slots.size(), nullptr);
  for (size_t slot = 0; slot < f_.slots.size(); ++slot)
    if (plan_->per_thread_slots[slot])
      per_thread_slots_[slot] = base();
  for (size_t k = 0; k < local_array_bytes_.size(); ++k)
    per_thread_local_arrays_.push_back(base());
  if (check_variant() && !local_array_bytes_.empty())
    for_each_thread(false, [&] {
      for (size_t k = 0; k < local_array_bytes_.size(); ++k)
        local_array_event(int(k), local_array_address(int(k)));
    });
  std::vector<int> parameters;
  for (int i = 0; i < f_.num_params; ++i)
    if (plan_->per_thread_slots[size_t(i)])
      parameters.push_back(i);
  if (parameters.empty())
    return;
  std::vector<llvm::Value *> values;
  for (int i : parameters)
    values.push_back(b_.CreateLoad(register_type(ctx(), f_.slots[size_t(i)].type), slots_[i]));
  for_each_thread(false, [&] {
    for (size_t k = 0; k < parameters.size(); ++k)
      b_.CreateStore(values[k], slot_address(parameters[k]));
  });
}

llvm::Value *FunctionLowering::slot_address(int slot) {
  if (fissioned() && region_ && plan_->recomputed[size_t(slot)]) {
    // Recomputed where the region starts the thread, so every statement sees it.
    if (!region_->slots.count(slot)) {
      region_->slots[slot] = slots_[size_t(slot)];
      setup([&] {
        return b_.CreateStore(expr(*plan_->recomputed[size_t(slot)]), slots_[size_t(slot)]);
      });
    }
    return slots_[size_t(slot)];
  }
  if (!fissioned() || !per_thread_slots_[size_t(slot)])
    return slots_[size_t(slot)];
  if (!region_)
    throw std::logic_error("simt: a thread's local read outside a region");
  llvm::Value *&address = region_->slots[slot];
  if (!address)
    address = setup([&] {
      return b_.CreateInBoundsGEP(register_type(ctx(), f_.slots[size_t(slot)].type),
                                  per_thread_slots_[size_t(slot)], region_->thread,
                                  f_.slots[size_t(slot)].name);
    });
  return address;
}

llvm::Value *FunctionLowering::setup(const std::function<llvm::Value *()> &emit) {
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  llvm::Instruction *branch = region_->setup->getTerminator();
  b_.SetInsertPoint(branch);
  llvm::Value *value = emit();
  if (b_.GetInsertBlock() != region_->setup) // ir::FissionPlan::recomputed never branches
    throw std::logic_error("simt: a thread's setup code branched");
  return value;
}

// A local array's alignment: its alignment= (a power of two), at least 16 bytes.
int64_t FunctionLowering::local_array_alignment(int index) const {
  return std::max<int64_t>(16, f_.local_arrays[size_t(index)].alignment);
}

llvm::Value *FunctionLowering::local_array_address(int index) {
  if (!fissioned())
    return local_arrays_[size_t(index)];
  if (!region_)
    throw std::logic_error("simt: a thread's local array outside a region");
  llvm::Value *&address = region_->local_arrays[index];
  if (!address)
    address = setup([&] {
      const int64_t alignment = local_array_alignment(index);
      const int64_t stride =
          (local_array_bytes_[size_t(index)] + alignment - 1) / alignment * alignment;
      return b_.CreateInBoundsGEP(b_.getInt8Ty(), per_thread_local_arrays_[size_t(index)],
                                  b_.CreateNUWMul(region_->thread, b_.getInt64(stride)), "local");
    });
  return address;
}

// Three nested loops, z outermost, over the block's threads; the linear index counts along.
void FunctionLowering::for_each_thread(
    bool live_only, const std::function<void()> &body,
    std::optional<std::pair<llvm::Value *, llvm::Value *>> x_range) {
  live_only = live_only && alive_;
  llvm::BasicBlock *exit = block("threads.end");
  llvm::BasicBlock *heads[3], *latches[3];
  llvm::PHINode *counters[3];
  llvm::Value *row = b_.getInt64(0); // linear index of the current row's thread x = 0
  llvm::BasicBlock *outer = b_.GetInsertBlock();
  for (int axis = 2; axis >= 0; --axis) {
    heads[axis] = block("thread.loop");
    latches[axis] = block("thread.next");
    b_.CreateBr(heads[axis]);
    b_.SetInsertPoint(heads[axis]);
    counters[axis] = b_.CreatePHI(b_.getInt32Ty(), 2, "tid");
    const bool ranged = axis == 0 && x_range;
    counters[axis]->addIncoming(ranged ? x_range->first : b_.getInt32(0), outer);
    llvm::BasicBlock *inside = block("thread.inside");
    b_.CreateCondBr(b_.CreateICmpULT(counters[axis], ranged ? x_range->second : block_dim_[axis]),
                    inside, axis == 2 ? exit : latches[axis + 1]);
    b_.SetInsertPoint(inside);
    llvm::Value *counter = b_.CreateZExt(counters[axis], b_.getInt64Ty());
    row = axis == 0 ? b_.CreateNUWAdd(row, counter, "thread")
                    : b_.CreateNUWMul(b_.CreateNUWAdd(row, counter),
                                      b_.CreateZExt(block_dim_[axis - 1], b_.getInt64Ty()));
    outer = inside;
  }
  llvm::Value *thread = row;
  llvm::BasicBlock *start = block("thread.start");
  llvm::BasicBlock *run = block("thread.run");
  b_.CreateBr(start);
  b_.SetInsertPoint(start);
  if (live_only) {
    llvm::Value *alive =
        b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, thread));
    b_.CreateCondBr(b_.CreateICmpNE(alive, b_.getInt8(0)), run, latches[0]);
  } else {
    b_.CreateBr(run);
  }
  b_.SetInsertPoint(run);
  // The addresses of the thread's copies of locals go where its index is computed, which
  // dominates every statement of the region (slot_address).
  if (!llvm::isa<llvm::Instruction>(thread))
    throw std::logic_error("simt: the thread index is not an instruction");
  for (int axis = 0; axis < 3; ++axis)
    b_.CreateStore(counters[axis], current_tid_[axis]);
  if (check_variant()) // the checkers see which thread each access is of
    target_.enter_thread(emitter_, {counters[0], counters[1], counters[2]});
  std::optional<Region> outer_region = std::move(region_);
  std::vector<Loop> outer_loops = std::move(loops_);
  loops_.clear();
  region_ = Region{thread,     {counters[0], counters[1], counters[2]},
                   latches[0], llvm::cast<llvm::Instruction>(thread)->getParent(),
                   {},         {}};
  body();
  if (!terminated())
    b_.CreateBr(latches[0]);
  region_ = std::move(outer_region);
  loops_ = std::move(outer_loops);
  for (int axis = 0; axis < 3; ++axis) {
    b_.SetInsertPoint(latches[axis]);
    counters[axis]->addIncoming(b_.CreateNUWAdd(counters[axis], b_.getInt32(1)), latches[axis]);
    b_.CreateBr(heads[axis]);
  }
  b_.SetInsertPoint(exit);
}

void FunctionLowering::region(std::span<const ir::Stmt> stmts) {
  // Assignments of recomputed locals before an if change nothing its guard could skip.
  size_t prefix = 0;
  while (prefix < stmts.size() && stmts[prefix].kind == ir::StmtKind::Assign &&
         plan_->recomputed[size_t(stmts[prefix].slot)])
    ++prefix;
  auto range = guarded_range(stmts.subspan(prefix));
  for_each_thread(
      true,
      [&] {
        if (!range) {
          statements(stmts);
          return;
        }
        // The threads outside the range skip the if: inside it, its first condition holds.
        statements(stmts.first(prefix));
        const ir::Stmt &guard = stmts[prefix];
        if (scope_)
          b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, guard.loc));
        const ir::Expr &cond = *guard.exprs[0];
        llvm::BasicBlock *skip = block("guard.skip");
        for (size_t k = 1; cond.kind == ir::ExprKind::And && k < cond.args.size(); ++k) {
          llvm::BasicBlock *next = block("guard.next");
          b_.CreateCondBr(expr(*cond.args[k]), next, skip);
          b_.SetInsertPoint(next);
        }
        statements(guard.body);
        if (!terminated())
          b_.CreateBr(skip);
        b_.SetInsertPoint(skip);
      },
      range);
}

void FunctionLowering::block_statements(const std::vector<ir::Stmt> &stmts) {
  size_t next = 0;
  while (next < stmts.size()) {
    if (terminated())
      start_dead_block();
    if (plan_->block_level.count(&stmts[next])) {
      block_statement(stmts[next++]);
      continue;
    }
    const size_t first = next;
    while (next < stmts.size() && !plan_->block_level.count(&stmts[next]))
      ++next;
    region(std::span(stmts).subspan(first, next - first));
  }
}

void FunctionLowering::block_statement(const ir::Stmt &s) {
  if (scope_)
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, s.loc));
  switch (s.kind) {
  case ir::StmtKind::SyncThreads: // every thread has run the regions before it
    if (check_variant())
      target_.fissioned_barrier(emitter_, loc(s.loc));
    return;
  case ir::StmtKind::If:
    block_if(s);
    return;
  case ir::StmtKind::While:
    while_statement(s, /*block_level=*/true);
    return;
  case ir::StmtKind::ForRange:
    for_range(s, /*block_level=*/true);
    return;
  case ir::StmtKind::Break:
  case ir::StmtKind::Continue:
    b_.CreateBr(s.kind == ir::StmtKind::Break ? loops_.back().exit : loops_.back().next);
    return;
  case ir::StmtKind::Return: // every live thread returns: the block is done
    if (!s.exprs.empty()) {
      first_live_thread();
      expr(*s.exprs[0]);
    }
    return_from_function(false);
    return;
  default:
    break;
  }
  for (const ir::ExprPtr &e : s.exprs)
    reductions(*e);
  if (s.kind == ir::StmtKind::Assign && plan_->block_level_slots[size_t(s.slot)]) {
    first_live_thread();
    b_.CreateStore(expr(*s.exprs[0]), slots_[size_t(s.slot)]);
  } else {
    region(std::span(&s, 1));
  }
  for (const ir::ExprPtr &e : s.exprs)
    block_reductions_.erase(e.get());
}

void FunctionLowering::block_if(const ir::Stmt &s) {
  llvm::Value *cond = control_values(s.exprs, /*block_level=*/true)[0];
  llvm::BasicBlock *then_block = block("block.then");
  llvm::BasicBlock *else_block = block("block.else");
  llvm::BasicBlock *merge = block("block.endif");
  b_.CreateCondBr(cond, then_block, else_block);
  for (auto [branch, stmts] : {std::pair{then_block, &s.body}, std::pair{else_block, &s.orelse}}) {
    b_.SetInsertPoint(branch);
    block_statements(*stmts);
    if (!terminated())
      b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

void FunctionLowering::reductions(const ir::Expr &e) {
  if (!ir::is_barrier_reduction(e)) {
    for (const ir::ExprPtr &arg : e.args)
      reductions(*arg);
    return;
  }
  // Counts the live threads and those whose predicate holds (in registers, once SROA is done).
  llvm::Value *holds, *live;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().getFirstInsertionPt());
    holds = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "holds");
    live = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "live");
  }
  b_.CreateStore(b_.getInt64(0), holds);
  b_.CreateStore(b_.getInt64(0), live);
  for_each_thread(true, [&] {
    llvm::Value *predicate = b_.CreateICmpNE(expr(*e.args[0]), b_.getInt32(0));
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), holds),
                                b_.CreateZExt(predicate, b_.getInt64Ty())),
                   holds);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), live), b_.getInt64(1)), live);
  });
  if (check_variant())
    target_.fissioned_barrier(emitter_, loc(e.loc));
  llvm::Value *count = b_.CreateLoad(b_.getInt64Ty(), holds);
  llvm::Value *result;
  if (e.intrinsic == ir::Intrinsic::SyncthreadsCount)
    result = b_.CreateTrunc(count, b_.getInt32Ty());
  else if (e.intrinsic == ir::Intrinsic::SyncthreadsAnd)
    result = b_.CreateZExt(b_.CreateICmpEQ(count, b_.CreateLoad(b_.getInt64Ty(), live)),
                           b_.getInt32Ty());
  else
    result = b_.CreateZExt(b_.CreateICmpNE(count, b_.getInt64(0)), b_.getInt32Ty());
  block_reductions_[&e] = result;
}

void FunctionLowering::first_live_thread() {
  if (!alive_) { // every thread is live: thread 0 is the first
    for (int axis = 0; axis < 3; ++axis)
      b_.CreateStore(b_.getInt32(0), current_tid_[axis]);
    if (check_variant())
      announce_thread();
    return;
  }
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::BasicBlock *scan = block("first.live");
  llvm::BasicBlock *test = block("first.live.test");
  llvm::BasicBlock *none = block("block.done");
  llvm::BasicBlock *found = block("first.live.found");
  b_.CreateBr(scan);
  b_.SetInsertPoint(scan);
  llvm::PHINode *thread = b_.CreatePHI(b_.getInt64Ty(), 2, "thread");
  thread->addIncoming(b_.getInt64(0), before);
  b_.CreateCondBr(b_.CreateICmpULT(thread, threads_), test, none, likely(ctx()));
  b_.SetInsertPoint(test);
  llvm::Value *alive =
      b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, thread));
  thread->addIncoming(b_.CreateNUWAdd(thread, b_.getInt64(1)), test);
  b_.CreateCondBr(b_.CreateICmpNE(alive, b_.getInt8(0)), found, scan, likely(ctx()));
  b_.SetInsertPoint(none);
  return_from_function(false);
  b_.SetInsertPoint(found);
  llvm::Value *x_extent = b_.CreateZExt(block_dim_[0], b_.getInt64Ty());
  llvm::Value *y_extent = b_.CreateZExt(block_dim_[1], b_.getInt64Ty());
  llvm::Value *x = b_.CreateURem(thread, x_extent);
  llvm::Value *y = b_.CreateURem(b_.CreateUDiv(thread, x_extent), y_extent);
  llvm::Value *z = b_.CreateUDiv(thread, b_.CreateNUWMul(x_extent, y_extent));
  b_.CreateStore(b_.CreateTrunc(x, b_.getInt32Ty()), current_tid_[0]);
  b_.CreateStore(b_.CreateTrunc(y, b_.getInt32Ty()), current_tid_[1]);
  b_.CreateStore(b_.CreateTrunc(z, b_.getInt32Ty()), current_tid_[2]);
  if (check_variant())
    announce_thread();
}

void FunctionLowering::announce_thread() {
  if (!fissioned())
    return;
  llvm::Value *tid[3];
  for (int axis = 0; axis < 3; ++axis)
    tid[axis] = b_.CreateLoad(b_.getInt32Ty(), current_tid_[axis]);
  target_.enter_thread(emitter_, tid);
}

bool FunctionLowering::thread_x_plus(const ir::Expr &e,
                                     std::vector<const ir::Expr *> &terms) const {
  switch (e.kind) {
  case ir::ExprKind::Special:
    return e.op == ir::Op::ThreadIdx && e.index == 0;
  case ir::ExprKind::Cast: // to an integer as wide or wider, so no value changes
    return is_integer(e.type.scalar) && is_integer(e.args[0]->type.scalar) &&
           byte_size(e.type.scalar) >= std::max(4, byte_size(e.args[0]->type.scalar)) &&
           (scalar_is_signed(e.args[0]->type.scalar) || byte_size(e.type.scalar) > 4) &&
           thread_x_plus(*e.args[0], terms);
  case ir::ExprKind::Local:
    return plan_->recomputed[size_t(e.index)] &&
           thread_x_plus(*plan_->recomputed[size_t(e.index)], terms);
  case ir::ExprKind::Binary:
    if (e.op != ir::Op::Add || !(e.no_wrap || e.type.scalar == Scalar::I64))
      return false;
    for (size_t side = 0; side < 2; ++side) {
      const ir::Expr &other = *e.args[1 - side];
      if (ir::is_block_uniform(other, plan_->block_level_slots) && !m_.expr_may_fault(other) &&
          thread_x_plus(*e.args[side], terms)) {
        terms.push_back(&other);
        return true;
      }
    }
    return false;
  default:
    return false;
  }
}

std::optional<std::pair<llvm::Value *, llvm::Value *>>
FunctionLowering::guarded_range(std::span<const ir::Stmt> stmts) {
  if (stmts.size() != 1 || stmts[0].kind != ir::StmtKind::If || !stmts[0].orelse.empty() ||
      !stmts[0].exprs[0]->type.is_scalar() || stmts[0].exprs[0]->type.scalar != Scalar::Bool)
    return std::nullopt;
  const ir::Expr *cond = stmts[0].exprs[0].get();
  if (cond->kind == ir::ExprKind::And)
    cond = cond->args[0].get(); // the first conjunct bounds the others' threads too
  if (cond->kind != ir::ExprKind::Compare || !cond->args[0]->type.is_scalar() ||
      !is_integer(cond->args[0]->type.scalar))
    return std::nullopt;
  ir::Op op = cond->op;
  std::vector<const ir::Expr *> terms;
  const ir::Expr *bound = cond->args[1].get();
  if (!thread_x_plus(*cond->args[0], terms)) {
    terms.clear();
    if (!thread_x_plus(*cond->args[1], terms))
      return std::nullopt;
    bound = cond->args[0].get();
    static const std::map<ir::Op, ir::Op> swapped = {{ir::Op::Lt, ir::Op::Gt},
                                                     {ir::Op::Le, ir::Op::Ge},
                                                     {ir::Op::Gt, ir::Op::Lt},
                                                     {ir::Op::Ge, ir::Op::Le},
                                                     {ir::Op::Eq, ir::Op::Eq}};
    auto found = swapped.find(op);
    if (found == swapped.end())
      return std::nullopt;
    op = found->second;
  }
  if (op == ir::Op::Ne || !ir::is_block_uniform(*bound, plan_->block_level_slots) ||
      m_.expr_may_fault(*bound))
    return std::nullopt;
  auto widened = [&](const ir::Expr &e) {
    llvm::Value *v = expr(e);
    return scalar_is_signed(e.type.scalar) ? b_.CreateSExtOrTrunc(v, b_.getInt64Ty())
                                           : b_.CreateZExtOrTrunc(v, b_.getInt64Ty());
  };
  // threadIdx.x + terms op bound: threadIdx.x op bound - terms (the terms are block indices and
  // extents, far from overflowing), as a range of threadIdx.x clamped to [0, blockDim.x].
  llvm::Value *value = widened(*bound);
  for (const ir::Expr *term : terms)
    value = b_.CreateSub(value, widened(*term));
  llvm::Value *extent = b_.CreateZExt(block_dim_[0], b_.getInt64Ty());
  auto clamp = [&](llvm::Value *v) {
    llvm::Value *low = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(0), v);
    return b_.CreateTrunc(b_.CreateSelect(b_.CreateICmpSGT(low, extent), extent, low),
                          b_.getInt32Ty());
  };
  // bound + 1 cannot overflow usefully: a bound of INT64_MAX leaves every thread in range.
  llvm::Value *after = b_.CreateSelect(b_.CreateICmpEQ(value, b_.getInt64(INT64_MAX)), value,
                                       b_.CreateAdd(value, b_.getInt64(1)));
  switch (op) {
  case ir::Op::Lt:
    return std::pair{b_.getInt32(0), clamp(value)};
  case ir::Op::Le:
    return std::pair{b_.getInt32(0), clamp(after)};
  case ir::Op::Gt:
    return std::pair{clamp(after), block_dim_[0]};
  case ir::Op::Ge:
    return std::pair{clamp(value), block_dim_[0]};
  default: // Eq
    return std::pair{clamp(value), clamp(after)};
  }
}

// ---- expressions ----

llvm::Value *FunctionLowering::special_register(ir::Op op, int index) {
  // In a fissioned region the thread's ids are the region's loop variables.
  if (fissioned() && region_ && op == ir::Op::ThreadIdx)
    return region_->tid[index];
  if (fissioned() && region_ && op == ir::Op::LaneId)
    return b_.CreateAnd(b_.CreateTrunc(region_->thread, b_.getInt32Ty()), b_.getInt32(31),
                        "laneid");
  return target_.special_register(emitter_, op, index);
}

llvm::Value *FunctionLowering::expr(const ir::Expr &e) {
  if (fissioned()) {
    auto reduced = block_reductions_.find(&e);
    if (reduced != block_reductions_.end())
      return reduced->second;
  }
  switch (e.kind) {
  case ir::ExprKind::Const:
    return constant(e);
  case ir::ExprKind::String:
    unsupported("a string outside print()");
  case ir::ExprKind::Local:
    return b_.CreateLoad(register_type(ctx(), e.type), slot_address(e.index),
                         m_.ir.functions[index_].slots[e.index].name);
  case ir::ExprKind::Unary:
    return unary(e);
  case ir::ExprKind::Binary:
    return binary(e);
  case ir::ExprKind::Compare:
    return compare(e);
  case ir::ExprKind::And:
  case ir::ExprKind::Or:
    return short_circuit(e);
  case ir::ExprKind::Select:
    return select(e);
  case ir::ExprKind::Cast:
    return cast(expr(*e.args[0]), e.args[0]->type, e.type);
  case ir::ExprKind::Special:
    return special_register(e.op, e.index);
  case ir::ExprKind::ArrayLoad: {
    llvm::Value *addr = element_address(e.args, 1, e.loc);
    if (e.type.is_record())
      return addr; // a record refers to its element
    Scalar dtype = e.args[0]->type.scalar;
    access_hook(addr, e.args[0]->type, dtype, uint32_t(byte_size(dtype)), AccessKind::Load, nullptr,
                e.loc);
    llvm::Value *value =
        b_.CreateAlignedLoad(memory_type(ctx(), dtype), addr, llvm::Align(byte_size(dtype)));
    return memory_to_register(b_, value, dtype);
  }
  case ir::ExprKind::ArrayShape:
    return b_.CreateExtractValue(expr(*e.args[0]), {1, unsigned(e.index)});
  case ir::ExprKind::ArrayStride:
    return b_.CreateExtractValue(expr(*e.args[0]), {2, unsigned(e.index)});
  case ir::ExprKind::ArraySize:
    return array_size(expr(*e.args[0]), e.args[0]->type.ndim);
  case ir::ExprKind::ArrayAddress:
    return b_.CreatePtrToInt(b_.CreateExtractValue(expr(*e.args[0]), {0}), b_.getInt64Ty());
  case ir::ExprKind::TupleMake: {
    llvm::Value *tuple = llvm::PoisonValue::get(register_type(ctx(), e.type));
    for (size_t k = 0; k < e.args.size(); ++k)
      tuple = b_.CreateInsertValue(tuple, expr(*e.args[k]), {unsigned(k)});
    return tuple;
  }
  case ir::ExprKind::TupleGet:
    return b_.CreateExtractValue(expr(*e.args[0]), {unsigned(e.index)});
  case ir::ExprKind::Call:
    return call(e);
  case ir::ExprKind::ExternCall:
    return extern_call(e);
  case ir::ExprKind::Intrinsic:
    return intrinsic(e);
  case ir::ExprKind::SharedArray:
    return shared_array(e);
  case ir::ExprKind::LocalArray: {
    const ir::LocalArrayDecl &decl = f_.local_arrays[e.index];
    return memory_array(local_array_address(e.index), decl.elements.dtype, decl.shape,
                        decl.elements.itemsize());
  }
  case ir::ExprKind::ConstArray: {
    const ir::ConstArrayDecl &decl = m_.ir.const_arrays[e.index];
    return memory_array(m_.const_arrays[e.index], decl.dtype, decl.shape,
                        e.type.record ? e.type.record->size : 0);
  }
  case ir::ExprKind::Atomic:
    return atomic(e);
  case ir::ExprKind::ArrayView:
    return array_view(e);
  case ir::ExprKind::DtypeView: { // the same data; one axis's extent and stride replaced
    llvm::Value *array = expr(*e.args[0]);
    llvm::Value *axis = expr(*e.args[1]), *extent = expr(*e.args[2]), *stride = expr(*e.args[3]);
    for (unsigned k = 0; k < unsigned(e.type.ndim); ++k) {
      llvm::Value *here = b_.CreateICmpEQ(axis, b_.getInt64(k));
      for (auto [part, value] : {std::pair{1u, extent}, std::pair{2u, stride}})
        array = b_.CreateInsertValue(
            array, b_.CreateSelect(here, value, b_.CreateExtractValue(array, {part, k})),
            {part, k});
    }
    return array;
  }
  case ir::ExprKind::Reshape: { // the same data; the new extents, C-order strides
    llvm::Value *data = b_.CreateExtractValue(expr(*e.args[0]), {0});
    llvm::Value *array = llvm::UndefValue::get(array_struct_type(b_.getContext(), e.type.ndim));
    array = b_.CreateInsertValue(array, data, {0});
    llvm::Value *stride =
        b_.getInt64(e.type.record ? e.type.record->size : byte_size(e.type.scalar));
    for (unsigned k = unsigned(e.type.ndim); k-- > 0;) {
      llvm::Value *extent = expr(*e.args[k + 1]);
      array = b_.CreateInsertValue(array, extent, {1, k});
      array = b_.CreateInsertValue(array, stride, {2, k});
      stride = b_.CreateMul(stride, extent);
    }
    return array;
  }
  case ir::ExprKind::FieldView: { // the same shape and strides, the data further on
    llvm::Value *array = expr(*e.args[0]);
    llvm::Value *data = b_.CreateExtractValue(array, {0});
    return b_.CreateInsertValue(array, b_.CreateGEP(b_.getInt8Ty(), data, b_.getInt64(e.index)),
                                {0});
  }
  case ir::ExprKind::Slice:
    throw std::logic_error("simt: a slice outside an array view");
  case ir::ExprKind::TupleIndex:
    return tuple_index(e);
  case ir::ExprKind::RecordField:
    return field_load(e);
  case ir::ExprKind::Libdevice:
    return libdevice(e);
  case ir::ExprKind::ArrayAlloc: {
    std::vector<llvm::Value *> extents;
    for (const ir::ExprPtr &arg : e.args)
      extents.push_back(expr(*arg));
    announce_thread(); // a MemoryError names the thread
    llvm::Value *array = allocated_array(emitter_, target_, e.type, extents, e.int_value != 0,
                                         f_.file, e.loc, loc(e.loc));
    check_status(); // a MemoryError
    return array;
  }
  case ir::ExprKind::Bf16:
  case ir::ExprKind::Fp8: {
    std::vector<llvm::Value *> args;
    for (const ir::ExprPtr &arg : e.args)
      args.push_back(expr(*arg));
    if (e.kind == ir::ExprKind::Fp8)
      return fp8_function(b_, ir::Fp8Fn(e.index), args);
    return bfloat16_function(emitter_, target_, ir::Bf16Fn(e.index), args);
  }
  case ir::ExprKind::Fp8Value:
    return fp8_value(b_, ir::Fp8Type(e.index), e.args[0]->type, e.type, expr(*e.args[0]));
  }
  throw std::logic_error("simt: unknown expression kind");
}

llvm::Value *FunctionLowering::constant(const ir::Expr &e) {
  if (!e.type.is_scalar())
    unsupported("a constant of type " + e.type.str());
  llvm::Type *t = register_type(ctx(), e.type);
  if (is_complex(e.type.scalar))
    return complex_constant(ctx(), e.type.scalar, e.float_value, e.imag_value);
  if (is_float(e.type.scalar))
    return llvm::ConstantFP::get(t, e.float_value);
  if (e.type.scalar == Scalar::BF16)
    return b_.getInt16(bfloat16_bits(e.float_value));
  if (e.type.scalar == Scalar::Bool)
    return b_.getInt1(e.int_value != 0);
  return llvm::ConstantInt::get(t, uint64_t(e.int_value), scalar_is_signed(e.type.scalar));
}

llvm::Value *FunctionLowering::truth(llvm::Value *value, const Type &type) {
  if (!type.is_scalar())
    unsupported("the truth value of " + type.str());
  if (type.scalar == Scalar::Bool)
    return value;
  if (is_complex(type.scalar))
    return complex_truth(b_, value);
  if (is_float(type.scalar)) // NaN is truthy
    return b_.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0));
  if (type.scalar == Scalar::BF16)
    return convert_from_bfloat16(b_, value, Scalar::Bool, ir::Bf16Mode::None);
  return b_.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
}

llvm::Value *FunctionLowering::unary(const ir::Expr &e) {
  llvm::Value *x = expr(*e.args[0]);
  const Type &type = e.args[0]->type;
  switch (e.op) {
  case ir::Op::Not:
    return b_.CreateNot(truth(x, type));
  case ir::Op::Pos:
    return x;
  case ir::Op::Neg:
    if (is_complex(type.scalar))
      return complex_unary(b_, e.op, x);
    if (type.scalar == Scalar::BF16)
      return bfloat16_function(emitter_, target_, ir::Bf16Fn::hneg, {x});
    return is_float(type.scalar) ? b_.CreateFNeg(x) : b_.CreateNeg(x);
  case ir::Op::Invert:
    if (is_real(type.scalar))
      unsupported("~ on floats");
    return b_.CreateNot(x);
  default:
    throw std::logic_error("simt: bad unary operator");
  }
}

llvm::Value *FunctionLowering::binary(const ir::Expr &e) {
  llvm::Value *x = expr(*e.args[0]);
  llvm::Value *y = expr(*e.args[1]);
  if (!e.type.is_scalar())
    unsupported("arithmetic on " + e.type.str());
  if (is_complex(e.type.scalar))
    return complex_arithmetic(b_, e.op, x, y);
  if (e.type.scalar == Scalar::BF16) // numba-cuda's bf16 operators: + - * / (no Python errors)
    return bfloat16_binary(emitter_, target_, e.op, x, y);
  if (is_float(e.type.scalar)) {
    if (m_.checks_float_division())
      raise_on_float_zero_division(e, y);
    return float_binary(e.op, e.type.scalar, x, y);
  }
  if (e.no_wrap && (e.op == ir::Op::Add || e.op == ir::Op::Mul))
    return e.op == ir::Op::Add ? b_.CreateAdd(x, y, "", /*HasNUW=*/true, /*HasNSW=*/true)
                               : b_.CreateMul(x, y, "", /*HasNUW=*/true, /*HasNSW=*/true);
  return int_binary(e.op, e.type.scalar, x, y, e.loc);
}

// Numba's Python error model: float division, floor division and modulo by zero raise, with the
// messages of numba/cpython/numbers.py.
void FunctionLowering::raise_on_float_zero_division(const ir::Expr &e, llvm::Value *divisor) {
  if (e.op != ir::Op::TrueDiv && e.op != ir::Op::FloorDiv && e.op != ir::Op::Mod)
    return;
  llvm::Value *zero = b_.CreateFCmpOEQ(divisor, llvm::ConstantFP::get(divisor->getType(), 0.0));
  raise_if(zero, "ZeroDivisionError", e.op == ir::Op::Mod ? "modulo by zero" : "division by zero",
           e.loc);
}

llvm::Value *FunctionLowering::int_binary(ir::Op op, Scalar s, llvm::Value *x, llvm::Value *y,
                                          ir::Loc where) {
  llvm::Type *t = x->getType();
  bool is_signed = scalar_is_signed(s);
  llvm::Value *zero = llvm::ConstantInt::get(t, 0);
  switch (op) {
  case ir::Op::Add:
    return b_.CreateAdd(x, y);
  case ir::Op::Sub:
    return b_.CreateSub(x, y);
  case ir::Op::Mul:
    return b_.CreateMul(x, y);
  case ir::Op::BitAnd:
    return b_.CreateAnd(x, y);
  case ir::Op::BitOr:
    return b_.CreateOr(x, y);
  case ir::Op::BitXor:
    return b_.CreateXor(x, y);
  case ir::Op::LShift:
  case ir::Op::RShift: {
    // A count of the width or more (or negative) shifts everything out instead of being poison.
    llvm::Value *width = llvm::ConstantInt::get(t, t->getIntegerBitWidth());
    llvm::Value *too_far = b_.CreateICmpUGE(y, width);
    llvm::Value *count = b_.CreateSelect(too_far, zero, y);
    if (op == ir::Op::LShift)
      return b_.CreateSelect(too_far, zero, b_.CreateShl(x, count));
    if (!is_signed)
      return b_.CreateSelect(too_far, zero, b_.CreateLShr(x, count));
    llvm::Value *fill = b_.CreateAShr(x, llvm::ConstantInt::get(t, t->getIntegerBitWidth() - 1));
    return b_.CreateSelect(too_far, fill, b_.CreateAShr(x, count));
  }
  case ir::Op::FloorDiv:
  case ir::Op::Mod: {
    llvm::Value *by_zero = b_.CreateICmpEQ(y, zero);
    if (!m_.ir.options.python_error_model) // Numba's NumPy error model: 0, as on a GPU
      return b_.CreateSelect(
          by_zero, zero,
          int_floor_div_or_mod(op, is_signed, x,
                               b_.CreateSelect(by_zero, llvm::ConstantInt::get(t, 1), y)));
    raise_if(by_zero, "ZeroDivisionError",
             op == ir::Op::FloorDiv ? "integer division by zero" : "integer modulo by zero", where);
    return int_floor_div_or_mod(op, is_signed, x, y);
  }
  case ir::Op::Pow:
    return int_pow(s, x, y, where);
  default:
    unsupported("this operator on integers");
  }
}

llvm::Value *FunctionLowering::int_floor_div_or_mod(ir::Op op, bool is_signed, llvm::Value *x,
                                                    llvm::Value *y) {
  llvm::Type *t = x->getType();
  llvm::Value *zero = llvm::ConstantInt::get(t, 0);
  const bool div = op == ir::Op::FloorDiv;
  if (!is_signed)
    return div ? b_.CreateUDiv(x, y) : b_.CreateURem(x, y);
  // MIN // -1 would trap in hardware: divide by 1 and negate instead (wrapping, as C does).
  llvm::Value *minus_one = b_.CreateICmpEQ(y, llvm::ConstantInt::getSigned(t, -1));
  llvm::Value *safe_y = b_.CreateSelect(minus_one, llvm::ConstantInt::get(t, 1), y);
  llvm::Value *q = b_.CreateSDiv(x, safe_y);
  llvm::Value *r = b_.CreateSRem(x, safe_y);
  q = b_.CreateSelect(minus_one, b_.CreateNeg(x), q);
  // C truncates; Python floors: when the remainder's sign differs from the divisor's, adjust.
  llvm::Value *adjust =
      b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, y), zero));
  if (div)
    return b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(t, 1)), q);
  return b_.CreateSelect(adjust, b_.CreateAdd(r, y), r);
}

llvm::Value *FunctionLowering::float_int_pow(llvm::Value *x, llvm::Value *n, bool n_signed,
                                             Scalar s) {
  // Numba's int_power: square and multiply by |n|, 1 / that for n < 0; pow(x, n) beyond 65536.
  llvm::Type *ft = x->getType(), *it = n->getType();
  llvm::Value *zero = llvm::ConstantInt::get(it, 0);
  llvm::Value *negative = n_signed ? b_.CreateICmpSLT(n, zero) : b_.getFalse();
  llvm::Value *magnitude = b_.CreateSelect(negative, b_.CreateNeg(n), n);
  llvm::Value *beyond = b_.CreateICmpUGT(magnitude, llvm::ConstantInt::get(it, 0x10000));
  auto *generic = llvm::BasicBlock::Create(ctx(), "pow.generic", fn_);
  auto *looped = llvm::BasicBlock::Create(ctx(), "pow.looped", fn_);
  auto *after = llvm::BasicBlock::Create(ctx(), "pow.after", fn_);
  b_.CreateCondBr(beyond, generic, looped);
  b_.SetInsertPoint(looped);
  llvm::Value *product = square_and_multiply(b_, x, magnitude);
  llvm::Value *power =
      b_.CreateSelect(negative, b_.CreateFDiv(llvm::ConstantFP::get(ft, 1.0), product), product);
  llvm::BasicBlock *looped_end = b_.GetInsertBlock();
  b_.CreateBr(after);
  b_.SetInsertPoint(generic);
  llvm::Value *as_float = n_signed ? b_.CreateSIToFP(n, ft) : b_.CreateUIToFP(n, ft);
  llvm::Value *general = target_.math(emitter_, ir::Intrinsic::Pow, {x, as_float}, s);
  llvm::BasicBlock *generic_end = b_.GetInsertBlock();
  b_.CreateBr(after);
  b_.SetInsertPoint(after);
  llvm::PHINode *result = b_.CreatePHI(ft, 2);
  result->addIncoming(power, looped_end);
  result->addIncoming(general, generic_end);
  return result;
}

llvm::Value *FunctionLowering::int_pow(Scalar s, llvm::Value *x, llvm::Value *y, ir::Loc where) {
  if (!scalar_is_signed(s))
    return b_.CreateCall(m_.int_pow_helper(s), {x, y});
  llvm::Value *zero = llvm::ConstantInt::get(x->getType(), 0);
  llvm::Value *zero_to_negative = b_.CreateAnd(b_.CreateICmpEQ(x, zero), b_.CreateICmpSLT(y, zero));
  if (m_.ir.options.python_error_model) {
    raise_if(zero_to_negative, "ZeroDivisionError", "0 cannot be raised to a negative power",
             where);
    return b_.CreateCall(m_.int_pow_helper(s), {x, y});
  }
  // Numba's NumPy error model: 0 ** negative is the most negative integer.
  llvm::Value *most_negative = llvm::ConstantInt::get(
      x->getType(), llvm::APInt::getSignedMinValue(x->getType()->getIntegerBitWidth()));
  return b_.CreateSelect(zero_to_negative, most_negative,
                         b_.CreateCall(m_.int_pow_helper(s), {x, y}));
}

llvm::Value *FunctionLowering::float_binary(ir::Op op, Scalar s, llvm::Value *x, llvm::Value *y) {
  llvm::Type *t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  switch (op) {
  case ir::Op::Add:
    return b_.CreateFAdd(x, y);
  case ir::Op::Sub:
    return b_.CreateFSub(x, y);
  case ir::Op::Mul:
    return b_.CreateFMul(x, y);
  case ir::Op::TrueDiv: // Numba's CUDA error model ('numpy'): x / 0.0 is inf or nan, no error
    return b_.CreateFDiv(x, y);
  case ir::Op::Pow:
    return target_.math(emitter_, ir::Intrinsic::Pow, {x, y}, s);
  case ir::Op::FloorDiv:
  case ir::Op::Mod: {
    // CPython's float_divmod, as Numba lowers it; a zero divisor gives x / y and fmod's nan.
    llvm::Value *mod = b_.CreateFRem(x, y);
    llvm::Value *div = b_.CreateFDiv(b_.CreateFSub(x, mod), y);
    llvm::Value *mod_nonzero = b_.CreateFCmpUNE(mod, c(0));
    llvm::Value *signs_differ =
        b_.CreateXor(b_.CreateFCmpOLT(y, c(0)), b_.CreateFCmpOLT(mod, c(0)));
    llvm::Value *fix = b_.CreateAnd(mod_nonzero, signs_differ);
    llvm::Value *copysign_y = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, c(0), y);
    mod =
        b_.CreateSelect(mod_nonzero, b_.CreateSelect(fix, b_.CreateFAdd(mod, y), mod), copysign_y);
    div = b_.CreateSelect(fix, b_.CreateFSub(div, c(1)), div);
    llvm::Value *floor = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
    llvm::Value *snapped = b_.CreateSelect(b_.CreateFCmpOGT(b_.CreateFSub(div, floor), c(0.5)),
                                           b_.CreateFAdd(floor, c(1)), floor);
    llvm::Value *quotient = b_.CreateFDiv(x, y);
    llvm::Value *signed_zero = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, c(0), quotient);
    llvm::Value *floordiv = b_.CreateSelect(b_.CreateFCmpUNE(div, c(0)), snapped, signed_zero);
    llvm::Value *y_zero = b_.CreateFCmpOEQ(y, c(0));
    if (op == ir::Op::FloorDiv)
      return b_.CreateSelect(y_zero, quotient, floordiv);
    return b_.CreateSelect(y_zero, b_.CreateFRem(x, y), mod);
  }
  default:
    unsupported("this operator on floats");
  }
}

llvm::Value *FunctionLowering::compare(const ir::Expr &e) {
  llvm::Value *x = expr(*e.args[0]);
  llvm::Value *y = expr(*e.args[1]);
  const Type &type = e.args[0]->type;
  if (!type.is_scalar())
    unsupported("comparing values of type " + type.str());
  if (is_complex(type.scalar))
    return complex_compare(b_, e.op, x, y);
  if (type.scalar == Scalar::BF16) { // as the float32s they are exactly
    x = bfloat16_to_float(b_, x);
    y = bfloat16_to_float(b_, y);
  }
  using P = llvm::CmpInst::Predicate;
  P p;
  if (is_real(type.scalar)) {
    switch (e.op) {
    case ir::Op::Eq:
      p = P::FCMP_OEQ;
      break;
    case ir::Op::Ne:
      p = P::FCMP_UNE;
      break;
    case ir::Op::Lt:
      p = P::FCMP_OLT;
      break;
    case ir::Op::Le:
      p = P::FCMP_OLE;
      break;
    case ir::Op::Gt:
      p = P::FCMP_OGT;
      break;
    case ir::Op::Ge:
      p = P::FCMP_OGE;
      break;
    default:
      throw std::logic_error("simt: bad comparison");
    }
    return b_.CreateFCmp(p, x, y);
  }
  bool s = scalar_is_signed(type.scalar);
  switch (e.op) {
  case ir::Op::Eq:
    p = P::ICMP_EQ;
    break;
  case ir::Op::Ne:
    p = P::ICMP_NE;
    break;
  case ir::Op::Lt:
    p = s ? P::ICMP_SLT : P::ICMP_ULT;
    break;
  case ir::Op::Le:
    p = s ? P::ICMP_SLE : P::ICMP_ULE;
    break;
  case ir::Op::Gt:
    p = s ? P::ICMP_SGT : P::ICMP_UGT;
    break;
  case ir::Op::Ge:
    p = s ? P::ICMP_SGE : P::ICMP_UGE;
    break;
  default:
    throw std::logic_error("simt: bad comparison");
  }
  return b_.CreateICmp(p, x, y);
}

// A loop over the operands, not a recursion: a 20,000-term `and` chain is one And.
llvm::Value *FunctionLowering::short_circuit(const ir::Expr &e) {
  bool is_and = e.kind == ir::ExprKind::And;
  llvm::BasicBlock *merge = block("logic.end");
  std::vector<std::pair<llvm::Value *, llvm::BasicBlock *>> results;
  for (size_t k = 0; k + 1 < e.args.size(); ++k) {
    llvm::Value *value = expr(*e.args[k]);
    llvm::Value *value_true = truth(value, e.args[k]->type);
    results.emplace_back(value, b_.GetInsertBlock());
    llvm::BasicBlock *next = block(is_and ? "and.rhs" : "or.rhs");
    if (is_and)
      b_.CreateCondBr(value_true, next, merge);
    else
      b_.CreateCondBr(value_true, merge, next);
    b_.SetInsertPoint(next);
  }
  llvm::Value *last = expr(*e.args.back());
  results.emplace_back(last, b_.GetInsertBlock());
  b_.CreateBr(merge);
  merge->moveAfter(b_.GetInsertBlock());
  b_.SetInsertPoint(merge);
  llvm::PHINode *result = b_.CreatePHI(last->getType(), static_cast<unsigned>(results.size()));
  for (auto &[value, from] : results)
    result->addIncoming(value, from);
  return result;
}

llvm::Value *FunctionLowering::select(const ir::Expr &e) {
  llvm::Value *cond = expr(*e.args[0]);
  llvm::BasicBlock *then_block = block("sel.then");
  llvm::BasicBlock *else_block = block("sel.else");
  llvm::BasicBlock *merge = block("sel.end");
  b_.CreateCondBr(cond, then_block, else_block);
  b_.SetInsertPoint(then_block);
  llvm::Value *then_value = expr(*e.args[1]);
  llvm::BasicBlock *then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_block);
  llvm::Value *else_value = expr(*e.args[2]);
  llvm::BasicBlock *else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode *result = b_.CreatePHI(then_value->getType(), 2);
  result->addIncoming(then_value, then_end);
  result->addIncoming(else_value, else_end);
  return result;
}

llvm::Value *FunctionLowering::cast(llvm::Value *value, const Type &from, const Type &to) {
  if (from == to)
    return value;
  if (from.is_array() && to.is_array() && from.ndim == to.ndim)
    return value; // layouts share one representation, with real strides
  if (!from.is_scalar() || !to.is_scalar())
    unsupported("converting " + from.str() + " to " + to.str());
  if (to.scalar == Scalar::Bool)
    return truth(value, from);
  if (is_complex(from.scalar) && is_complex(to.scalar))
    return complex_to_complex(b_, value, to.scalar);
  if (is_complex(to.scalar))
    return real_to_complex(b_, cast(value, from, Type::scalar_of(component_of(to.scalar))));
  if (is_complex(from.scalar))
    throw std::logic_error("simt: a complex converted to a real number");
  llvm::Type *t = register_type(ctx(), to);
  bool from_float = is_float(from.scalar), to_float = is_float(to.scalar);
  // numba-cuda's bfloat16 constructors round to nearest even; its conversion operators to
  // integers truncate (cuda_bf16.h's operator int() is __bfloat162int_rz)
  if (to.scalar == Scalar::BF16)
    return convert_to_bfloat16(emitter_, target_, value, from.scalar, ir::Bf16Mode::RN);
  if (from.scalar == Scalar::BF16)
    return convert_from_bfloat16(b_, value, to.scalar, ir::Bf16Mode::RZ);
  if (to.scalar == Scalar::F16)
    return convert_to_half(b_, value, scalar_is_signed(from.scalar));
  if (from.scalar == Scalar::F16)
    return convert_from_half(b_, value, t, scalar_is_signed(to.scalar));
  if (from_float && to_float)
    return b_.CreateFPCast(value, t);
  if (from_float) // truncates toward zero; saturating, so out-of-range values are not poison
    return b_.CreateIntrinsic(scalar_is_signed(to.scalar) ? llvm::Intrinsic::fptosi_sat
                                                          : llvm::Intrinsic::fptoui_sat,
                              {t, value->getType()}, {value});
  if (to_float)
    return scalar_is_signed(from.scalar) ? b_.CreateSIToFP(value, t) : b_.CreateUIToFP(value, t);
  return b_.CreateIntCast(value, t, scalar_is_signed(from.scalar));
}

// A libdevice function's values (Target::libdevice): its result, or a tuple of them.
llvm::Value *FunctionLowering::libdevice(const ir::Expr &e) {
  std::vector<llvm::Value *> args;
  for (const ir::ExprPtr &arg : e.args)
    args.push_back(expr(*arg));
  std::vector<llvm::Value *> values = target_.libdevice(emitter_, ir::Libdevice(e.index), args);
  if (!e.type.is_tuple())
    return values.at(0);
  llvm::Value *tuple = llvm::PoisonValue::get(register_type(ctx(), e.type));
  for (size_t k = 0; k < values.size(); ++k)
    tuple = b_.CreateInsertValue(tuple, values[k], {unsigned(k)});
  return tuple;
}

llvm::Value *FunctionLowering::intrinsic(const ir::Expr &e) {
  std::vector<llvm::Value *> args;
  for (const ir::ExprPtr &arg : e.args)
    args.push_back(expr(*arg));
  llvm::Value *result = intrinsic_value(e, args);
  if (ir::intrinsic_parks(e.intrinsic))
    check_status(); // the launch may have stopped this thread while it was parked
  return result;
}

llvm::Value *FunctionLowering::intrinsic_value(const ir::Expr &e,
                                               const std::vector<llvm::Value *> &args) {
  using I = ir::Intrinsic;
  const ir::IntrinsicInfo &info = ir::intrinsic_info(e.intrinsic);
  if (info.has(ir::kMath)) {
    if (!e.type.is_scalar() || !is_float(e.type.scalar))
      unsupported(std::string("the intrinsic '") + info.name + "' on " + e.type.str());
    return target_.math(emitter_, e.intrinsic, args, e.type.scalar);
  }
  if (info.has(ir::kWarp) || e.intrinsic == I::LanemaskLt)
    return warp_intrinsic(e, args);
  if (llvm::Value *result = fp16_intrinsic(b_, e.intrinsic, args))
    return result;
  if (llvm::Value *result = fp16_math(emitter_, target_, e.intrinsic, args))
    return result;
  switch (e.intrinsic) {
  case I::SyncthreadsCount:
    return target_.barrier_reduce(emitter_, Target::Reduction::Count, args[0], loc(e.loc));
  case I::SyncthreadsAnd:
    return target_.barrier_reduce(emitter_, Target::Reduction::And, args[0], loc(e.loc));
  case I::SyncthreadsOr:
    return target_.barrier_reduce(emitter_, Target::Reduction::Or, args[0], loc(e.loc));
  case I::Threadfence:
    fence(Target::FenceScope::Device, e.loc);
    return nullptr;
  case I::ThreadfenceBlock:
    fence(Target::FenceScope::Block, e.loc);
    return nullptr;
  case I::ThreadfenceSystem:
    fence(Target::FenceScope::System, e.loc);
    return nullptr;
  case I::Nanosleep:
    target_.nanosleep(emitter_, args[0]);
    return nullptr;
  case I::Breakpoint: // the simulator's release code ignores it (the dispatcher compiles the
                      // debug variant)
    if (instrumented() || target_.release_breakpoints())
      target_.breakpoint_call(emitter_, loc(e.loc));
    return nullptr;
  case I::ThisThreadBlock: // the groups have no run-time state
  case I::ThisGrid:
    return llvm::ConstantStruct::get(llvm::StructType::get(ctx()), {});
  case I::GridSync:
    target_.grid_barrier(emitter_, loc(e.loc));
    return b_.getInt32(0);
  default:
    return number_intrinsic(e, args);
  }
}

llvm::Value *FunctionLowering::number_intrinsic(const ir::Expr &e,
                                                const std::vector<llvm::Value *> &args) {
  using I = ir::Intrinsic;
  Scalar arg_type = e.args.empty() ? e.type.scalar : e.args[0]->type.scalar;
  bool is_signed = scalar_is_signed(arg_type);
  switch (e.intrinsic) {
  case I::Iabs:
    return is_signed ? b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, args[0], b_.getFalse())
                     : args[0];
  case I::Imin:
    return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                                    args[0], args[1]);
  case I::Imax:
    return b_.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
                                    args[0], args[1]);
  // Numba's CUDA target: libdevice's fmin/fmax (PTX min.f64/max.f64), where neither a NaN
  // operand nor a signed zero's order matters (Python's min/max would depend on the order).
  case I::Fmin:
  case I::Fmax:
    return gpu_float_min_max(b_, e.intrinsic == I::Fmax, args[0], args[1]);
  case I::Isnan:
    return b_.CreateFCmpUNO(args[0], args[0]);
  case I::Isinf:
  case I::Isfinite: {
    llvm::Value *magnitude = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
    llvm::Value *inf = llvm::ConstantFP::getInfinity(args[0]->getType());
    return e.intrinsic == I::Isinf ? b_.CreateFCmpOEQ(magnitude, inf)
                                   : b_.CreateFCmpONE(magnitude, inf);
  }
  case I::RoundEven:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, args[0]);
  case I::Complex:
    return make_complex(b_, args[0], args[1]);
  case I::Real:
    return complex_real(b_, args[0]);
  case I::Imag:
    return complex_imag(b_, args[0]);
  case I::Popc:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, args[0]);
  case I::Brev:
    return b_.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, args[0]);
  case I::Clz: // clz(0) is the width
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, args[0], b_.getFalse());
  case I::Ffs: {
    llvm::Value *x = args[0];
    llvm::Value *trailing = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, x, b_.getFalse());
    llvm::Value *position = b_.CreateZExtOrTrunc(trailing, b_.getInt32Ty());
    position = b_.CreateAdd(position, b_.getInt32(1));
    return b_.CreateSelect(b_.CreateICmpEQ(x, llvm::ConstantInt::get(x->getType(), 0)),
                           b_.getInt32(0), position);
  }
  case I::Fma:
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {args[0]->getType()}, args);
  case I::PowInt:
    return float_int_pow(args[0], args[1], scalar_is_signed(e.args[1]->type.scalar), e.type.scalar);
  case I::Selp:
    return b_.CreateSelect(args[0], args[1], args[2]);
  case I::Frexp: {
    llvm::Type *result = llvm::StructType::get(ctx(), {args[0]->getType(), b_.getInt32Ty()});
    return b_.CreateIntrinsic(result, llvm::Intrinsic::frexp, args);
  }
  case I::Modf: // (x - trunc(x) with x's sign, 0 for infinities; trunc(x))
    return modf(e, args[0]);
  default:
    unsupported(std::string("the intrinsic '") + ir::intrinsic_name(e.intrinsic) + "'");
  }
}

llvm::Value *FunctionLowering::modf(const ir::Expr &e, llvm::Value *x) {
  llvm::Value *whole = b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
  llvm::Value *is_inf = b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                         llvm::ConstantFP::getInfinity(x->getType()));
  llvm::Value *fraction =
      b_.CreateSelect(is_inf, llvm::ConstantFP::get(x->getType(), 0.0), b_.CreateFSub(x, whole));
  fraction = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, fraction, x);
  llvm::Value *tuple = llvm::PoisonValue::get(register_type(ctx(), e.type));
  tuple = b_.CreateInsertValue(tuple, fraction, {0});
  return b_.CreateInsertValue(tuple, whole, {1});
}

llvm::Value *FunctionLowering::warp_intrinsic(const ir::Expr &e,
                                              const std::vector<llvm::Value *> &args) {
  using WarpOp = ir::WarpOp;
  if (e.intrinsic == ir::Intrinsic::Activemask)
    return target_.active_mask(emitter_, loc(e.loc));
  if (e.intrinsic == ir::Intrinsic::LanemaskLt) // the lanes below this one: (1 << laneid) - 1
    return b_.CreateSub(b_.CreateShl(b_.getInt32(1), special_register(ir::Op::LaneId, 0)),
                        b_.getInt32(1));
  const WarpOp op = ir::intrinsic_info(e.intrinsic).warp_op;
  llvm::Type *i64 = b_.getInt64Ty();
  // The lane's operand as zero-extended bits: floats travel as their bit patterns.
  llvm::Value *value = b_.getInt64(0);
  llvm::Type *value_type = nullptr;
  if (args.size() > 1) {
    value_type = args[1]->getType();
    llvm::Value *bits = args[1];
    if (value_type->isFloatingPointTy())
      bits = b_.CreateBitCast(bits, b_.getIntNTy(value_type->getPrimitiveSizeInBits()));
    value = b_.CreateZExt(bits, i64);
  }
  llvm::Value *operand = args.size() > 2 ? args[2] : b_.getInt32(0);
  llvm::Value *result = target_.warp_op(emitter_, op, args[0], value, operand, loc(e.loc));
  switch (op) {
  case WarpOp::ShflIdx:
  case WarpOp::ShflUp:
  case WarpOp::ShflDown:
  case WarpOp::ShflXor: {
    llvm::Value *bits = b_.CreateTrunc(result, b_.getIntNTy(value_type->getPrimitiveSizeInBits()));
    return value_type->isFloatingPointTy() ? b_.CreateBitCast(bits, value_type) : bits;
  }
  case WarpOp::All:
  case WarpOp::Any:
  case WarpOp::Eq:
    return b_.CreateICmpNE(result, b_.getInt64(0));
  case WarpOp::Ballot:
  case WarpOp::MatchAny:
    return b_.CreateTrunc(result, b_.getInt32Ty());
  case WarpOp::MatchAll: { // (the mask when every lane's value is equal, else 0; whether equal)
    llvm::Value *tuple = llvm::PoisonValue::get(register_type(ctx(), e.type));
    tuple = b_.CreateInsertValue(tuple, b_.CreateTrunc(result, b_.getInt32Ty()), {0});
    return b_.CreateInsertValue(tuple, b_.CreateICmpNE(result, b_.getInt64(0)), {1});
  }
  case WarpOp::SyncWarp:
  case WarpOp::ActiveMask: // lowered above
    return nullptr;
  }
  return nullptr;
}

llvm::Value *FunctionLowering::call(const ir::Expr &e) {
  std::vector<llvm::Value *> args;
  if (emitter_.env)
    args.push_back(emitter_.env);
  for (const ir::ExprPtr &arg : e.args)
    args.push_back(expr(*arg));
  announce_thread(); // the device function reads the thread's indices from the target
  const bool recursive = m_.ir.functions[size_t(e.index)].recursive;
  if (recursive)
    if (llvm::Value *too_deep = target_.enter_recursive_call(emitter_))
      raise_if(too_deep, "RecursionError",
               "maximum recursion depth exceeded (simt allows " +
                   std::to_string(max_recursive_call_depth) +
                   " nested calls of recursive device functions; a GPU's stack allows fewer)",
               e.loc);
  llvm::Value *result = b_.CreateCall(m_.functions[e.index], args);
  if (recursive)
    target_.leave_recursive_call(emitter_);
  if (m_.may_fault(e.index))
    check_status();
  return result;
}

// Numba's ABI for foreign device functions: `int name(result *, params...)`, the status ignored.
// The result's slot is an alloca of the entry block (a loop must not grow the stack).
llvm::Value *FunctionLowering::extern_call(const ir::Expr &e) {
  const ExternFunction &fn = m_.ir.externs[size_t(e.index)];
  const bool returns = !fn.return_type.is_none();
  llvm::Type *result = returns ? memory_type(ctx(), fn.return_type.scalar) : b_.getInt8Ty();
  llvm::AllocaInst *slot;
  {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    slot = entry.CreateAlloca(result, nullptr, fn.name + ".result");
  }
  std::vector<llvm::Type *> params{b_.getPtrTy()};
  std::vector<llvm::Value *> args{slot};
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Scalar scalar = fn.params[i].scalar;
    params.push_back(memory_type(ctx(), scalar));
    args.push_back(register_to_memory(b_, expr(*e.args[i]), scalar));
  }
  llvm::FunctionCallee callee = m_.module->getOrInsertFunction(
      fn.name, llvm::FunctionType::get(b_.getInt32Ty(), params, false));
  b_.CreateCall(callee, args);
  if (!returns)
    return nullptr;
  return memory_to_register(b_, b_.CreateLoad(result, slot), fn.return_type.scalar);
}

// An array over `data` (shared, local or const memory): C layout, constant shape.
llvm::Value *FunctionLowering::memory_array(llvm::Value *data, Scalar dtype,
                                            const std::vector<int64_t> &shape, int64_t itemsize) {
  int ndim = int(shape.size());
  std::vector<llvm::Value *> extents(ndim), strides(ndim);
  int64_t stride = itemsize ? itemsize : byte_size(dtype);
  for (int k = ndim - 1; k >= 0; --k) {
    extents[k] = b_.getInt64(shape[k]);
    strides[k] = b_.getInt64(stride);
    stride *= shape[k];
  }
  return make_array_value(b_, ndim, data, extents, strides);
}

llvm::Value *FunctionLowering::shared_array(const ir::Expr &e) {
  const ir::SharedArrayDecl &decl = m_.ir.shared_arrays[e.index];
  if (!decl.dynamic)
    return memory_array(target_.shared_array_memory(emitter_, decl, e.index), decl.elements.dtype,
                        decl.shape, decl.elements.itemsize());
  // The dynamic array is 1-D over the whole of the launch's dynamic shared memory.
  llvm::Value *data = target_.shared_memory(emitter_, m_.ir.static_shared_bytes);
  int64_t itemsize = decl.elements.itemsize();
  llvm::Value *extent =
      b_.CreateUDiv(target_.dynamic_shared_bytes(emitter_), b_.getInt64(itemsize));
  return make_array_value(b_, 1, data, {extent}, {b_.getInt64(itemsize)});
}

llvm::Value *FunctionLowering::array_size(llvm::Value *array, int ndim) {
  llvm::Value *size = b_.getInt64(1);
  for (int k = 0; k < ndim; ++k)
    size = b_.CreateMul(size, b_.CreateExtractValue(array, {1, unsigned(k)}));
  return size;
}

llvm::Value *FunctionLowering::element_address(const std::vector<ir::ExprPtr> &operands,
                                               size_t first, ir::Loc where) {
  const Type &type = operands[0]->type;
  llvm::Value *array = expr(*operands[0]);
  int ndim = type.ndim;
  int64_t itemsize = type.record ? type.record->size : byte_size(type.scalar);
  std::vector<llvm::Value *> shape(ndim);
  for (int k = 0; k < ndim; ++k)
    shape[k] = b_.CreateExtractValue(array, {1, unsigned(k)});
  // Contiguous layouts: strides follow from the shape, so LLVM sees unit-stride accesses.
  std::vector<llvm::Value *> strides(ndim);
  if (type.layout == 'C' || type.layout == 'F') {
    llvm::Value *stride = b_.getInt64(itemsize);
    for (int j = 0; j < ndim; ++j) {
      int k = type.layout == 'C' ? ndim - 1 - j : j;
      strides[k] = stride;
      stride = b_.CreateMul(stride, shape[k]);
    }
  } else {
    for (int k = 0; k < ndim; ++k)
      strides[k] = b_.CreateExtractValue(array, {2, unsigned(k)});
  }
  llvm::Value *offset = b_.getInt64(0);
  for (int k = 0; k < ndim; ++k) {
    llvm::Value *index = expr(*operands[first + k]);
    if (select_form_checks_) {
      llvm::Value *element = checked_index(index, shape[k], k, where);
      offset = b_.CreateAdd(offset, b_.CreateMul(element, strides[k]));
      continue;
    }
    // The hot path is one unsigned compare (a negative index looks huge), a form IRCE can remove
    // from loops so they vectorise; wrapping a negative index is on the cold path with the error.
    llvm::BasicBlock *in_range = block("in.range");
    llvm::BasicBlock *not_in_range = block("not.in.range");
    llvm::BasicBlock *fast_block = b_.GetInsertBlock();
    b_.CreateCondBr(b_.CreateICmpULT(index, shape[k]), in_range, not_in_range, likely(ctx()));
    b_.SetInsertPoint(not_in_range);
    llvm::Value *wrapped = b_.CreateAdd(index, shape[k]);
    llvm::Value *wraps = b_.CreateAnd(b_.CreateICmpSLT(index, b_.getInt64(0)),
                                      b_.CreateICmpSGE(wrapped, b_.getInt64(0)));
    fault_if(b_.CreateNot(wraps), index_fault(),
             {index, b_.getInt32(k), shape[k], b_.getInt32(loc(where))});
    llvm::BasicBlock *wrapped_block = b_.GetInsertBlock();
    b_.CreateBr(in_range);
    b_.SetInsertPoint(in_range);
    llvm::PHINode *element = b_.CreatePHI(b_.getInt64Ty(), 2, "index");
    element->addIncoming(index, fast_block);
    element->addIncoming(wrapped, wrapped_block);
    offset = b_.CreateAdd(offset, b_.CreateMul(element, strides[k]));
  }
  llvm::Value *data = b_.CreateExtractValue(array, {0});
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), data, offset);
}

llvm::Value *FunctionLowering::checked_index(llvm::Value *index, llvm::Value *extent, int axis,
                                             ir::Loc where) {
  llvm::Value *wrapped =
      b_.CreateSelect(b_.CreateICmpSLT(index, b_.getInt64(0)), b_.CreateAdd(index, extent), index);
  fault_if(b_.CreateICmpUGE(wrapped, extent), index_fault(),
           {index, b_.getInt32(axis), extent, b_.getInt32(loc(where))});
  return wrapped;
}

// A view shares the array's data: an index moves the data pointer and drops its axis; a slice
// moves it to the clamped start and scales the axis' stride by the step (PySlice_AdjustIndices).
llvm::Value *FunctionLowering::array_view(const ir::Expr &e) {
  const Type &type = e.args[0]->type;
  llvm::Value *array = expr(*e.args[0]);
  llvm::Value *data = b_.CreateExtractValue(array, {0});
  llvm::Value *zero = b_.getInt64(0), *one = b_.getInt64(1), *minus_one = b_.getInt64(-1);
  std::vector<llvm::Value *> shape, strides;
  for (int axis = 0; axis < type.ndim; ++axis) {
    llvm::Value *extent = b_.CreateExtractValue(array, {1, unsigned(axis)});
    llvm::Value *stride = b_.CreateExtractValue(array, {2, unsigned(axis)});
    size_t operand = size_t(axis) + 1;
    if (operand >= e.args.size()) {
      shape.push_back(extent);
      strides.push_back(stride);
      continue;
    }
    const ir::Expr &index = *e.args[operand];
    if (index.kind != ir::ExprKind::Slice) {
      llvm::Value *i = checked_index(expr(index), extent, axis, e.loc);
      data = b_.CreateGEP(b_.getInt8Ty(), data, b_.CreateMul(i, stride));
      continue;
    }
    llvm::Value *start = expr(*index.args[0]);
    llvm::Value *stop = expr(*index.args[1]);
    llvm::Value *step = expr(*index.args[2]);
    raise_if(b_.CreateICmpEQ(step, zero), "ValueError", "slice step cannot be zero", e.loc);
    llvm::Value *backward = b_.CreateICmpSLT(step, zero);
    llvm::Value *low = b_.CreateSelect(backward, minus_one, zero);
    llvm::Value *high = b_.CreateSelect(backward, b_.CreateSub(extent, one), extent);
    auto adjust = [&](llvm::Value *v) {
      v = b_.CreateSelect(b_.CreateICmpSLT(v, zero), b_.CreateAdd(v, extent), v);
      v = b_.CreateSelect(b_.CreateICmpSLT(v, zero), low, v);
      return b_.CreateSelect(b_.CreateICmpSGE(v, extent), high, v);
    };
    start = adjust(start);
    stop = adjust(stop);
    // length: (stop - start - 1) / step + 1 when stop lies beyond start in the step's direction
    llvm::Value *distance =
        b_.CreateSelect(backward, b_.CreateSub(start, stop), b_.CreateSub(stop, start));
    llvm::Value *magnitude = b_.CreateSelect(backward, b_.CreateNeg(step), step);
    llvm::Value *length = b_.CreateSelect(
        b_.CreateICmpSGT(distance, zero),
        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(distance, one), magnitude), one), zero);
    data = b_.CreateGEP(b_.getInt8Ty(), data, b_.CreateMul(start, stride));
    shape.push_back(length);
    strides.push_back(b_.CreateMul(stride, step));
  }
  return make_array_value(b_, int(shape.size()), data, shape, strides);
}

llvm::Value *FunctionLowering::tuple_index(const ir::Expr &e) {
  llvm::Value *tuple = expr(*e.args[0]);
  llvm::Value *index = expr(*e.args[1]);
  int64_t size = int64_t(e.args[0]->type.elems.size());
  llvm::Value *extent = b_.getInt64(size);
  llvm::Value *wrapped =
      b_.CreateSelect(b_.CreateICmpSLT(index, b_.getInt64(0)), b_.CreateAdd(index, extent), index);
  raise_if(b_.CreateICmpUGE(wrapped, extent), "IndexError", "tuple index out of range", e.loc);
  llvm::Value *result = b_.CreateExtractValue(tuple, {unsigned(size - 1)});
  for (int64_t k = size - 2; k >= 0; --k)
    result = b_.CreateSelect(b_.CreateICmpEQ(wrapped, b_.getInt64(k)),
                             b_.CreateExtractValue(tuple, {unsigned(k)}), result);
  return result;
}

llvm::Value *FunctionLowering::atomic(const ir::Expr &e) {
  const Type &array_type = e.args[0]->type;
  Scalar dtype = array_type.scalar;
  size_t first_value = 1 + size_t(array_type.ndim);
  llvm::Value *addr = element_address(e.args, 1, e.loc);
  std::vector<llvm::Value *> values;
  for (size_t k = first_value; k < e.args.size(); ++k)
    values.push_back(expr(*e.args[k]));
  access_hook(addr, array_type, dtype, uint32_t(byte_size(dtype)), AccessKind::Atomic, nullptr,
              e.loc);
  llvm::Type *t = memory_type(ctx(), dtype);
  llvm::Align align(byte_size(dtype));
  auto order = llvm::AtomicOrdering::Monotonic;
  const bool floating = is_float(dtype), signed_int = scalar_is_signed(dtype);
  if (dtype == Scalar::Bool || dtype == Scalar::BF16)
    unsupported(std::string("atomics on ") + (dtype == Scalar::Bool ? "bool" : "bfloat16") +
                " arrays");
  if (e.op == ir::Op::AtomicCas) {
    llvm::Value *compare = values[0], *replacement = values[1];
    if (floating) {
      llvm::Type *bits = b_.getIntNTy(bit_width(dtype));
      compare = b_.CreateBitCast(compare, bits);
      replacement = b_.CreateBitCast(replacement, bits);
    }
    auto *cas = b_.CreateAtomicCmpXchg(addr, compare, replacement, align, order, order);
    llvm::Value *old = b_.CreateExtractValue(cas, {0});
    return floating ? b_.CreateBitCast(old, t) : old;
  }
  if (floating && (e.op == ir::Op::AtomicMax || e.op == ir::Op::AtomicMin ||
                   e.op == ir::Op::AtomicNanMax || e.op == ir::Op::AtomicNanMin))
    return float_atomic_minmax(e.op, t, addr, values[0]);
  using B = llvm::AtomicRMWInst::BinOp;
  B op;
  switch (e.op) {
  case ir::Op::AtomicAdd:
    op = floating ? B::FAdd : B::Add;
    break;
  case ir::Op::AtomicSub:
    op = floating ? B::FSub : B::Sub;
    break;
  case ir::Op::AtomicMax:
  case ir::Op::AtomicNanMax:
    op = signed_int ? B::Max : B::UMax;
    break;
  case ir::Op::AtomicMin:
  case ir::Op::AtomicNanMin:
    op = signed_int ? B::Min : B::UMin;
    break;
  case ir::Op::AtomicAnd:
    op = B::And;
    break;
  case ir::Op::AtomicOr:
    op = B::Or;
    break;
  case ir::Op::AtomicXor:
    op = B::Xor;
    break;
  case ir::Op::AtomicExch:
    op = B::Xchg;
    break;
  case ir::Op::AtomicInc:
    op = B::UIncWrap;
    break; // old >= val ? 0 : old + 1
  case ir::Op::AtomicDec:
    op = B::UDecWrap;
    break; // (old == 0 || old > val) ? val : old - 1
  default:
    throw std::logic_error("simt: bad atomic operator");
  }
  if (floating && op != B::FAdd && op != B::FSub && op != B::Xchg)
    unsupported("this atomic operation on floats");
  return b_.CreateAtomicRMW(op, addr, values[0], align, order);
}

// atomic.max/min on floats, as Numba's CUDA helpers (___numba_atomic_double_max ...): a NaN in
// either operand leaves the location as it is (a NaN value is ignored, a NaN location stays).
// nanmax/nanmin ignore a NaN value and replace a NaN location. A compare-exchange loop, since
// LLVM's fmax/fmin rmw differ at NaN.
llvm::Value *FunctionLowering::float_atomic_minmax(ir::Op op, llvm::Type *t, llvm::Value *addr,
                                                   llvm::Value *value) {
  llvm::Type *bits = b_.getIntNTy(t->getPrimitiveSizeInBits());
  llvm::Align align(t->getPrimitiveSizeInBits() / 8);
  auto order = llvm::AtomicOrdering::Monotonic;
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::LoadInst *initial = b_.CreateAlignedLoad(bits, addr, align);
  initial->setAtomic(order);
  llvm::BasicBlock *loop = block("atomic.loop");
  llvm::BasicBlock *exchange = block("atomic.cas");
  llvm::BasicBlock *done = block("atomic.done");
  b_.CreateBr(loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode *old_bits = b_.CreatePHI(bits, 2);
  old_bits->addIncoming(initial, before);
  llvm::Value *old = b_.CreateBitCast(old_bits, t);
  llvm::Value *keep_old;
  if (op == ir::Op::AtomicMax || op == ir::Op::AtomicMin) {
    // unordered comparisons: true when either is NaN, or old already wins
    keep_old =
        op == ir::Op::AtomicMax ? b_.CreateFCmpUGE(old, value) : b_.CreateFCmpULE(old, value);
  } else {
    // nanmax/nanmin: a NaN `value` is ignored and a NaN `old` replaced.
    keep_old =
        op == ir::Op::AtomicNanMax ? b_.CreateFCmpOGE(old, value) : b_.CreateFCmpOLE(old, value);
    keep_old = b_.CreateOr(keep_old, b_.CreateFCmpUNO(value, value));
  }
  b_.CreateCondBr(keep_old, done, exchange);
  b_.SetInsertPoint(exchange);
  auto *cas =
      b_.CreateAtomicCmpXchg(addr, old_bits, b_.CreateBitCast(value, bits), align, order, order);
  old_bits->addIncoming(b_.CreateExtractValue(cas, {0}), exchange);
  b_.CreateCondBr(b_.CreateExtractValue(cas, {1}), done, loop);
  b_.SetInsertPoint(done);
  return b_.CreateBitCast(old_bits, t);
}

} // namespace

LoweredModule lower(const ir::Module &module, Target &target, llvm::LLVMContext &ctx,
                    const std::string &prefix) {
  if (module.functions.empty())
    throw std::logic_error("simt: a module without functions");
  return ModuleLowering(module, target, ctx, prefix).run();
}

std::string kernel_symbol(const ir::Module &module, const std::string &prefix) {
  return prefix + symbol_name(module.kernel().name);
}

// ---- records ----

// Fields of aligned records are naturally aligned (NumPy pads them); packed ones may not be.
llvm::Value *FunctionLowering::field_address(llvm::Value *record, const Record &layout, int field,
                                             llvm::Align &align) {
  const RecordField &f = layout.fields[field];
  align = llvm::Align(layout.aligned ? byte_size(f.scalar) : 1);
  return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), record, f.offset, f.name);
}

llvm::Value *FunctionLowering::field_load(const ir::Expr &e) {
  const Record &layout = *e.args[0]->type.record;
  Scalar scalar = layout.fields[e.index].scalar;
  llvm::Align align;
  llvm::Value *addr = field_address(expr(*e.args[0]), layout, e.index, align);
  if (e.type.is_array()) { // a nested array field: a view of the record's bytes
    const RecordField &field = layout.fields[e.index];
    return memory_array(addr, scalar, field.shape, field.record ? field.record->size : 0);
  }
  if (e.type.is_record()) // a nested record field: its address, as records are
    return addr;
  access_hook(addr, e.args[0]->type, scalar, uint32_t(byte_size(scalar)), AccessKind::Load, nullptr,
              e.loc);
  return memory_to_register(b_, b_.CreateAlignedLoad(memory_type(ctx(), scalar), addr, align),
                            scalar);
}

void FunctionLowering::field_store(const ir::Stmt &s) {
  const Record &layout = *s.exprs[0]->type.record;
  if (const auto &nested = layout.fields[s.field].record) { // a nested record: its bytes copied
    llvm::Value *source = expr(*s.exprs[1]);
    llvm::Align align;
    llvm::Value *target = field_address(expr(*s.exprs[0]), layout, s.field, align);
    access_hook(target, s.exprs[0]->type, Scalar::U8, uint32_t(nested->size), AccessKind::Store,
                nullptr, s.loc);
    // memmove: `r.a = r.a` copies a record onto itself.
    b_.CreateMemMove(target, llvm::Align(1), source, llvm::Align(1), nested->size);
    return;
  }
  Scalar scalar = layout.fields[s.field].scalar;
  // Python evaluates the value before the target.
  llvm::Value *value = register_to_memory(b_, expr(*s.exprs[1]), scalar);
  llvm::Align align;
  llvm::Value *addr = field_address(expr(*s.exprs[0]), layout, s.field, align);
  access_hook(addr, s.exprs[0]->type, scalar, uint32_t(byte_size(scalar)), AccessKind::Store, value,
              s.loc);
  b_.CreateAlignedStore(value, addr, align);
}

void FunctionLowering::record_copy(const ir::Stmt &s) {
  const Record &layout = *s.exprs[0]->type.record;
  llvm::Value *source = expr(*s.exprs.back());
  llvm::Value *target = element_address(s.exprs, 1, s.loc);
  access_hook(target, s.exprs[0]->type, Scalar::U8, uint32_t(layout.size), AccessKind::Store,
              nullptr, s.loc);
  // memmove: `a[i] = a[i]` copies a record onto itself.
  b_.CreateMemMove(target, llvm::Align(1), source, llvm::Align(1), layout.size);
}

} // namespace simt::codegen
