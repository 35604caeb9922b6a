// The Target interface: exactly what differs between the CPU simulator and a GPU backend.
//
// The generic lowering (codegen/lower.h) turns the typed IR into LLVM IR and asks the Target
// whenever code depends on where it runs: special registers, where shared/local/const memory
// lives, barriers, error reporting, print, math library calls and the kernel's entry points.
#pragma once

#include "analysis/fission.h"
#include "codegen/frame_layout.h"
#include "ir/ir.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace simt::codegen {

// What a Target hook emits code with: the builder (positioned where the code goes) and the
// target's per-thread environment value (the host passes a ThreadContext*), null when none.
struct Emitter {
  llvm::IRBuilder<> &b;
  llvm::Value *env;
};

// One argument of print(): a String expression (text) or a scalar value of `type`.
struct PrintItem {
  llvm::Value *value = nullptr; // null for text
  Type type;
  std::string text;
  bool space_before = true; // false: right after the previous item (tuple punctuation)
};

// Recursive calls nest at most this deep per thread where a target counts them: each level
// takes native stack (a simulator fiber has 256 KiB), and a GPU's default stack (1 KiB a thread)
// allows far fewer.
constexpr int32_t max_recursive_call_depth = 200;

// What instrumented code (ir::Module::options.instrumentation: the debugger's and the checkers'
// variants) calls; release code calls none of these. A target that instruments returns them from
// Target::instrumentation().
class InstrumentationHooks {
public:
  virtual ~InstrumentationHooks() = default;
  // On entry to function `function`, once its parameters are stored: `frame` points to its
  // locals, laid out as LoweredModule::frames[function] says.
  virtual void enter_function(Emitter &e, int32_t function, llvm::Value *frame) = 0;
  // Before each return of a function other than by a fault or a stop.
  virtual void leave_function(Emitter &e) = 0;
  // Before each statement, and before each further iteration of a loop (at `loc`, the loop's).
  // The lowering checks `must_return` afterwards: an observer may end the thread there.
  virtual void statement(Emitter &e, int32_t loc) = 0;
  // Before each load, store or atomic of an array element or record field: `address` (ptr) of
  // `size` bytes in `space`, which a GPU needs aligned to `align` bytes; for a store of a scalar,
  // the stored value's bits zero-extended to i64 in `value` (else 0). The checkers' variant also
  // reports fences and fresh local arrays here (AccessKind says how). The lowering checks
  // `must_return` afterwards.
  virtual void memory_access(Emitter &e, llvm::Value *address, uint32_t size, uint32_t align,
                             AccessKind kind, MemSpace space, llvm::Value *value, int32_t loc) = 0;
};

// What a fissioned kernel (Target::fissions) calls; a target that fissions returns them from
// Target::fission_hooks().
class FissionHooks {
public:
  virtual ~FissionHooks() = default;
  // In a fissioned kernel: the thread `tid` (threadIdx, three i32) runs next, so special
  // registers, runtime calls and fault reports refer to it.
  virtual void enter_thread(Emitter &e, llvm::ArrayRef<llvm::Value *> tid) = 0;
  // In a fissioned kernel instrumented for the checkers: every live thread of the block has run
  // the regions before the barrier at `loc` (syncthreads or syncthreads_count/and/or).
  virtual void fissioned_barrier(Emitter &e, int32_t loc) = 0;
  // In a fissioned kernel, once per block: `bytes` (i64) of memory for the block's per-thread
  // state, 16-byte aligned, valid until the kernel returns.
  virtual llvm::Value *block_scratch(Emitter &e, llvm::Value *bytes) = 0;
};

class Target {
public:
  virtual ~Target() = default;

  // Sets the module's target triple and data layout.
  virtual void configure(llvm::Module &module) = 0;
  // The type of the environment parameter every lowered function takes first; null for none.
  virtual llvm::Type *environment_type(llvm::LLVMContext &ctx) = 0;

  // ThreadIdx/BlockIdx/BlockDim/GridDim of `axis`, LaneId or WarpSize, as i32.
  virtual llvm::Value *special_register(Emitter &e, ir::Op op, int axis) = 0;
  // Pointer to the block's shared memory at byte `offset`.
  virtual llvm::Value *shared_memory(Emitter &e, int64_t offset) = 0;
  // Pointer to static shared array `index` (`decl`, not dynamic): shared_memory at its offset by
  // default.
  virtual llvm::Value *shared_array_memory(Emitter &e, const ir::SharedArrayDecl &decl, int index) {
    (void)index;
    return shared_memory(e, decl.offset);
  }
  // The launch's dynamic shared memory size in bytes, as i64.
  virtual llvm::Value *dynamic_shared_bytes(Emitter &e) = 0;
  // Pointer to `bytes` of this thread's private memory, aligned to `alignment` (alignment= of a
  // local array; 0 when not given); called in the function's entry block.
  virtual llvm::Value *local_memory(Emitter &e, int64_t bytes, int64_t alignment = 0);
  // The storage of a read-only array (its data in C order) in `module`.
  virtual llvm::Value *const_memory(llvm::Module &module, const ir::ConstArrayDecl &decl,
                                    const std::string &name);

  // cuda.threadfence_block/threadfence/threadfence_system: this thread's memory accesses before
  // it are seen before those after it by the threads of `scope`. A sequentially consistent fence
  // by default.
  enum class FenceScope : int32_t { Block, Device, System };
  virtual void fence(Emitter &e, FenceScope scope);
  // cuda.nanosleep(ns) with the i32 `nanoseconds`. Nothing by default: the simulator's threads
  // of a block interleave only where they wait for each other.
  virtual void nanosleep(Emitter &e, llvm::Value *nanoseconds);

  // cuda.syncthreads(). The lowering checks `must_return` afterwards.
  virtual void barrier(Emitter &e, int32_t loc) = 0;
  // cuda.syncthreads_count/and/or(predicate): a barrier that also reduces the i32 `predicate`
  // over the block's threads; returns the i32 result (the count of non-zero predicates, or 1/0
  // for all/any non-zero). The lowering checks `must_return` afterwards.
  enum class Reduction : int32_t { Count, And, Or };
  virtual llvm::Value *barrier_reduce(Emitter &e, Reduction reduction, llvm::Value *predicate,
                                      int32_t loc) = 0;
  // A warp collective of the lanes named in the i32 `mask` (ir/intrinsics.def says what each
  // operation computes; never ActiveMask): `value` is the lane's operand as i64 bits (a shuffled
  // or matched value, zero-extended; a vote's predicate as 0/1), `operand` the i32 source lane,
  // delta or lane mask of a shuffle. Returns the i64 result. The lowering checks `must_return`
  // afterwards.
  virtual llvm::Value *warp_op(Emitter &e, ir::WarpOp op, llvm::Value *mask, llvm::Value *value,
                               llvm::Value *operand, int32_t loc) = 0;
  // cuda.activemask(): the i32 mask of the calling warp's lanes that arrive at it together. The
  // lowering checks `must_return` afterwards.
  virtual llvm::Value *active_mask(Emitter &e, int32_t loc) = 0;
  // cuda.cg.this_grid().sync(): the grid-wide barrier of a cooperative launch. The lowering
  // checks `must_return` afterwards.
  virtual void grid_barrier(Emitter &e, int32_t loc) = 0;
  // Reports an IndexError for `index` (the index as written, i64) on `axis` (i32) of extent
  // `size` (i64). The operands are values, not constants: the faults of a function share
  // blocks (codegen/lower.cpp), so `loc` (i32) is a phi of the faulting sites.
  virtual void index_error(Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                           llvm::Value *loc) = 0;
  // Under BoundsCheck::Warn: reports an access out of an array's bounds (index, axis and size
  // as index_error's; `access` says what it was: "__global__ read of 4 bytes") and returns the
  // address it goes to instead, memory whose reads give a poisoned value and whose writes are
  // lost. Null (the default): the access goes where its index points, as on a GPU.
  virtual llvm::Value *out_of_bounds_access(Emitter &e, llvm::Value *index, llvm::Value *axis,
                                            llvm::Value *size, int32_t loc, int64_t itemsize,
                                            const std::string &access);
  // Reports a Python exception of class `exception` at `loc` (i32, a phi as above).
  virtual void raise(Emitter &e, const std::string &exception, const std::string &message,
                     llvm::Value *loc) = 0;
  // i1: true when this thread must return at once (it faulted, or the launch is stopping).
  virtual llvm::Value *must_return(Emitter &e) = 0;
  // Around a call of a device function on a recursive cycle: enter returns i1, true when the
  // thread is in more than max_recursive_call_depth such calls (the lowering raises
  // RecursionError), or null where the target bounds recursion itself (a GPU's stack); leave
  // undoes enter after the call.
  virtual llvm::Value *enter_recursive_call(Emitter &e) = 0;
  virtual void leave_recursive_call(Emitter &e) = 0;
  // The back-edge of a loop, on every iteration: returns i1, true when this thread must return
  // (the launch is stopping: a fault elsewhere, Ctrl-C). Cheap: loops run it billions of times.
  // `spins`: the loop may wait for other threads of the block (ir::loop_may_spin), which must get
  // to run meanwhile; `loc` is the loop's.
  virtual llvm::Value *loop_back_edge(Emitter &e, bool spins, int32_t loc) = 0;
  // print(items...): space separated, then a newline.
  virtual void print(Emitter &e, const std::vector<PrintItem> &items) = 0;
  // Python's breakpoint() in the kernel. The lowering checks `must_return` afterwards.
  virtual void breakpoint_call(Emitter &e, int32_t loc) = 0;
  // Whether release code keeps breakpoint() (a GPU's brkpt, as numba-cuda compiles it); the
  // simulator stops at one only in the debugger's variant.
  virtual bool release_breakpoints() const { return false; }
  // The hooks of instrumented code (ir::Module::options.instrumentation: the debugger's and the
  // checkers' variants); null where the target makes none (a GPU's backend refuses them first).
  virtual InstrumentationHooks *instrumentation() { return nullptr; }

  // Whether the target rounds to bfloat16 and fuses bfloat16 multiply-adds itself (LLVM's
  // `bfloat`: cvt.rn.bf16.f32 and fma.rn.bf16 from sm_80). Else codegen/lower_bf16.cpp rounds
  // on a float's bits, with the same results.
  virtual bool native_bfloat16() const { return false; }

  // The math library function `fn` (an intrinsic with the kMath flag) on float type `type`.
  virtual llvm::Value *math(Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                            Scalar type) = 0;
  // The libdevice function `fn` (ir/libdevice.def) on `args`, its inputs in order (int16 as
  // i16): returns its return value unless void, then each output's value. By default a call of
  // libdevice's own __nv_<name> with its exact signature (codegen/libdevice_call.h), which a GPU
  // backend links from libdevice.10.bc; the host calls C functions of its own.
  virtual std::vector<llvm::Value *> libdevice(Emitter &e, ir::Libdevice fn,
                                               llvm::ArrayRef<llvm::Value *> args);

  // Loop fission (analysis/fission.h): the plan by which the kernel of `module` is lowered as
  // one call per block that runs its threads region by region between barriers; null (the
  // default) where it is not: a GPU runs the threads itself. A target that gives a plan gives its
  // hooks by fission_hooks().
  virtual const ir::FissionPlan *fission_plan(const ir::Module &) { return nullptr; }
  virtual FissionHooks *fission_hooks() { return nullptr; }

  // The storage of an array the kernel allocates (ir::ExprKind::ArrayAlloc): `bytes` (i64; -1
  // when the size overflowed int64), 16-byte aligned, zero-filled when `zeroed`, valid until the
  // launch ends. When it cannot be given, the target reports a MemoryError at `loc` and returns
  // null; the lowering checks `must_return` afterwards. Null `allocates()`: the lowering refuses
  // allocations with a CompileError saying `allocation_refusal()`.
  virtual bool allocates() const { return false; }
  virtual std::string allocation_refusal() const;
  virtual llvm::Value *allocate(Emitter &e, llvm::Value *bytes, bool zeroed, int32_t loc);

  // Emits the kernel's externally visible entry points around `body`, the lowered kernel
  // function: i1 (environment, then one register-typed parameter per kernel parameter), which
  // returns true when the thread stopped early (`must_return` held: it faulted, or the launch is
  // stopping). A fissioned kernel's `body` runs the whole block, and returns true when a thread
  // stopped early. `symbol` is the module-unique name the entry points derive their names from.
  virtual void emit_entry_points(llvm::Module &module, llvm::Function *body,
                                 const ir::Module &ir_module, const std::string &symbol) = 0;
};

} // namespace simt::codegen
