// The lowering of the typed IR (codegen/lower.h), as the classes its files share: a module's
// lowering (ModuleLowering) and a function's (FunctionLowering), whose members are defined by
// concept in lower.cpp (the function, its faults and hooks), lower_stmt.cpp (statements and
// control flow), lower_expr.cpp (expressions), lower_call.cpp (intrinsics and calls),
// lower_memory.cpp (arrays, atomics, records) and lower_fission.cpp (fissioned kernels).
// Internal to codegen/lower*.cpp.
#pragma once

#include "codegen/lower.h"

#include "analysis/fission.h"
#include "codegen/debug_info.h"
#include "codegen/float_minmax.h"
#include "codegen/llvm_types.h"
#include "codegen/lower_alloc.h"
#include "codegen/lower_bf16.h"
#include "codegen/lower_complex.h"
#include "codegen/lower_fp16.h"
#include "codegen/lower_fp8.h"
#include "codegen/symbol_name.h"
#include "ir/slot_name.h"

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

[[noreturn]] inline void unsupported(const std::string &what) {
  throw std::runtime_error("simt: " + what + " is not supported yet");
}

// Error paths are cold: branch weights keep them out of the hot code's layout.
inline llvm::MDNode *unlikely(llvm::LLVMContext &ctx) {
  return llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20);
}

inline llvm::MDNode *likely(llvm::LLVMContext &ctx) {
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
  // The target's hooks for instrumented code and for fissioned kernels (a logic error where it
  // has none: the backends ask for neither then).
  InstrumentationHooks &instrumentation_hooks();
  FissionHooks &fission_hooks();
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
  // One access of a scalar of `array` at `address` together with its report to the
  // instrumentation (the checked and debug variants): the load's value (registers' form), or
  // the store of `value` (register_to_memory's form).
  llvm::Value *load(llvm::Value *address, const Type &array, Scalar scalar, llvm::Align align,
                    ir::Loc where);
  void store(llvm::Value *address, const Type &array, Scalar scalar, llvm::Value *value,
             llvm::Align align, ir::Loc where);
  // A record's `bytes` copied to `target` of `array` (a memmove: `a[i] = a[i]` copies a record
  // onto itself), reported as one store.
  void copy_record(llvm::Value *target, llvm::Value *source, int64_t bytes, const Type &array,
                   ir::Loc where);
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
  llvm::Value *array_expr(const ir::Expr &e); // lower_memory.cpp
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
  // The bounds-checked address of array[indices] (`first` = index of the first index expr),
  // for an access of `kind`.
  llvm::Value *element_address(const std::vector<ir::ExprPtr> &operands, size_t first,
                               ir::Loc where, AccessKind kind);
  // An array's strides in bytes (from its shape where its layout is contiguous).
  std::vector<llvm::Value *> element_strides(const Type &type, llvm::Value *array,
                                             const std::vector<llvm::Value *> &shape);
  // element_address under BoundsCheck::Warn: an access out of bounds is reported and goes on.
  llvm::Value *unchecked_element_address(const std::vector<ir::ExprPtr> &operands, size_t first,
                                         ir::Loc where, AccessKind kind, llvm::Value *array,
                                         const std::vector<llvm::Value *> &shape,
                                         const std::vector<llvm::Value *> &strides);
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

  // Loop fission (analysis/fission.h): a fissioned kernel's function runs a whole block. Its
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
    fission = target.fission_plan(ir);
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
  const ir::FissionPlan *fission = nullptr;    // when the target runs the kernel fissioned
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

// base ** exponent (an unsigned magnitude) by square and multiply, as Numba's int_power: r *= a
// for each set bit of the exponent, a *= a; 1 for a zero exponent. Integers or floats; leaves `b`
// after the loop.
llvm::Value *square_and_multiply(llvm::IRBuilder<> &b, llvm::Value *base, llvm::Value *exponent);

} // namespace simt::codegen
