// The typed IR: the one contract between the frontend and every backend.
//
// It is a structured (tree) IR rather than a CFG of basic blocks: Python kernels have only
// structured control flow, so a tree keeps each statement's source location and each local's
// name one-to-one with the source (what the debugger steps over and prints), and LLVM builds the
// CFG for us when it is lowered. Every name, attribute and call in the source is resolved here:
// a backend never sees a Python name, only typed operations. All implicit conversions are explicit
// Cast nodes, so the operands of every operation already have the operation's type.
#pragma once

#include "ir/bf16.h"
#include "ir/compile_options.h"
#include "ir/extern_function.h"
#include "ir/fp8.h"
#include "ir/intrinsics.h"
#include "ir/libdevice.h"
#include "ir/types.h"

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace simt::ir {

// A source position: 1-based line and column in the owning Function's file.
struct Loc {
  int line = 0;
  int col = 0;
};

enum class ExprKind : uint8_t {
  Const,       // scalar constant: int_value (ints, bools) or float_value (floats) by type;
               // a complex's parts are float_value and imag_value
  String,      // string constant: text (UTF-8; int_value 1 for a bytes literal); only printed,
               // or stored into a character sequence
  Local,       // read of slot `index`
  Unary,       // op in {Neg, Pos, Invert, Not}; Not yields bool, the others the operand's type
  Binary,      // arithmetic/bitwise op on two operands of type `type` (Python semantics, see Op)
  Compare,     // op in {Eq, Ne, Lt, Le, Gt, Ge} on two operands of one type; yields bool
  And,         // Python `a and b and ...`: the first of args (two or more, all already of
               // `type`) that is falsy, else the last; later ones are not evaluated
  Or,          // Python `a or b or ...`: the first of args that is truthy, else the last
  Select,      // `args[1] if args[0] else args[2]`; args[0] is bool
  Cast,        // args[0] converted to `type` (numeric: C-like; float->int truncates; to bool: != 0)
  Special,     // op in {ThreadIdx, BlockIdx, BlockDim, GridDim} with index = axis (0=x,1=y,2=z),
               // or op in {LaneId, WarpSize}; all int32
  ArrayLoad,   // args[0] = array, args[1..] = one int64 index per dimension; bounds-checked,
               // negative indices wrap once as in Python. On a record array it loads nothing:
               // it yields the Record value referring to the element (as Numba's records do)
  ArrayShape,  // args[0] = array; extent of axis `index`; int64
  ArrayStride, // args[0] = array; stride in bytes of axis `index`; int64
  ArraySize,   // args[0] = array; product of the extents; int64
  TupleMake,   // args = elements
  TupleGet,    // element `index` (a constant) of tuple args[0]
  Call,        // call of Module::functions[index] with args (already cast to the params' types)
  ExternCall,  // call of the external device function Module::externs[index] with args (cast to
               // its parameters' types); of its return type
  Intrinsic,   // intrinsic `intrinsic` on args (ir/intrinsics.def); result `type`
  SharedArray, // the block's shared array Module::shared_arrays[index]
  LocalArray,  // the thread's local array Function::local_arrays[index]
  ConstArray,  // the read-only array Module::const_arrays[index]
  Atomic,      // op in Atomic*; args[0] = array, args[1 .. 1+ndim) = int64 indices, then value(s)
               // (AtomicCas: compare then new value); yields the old value, of the dtype
  ArrayView,   // a view of array args[0] sharing its data: args[1..] apply to its leading axes in
               // order, each an int64 index (the axis is dropped; checked and wrapped as in
               // ArrayLoad) or a Slice (the axis is kept, clamped as Python clamps slices); the
               // axes after them are kept whole. `type` is the array of the kept axes
  DtypeView,   // array args[0] reinterpreted as `type` (another dtype, Numba's array.view(dtype)):
               // its data and, but on axis args[1] (int64), its shape and strides; that axis
               // gets extent args[2] and stride args[3]
  Reshape,     // C-contiguous array args[0] as `type` (its dtype, ndim extents): its data, the
               // extents args[1..] (int64, whose product the typer checked is its size), C order
  FieldView,   // a view of array args[0] with its shape and strides and its data `index` bytes
               // further, of `type` (an array of another dtype): a complex array's .real and
               // .imag, a record array's scalar field (Numba's attribute views)
  Slice,       // start:stop:step, three int64 args (omitted parts already hold Numba's defaults:
               // step 1; start 0 / INT64_MAX and stop INT64_MAX / INT64_MIN for a positive /
               // negative step); only as an ArrayView operand (type none); step 0 is a ValueError
  TupleIndex,  // element args[1] (int64, negative wraps once, IndexError when out of range) of
               // the tuple args[0], whose elements all have one type
  RecordField, // field `index` of the record args[0] (a Record value); of the field's scalar type,
               // or for a nested array field a C-contiguous array view of it
  Libdevice,   // libdevice function Libdevice(index) (ir/libdevice.def) on args, its input
               // parameters (already of their types); `type` is libdevice_result_type's: the
               // return value unless void, then the outputs, a scalar when one, else a tuple
  Bf16,        // numba.cuda.bf16 function Bf16Fn(index) (ir/bf16.def) on args, of its
               // parameter type; `type` is its result type
  Fp8,         // numba-cuda FP8 conversion Fp8Fn(index) (ir/fp8.def) on args: the value
               // (of its parameter type), saturation_t and mode (int32); `type` is its result
  Fp8Value,    // a conversion of args[0] to or from the FP8 value type Fp8Type(index)
               // (ir/fp8.def's SIMT_FP8_TYPE): a scalar one's value (float32, int64 or
               // uint64 `type`) when args[0] is one, else constructing one of args[0] (float32
               // or float64, an E8M0 one from int64 or uint64 too; the x2 / x4 forms from
               // vectors of them; `type` is the value type, or its storage read by .__x)
  ArrayAddress, // args[0] = array; the address of its data as uint64 (arr.ctypes.data)
  ArrayAlloc,   // a fresh C-contiguous array of `type` (global memory; np.empty and kin): args
                // are its extents (int64, one per axis); its elements are zero when int_value is
                // 1, else unset. A negative extent is a ValueError, a size past int64 or memory
                // the allocator cannot give a MemoryError. It lives until its block finishes (an
                // array never outlives its thread: no store can hold one)
};

enum class Op : uint8_t {
  None,
  // Unary
  Neg,
  Pos,
  Invert,
  Not,
  // Binary. Add/Sub/Mul as C on ints (wrapping) and floats. TrueDiv only on floats.
  // FloorDiv and Mod follow Python: floor division; result of Mod has the divisor's sign; on
  // integers a zero divisor raises ZeroDivisionError. Pow on ints: exponent >= 0 by repeated
  // squaring; on floats: pow(). Shifts/bitwise on ints only.
  Add,
  Sub,
  Mul,
  TrueDiv,
  FloorDiv,
  Mod,
  Pow,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor,
  // Compare
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  // Special registers
  ThreadIdx,
  BlockIdx,
  BlockDim,
  GridDim,
  LaneId,
  WarpSize,
  // Atomics (cuda.atomic.*)
  AtomicAdd,
  AtomicSub,
  AtomicMax,
  AtomicMin,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicExch,
  AtomicInc,
  AtomicDec,
  AtomicCas,
  AtomicNanMax, // as AtomicMax/AtomicMin, but a NaN operand is ignored (NumPy's nanmax/nanmin)
  AtomicNanMin,
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::Const;
  Type type;
  Loc loc;
  Op op = Op::None;
  std::vector<ExprPtr> args;
  int64_t int_value = 0;  // Const of integer/bool type
  double float_value = 0; // Const of float type; the real part of a complex Const
  double imag_value = 0;  // the imaginary part of a complex Const
  int index = -1;         // slot, axis, tuple element, function, shared/local/const array
  Intrinsic intrinsic{};  // which intrinsic an Intrinsic expression calls
  std::string name;       // String text
  // Binary Add/Mul on integers that cannot overflow: cuda.grid/gridsize arithmetic, whose bound
  // the launch checks (fewer than 2**31 threads along each axis). Lets loops over threads
  // vectorise.
  bool no_wrap = false;
};

enum class StmtKind : uint8_t {
  Assign,   // slot `slot` = exprs[0] (already of the slot's type)
  Store,    // exprs[0] = array, exprs[1..n] = int64 indices, exprs.back() = value (of the
            // dtype); bounds-checked like ArrayLoad. On a record array the value is a Record
            // whose bytes are copied into the element
  Eval,     // evaluate exprs[0] for its effects (a call, an atomic)
  If,       // if exprs[0] (bool): body else orelse
  While,    // while exprs[0] (bool): body, then orelse when the loop ends other than by break
  ForRange, // for slot `slot` in range(exprs[0], exprs[1], exprs[2]) (int64 each; the step is
            // checked non-zero at run time, ValueError otherwise): body, then orelse as While
  Break,
  Continue,
  Return,      // exprs empty (None) or exprs[0] of the function's return type
  Raise,       // raise exception class `exc` with `message`
  Assert,      // if not exprs[0]: raise AssertionError(message)
  SyncThreads, // cuda.syncthreads()
  Print,       // print(exprs...): values separated by spaces, then a newline; a String's
               // int_value holds kPrintGlue* bits (tuple punctuation: no space before/after it)
  FieldStore,  // field `field` of the record exprs[0] = exprs[1] (of the field's scalar type; a
               // nested record field takes a record of its layout, whose bytes are copied)
};

// The int_value bits of a print()'s String item: no separating space before / after it.
constexpr int64_t kPrintGlueBefore = 1, kPrintGlueAfter = 2;

struct Stmt {
  StmtKind kind = StmtKind::Eval;
  Loc loc;
  int slot = -1;
  std::vector<ExprPtr> exprs;
  std::vector<Stmt> body;
  std::vector<Stmt> orelse;
  std::string exc;     // Raise: Python exception class name ("ValueError", ...)
  std::string message; // Raise/Assert message ("" when none)
  int field = -1;      // FieldStore: the index of the record's field
};

// A Python local (or parameter, or a compiler temporary). The debugger reads slots by name.
struct Slot {
  std::string name; // the Python name; temporaries start with '$' (ir/slot_name.h)
  Type type;
  // The lines where the Python name means this slot (0, 0: the whole function): a loop's own
  // version of a variable that several loops bind (param_versions.h).
  int first_line = 0, last_line = 0;
};

// The elements of a shared or local array: a scalar dtype, or a record (then dtype is moot).
struct ArrayElements {
  ArrayElements(Scalar dtype = Scalar::F32, std::shared_ptr<const Record> record = nullptr)
      : dtype(dtype), record(std::move(record)) {}

  Scalar dtype;
  std::shared_ptr<const Record> record;

  int64_t itemsize() const { return record ? record->size : byte_size(dtype); }
  // The bytes of an array of `shape` (the typer bounds them: no overflow).
  int64_t bytes(const std::vector<int64_t> &shape) const {
    int64_t total = itemsize();
    for (int64_t extent : shape)
      total *= extent;
    return total;
  }
  // The array's type, C-contiguous in `space`.
  Type array_type(int ndim, MemSpace space) const {
    return record ? Type::record_array_of(record, ndim, 'C', space)
                  : Type::array_of(dtype, ndim, 'C', space);
  }
  // The spelling of the element type: "float32", "Record(...)".
  std::string str() const { return record ? record->str() : scalar_name(dtype); }
};

// The most alignment= a shared or local array may ask for: the simulator's block buffers (shared
// memory, fissioned kernels' scratch) are aligned to it.
inline constexpr int64_t max_array_alignment = 4096;

struct SharedArrayDecl {
  ArrayElements elements;
  std::vector<int64_t> shape; // empty when dynamic
  int64_t offset = 0;         // byte offset in the block's shared memory
  bool dynamic = false;       // shape 0: the launch's dynamic shared memory (all alias it)
  int32_t alignment = 0;      // alignment= (a power of two, bytes); 0 when not given
  std::string name = {};      // the variable it is first assigned to ("" when none): reports
};

struct LocalArrayDecl {
  ArrayElements elements;
  std::vector<int64_t> shape;
  std::string name = {}; // as SharedArrayDecl::name
  int64_t alignment = 0; // as SharedArrayDecl::alignment
};

struct ConstArrayDecl {
  Scalar dtype = Scalar::F64;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // C order
};

// What a kernel uses, derived from its IR once (analysis/properties.h), so a backend picks its
// cheapest correct strategy.
struct Properties {
  bool uses_barrier = false;
  // A grid-wide barrier (cuda.cg.this_grid().sync()) is reachable: the kernel is launched
  // cooperatively. Implies uses_barrier (its threads run as fibers).
  bool uses_grid_sync = false;
  bool uses_shared = false;
  bool uses_atomics = false;
  bool uses_print = false;
  bool uses_warp = false; // a warp collective (shuffle, vote, match, syncwarp) or activemask
  // breakpoint() is reachable: the dispatcher compiles the debug variant and opens the debugger.
  bool uses_breakpoint = false;
  // A loop that may wait for other threads (loop_may_spin) is reachable: its threads run as
  // fibers, so that the threads it waits for get to run.
  bool may_spin = false;
};

struct Function {
  std::string name; // unique within the module (device functions are mangled per signature)
  std::string python_name;
  std::string file;
  int first_line = 0;
  std::vector<Slot> slots; // the first num_params are the parameters, in order
  int num_params = 0;
  Type return_type; // None for kernels
  std::vector<Stmt> body;
  std::vector<LocalArrayDecl> local_arrays;
  // On a cycle of calls (recursion): calls of it count towards a thread's recursion depth.
  bool recursive = false;
  bool is_kernel = false;
  Properties props; // of this function and everything it calls
};

struct Module {
  std::vector<Function> functions;     // functions[0] is the kernel
  std::vector<ExternFunction> externs; // external device functions called (cuda.declare_device)
  std::vector<SharedArrayDecl> shared_arrays;
  std::vector<ConstArrayDecl> const_arrays;
  int64_t static_shared_bytes = 0; // dynamic shared memory starts here (16-byte aligned)
  Properties props;                // == functions[0].props
  CompileOptions options;          // what it was compiled for: every backend honours them

  const Function &kernel() const { return functions.front(); }
};

// Every field of each IR type, once, as a tuple of references: ir::clone and ir::fingerprint walk
// these, so a field listed here is copied and fingerprinted (one left out would let two different
// kernels share code). `X` is the type or the type const.
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Loc> {
  return std::tie(x.line, x.col);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Expr> {
  return std::tie(x.kind, x.type, x.loc, x.op, x.args, x.int_value, x.float_value, x.imag_value,
                  x.index, x.intrinsic, x.name, x.no_wrap);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Stmt> {
  return std::tie(x.kind, x.loc, x.slot, x.exprs, x.body, x.orelse, x.exc, x.message, x.field);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Slot> {
  return std::tie(x.name, x.type, x.first_line, x.last_line);
}
template <typename X>
auto fields(X &x) requires std::same_as<std::remove_const_t<X>, SharedArrayDecl> {
  return std::tie(x.elements, x.shape, x.offset, x.dynamic, x.alignment, x.name);
}
template <typename X>
auto fields(X &x) requires std::same_as<std::remove_const_t<X>, LocalArrayDecl> {
  return std::tie(x.elements, x.shape, x.name, x.alignment);
}
template <typename X>
auto fields(X &x) requires std::same_as<std::remove_const_t<X>, ConstArrayDecl> {
  return std::tie(x.dtype, x.shape, x.data);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Properties> {
  return std::tie(x.uses_barrier, x.uses_grid_sync, x.uses_shared, x.uses_atomics, x.uses_print,
                  x.uses_warp, x.uses_breakpoint, x.may_spin);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Function> {
  return std::tie(x.name, x.python_name, x.file, x.first_line, x.slots, x.num_params, x.return_type,
                  x.body, x.local_arrays, x.recursive, x.is_kernel, x.props);
}
template <typename X>
auto fields(X &x) requires std::same_as<std::remove_const_t<X>, ExternFunction> {
  return std::tie(x.name, x.return_type, x.params);
}
template <typename X> auto fields(X &x) requires std::same_as<std::remove_const_t<X>, Module> {
  return std::tie(x.functions, x.externs, x.shared_arrays, x.const_arrays, x.static_shared_bytes,
                  x.props, x.options);
}

// A readable dump, stable for tests and `inspect_ir`.
std::string dump(const Module &module);

// Every field of `module` as bytes (ir/fingerprint.cpp): modules with equal fingerprints lower to
// the same code, so the simulator keys its code caches by it.
std::string fingerprint(const Module &module);

// Checks the invariants this file states (operand counts and types, slots, calls, the arrays an
// expression names, break and continue inside loops); throws std::logic_error naming the function,
// the line and what is wrong (ir/verify.cpp). Run after the typer and after every transform of
// the IR where verification_enabled(): debug builds, and SIMT_VERIFY_IR=1 (the tests set it).
void verify(const Module &module);
bool verification_enabled();

// A deep copy of `module` (ir/clone.cpp), for work that outlives the module's owner (a kernel's
// recompile in the background).
Module clone(const Module &module);
ExprPtr clone(const Expr &e);

// A field added to one of these types changes its size: list it in its fields() above, then
// update the size here.
static_assert(sizeof(Expr) == 200 && sizeof(Stmt) == 160 && sizeof(Function) == 280 &&
                  sizeof(Module) == 128 && sizeof(Properties) == 8 && sizeof(Slot) == 120 &&
                  sizeof(SharedArrayDecl) == 96 && sizeof(LocalArrayDecl) == 88 &&
                  sizeof(ConstArrayDecl) == 56 && sizeof(Type) == 80 && sizeof(Record) == 40 &&
                  sizeof(RecordField) == 88 && sizeof(ExternFunction) == 136 &&
                  sizeof(CompileOptions) == 12 && sizeof(Loc) == 8,
              "a typed IR type changed: list its new fields in its fields()");

} // namespace simt::ir
