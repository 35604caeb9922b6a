#include "sim/host_target.h"

#include "analysis/fission.h"
#include "codegen/libdevice_call.h"
#include "codegen/llvm_types.h"
#include "codegen/math.h"
#include "sim/abi.h"
#include "sim/runtime_functions.h"
#include "sim/watched_pages.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <cstddef>
#include <stdexcept>

namespace simt::sim {

using codegen::Emitter;

std::string thread_entry_name(const std::string &symbol) { return symbol + ".thread"; }
std::string block_entry_name(const std::string &symbol) { return symbol + ".block"; }

namespace {

llvm::Value *field_address(llvm::IRBuilderBase &b, llvm::Value *ctx, size_t offset) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctx, offset);
}

llvm::Value *load_field(llvm::IRBuilderBase &b, llvm::Value *ctx, size_t offset, llvm::Type *type,
                        const char *name) {
  return b.CreateLoad(type, field_address(b, ctx, offset), name);
}

size_t special_offset(ir::Op op, int axis) {
  switch (op) {
  case ir::Op::ThreadIdx:
    return offsetof(ThreadContext, tid) + 4 * axis;
  case ir::Op::BlockIdx:
    return offsetof(ThreadContext, ctaid) + 4 * axis;
  case ir::Op::BlockDim:
    return offsetof(ThreadContext, ntid) + 4 * axis;
  case ir::Op::GridDim:
    return offsetof(ThreadContext, nctaid) + 4 * axis;
  default:
    throw std::logic_error("simt: not a special register");
  }
}

// A runtime function of sim/abi.h (the context first); error reports are cold so LLVM keeps them
// off the hot path.
llvm::Type *llvm_type(llvm::LLVMContext &ctx, RtType type) {
  switch (type) {
  case RtType::Void:
    return llvm::Type::getVoidTy(ctx);
  case RtType::I32:
  case RtType::U32:
    return llvm::Type::getInt32Ty(ctx);
  case RtType::I64:
  case RtType::U64:
    return llvm::Type::getInt64Ty(ctx);
  case RtType::F64:
    return llvm::Type::getDoubleTy(ctx);
  case RtType::Ptr:
  case RtType::Str:
  case RtType::Ctx:
    break;
  }
  return llvm::PointerType::getUnqual(ctx);
}

// The runtime function `fn` (sim/runtime.def) declared in `m`.
llvm::FunctionCallee runtime_function(llvm::Module &m, RuntimeFn fn) {
  const RuntimeSignature &signature = runtime_signature(fn);
  llvm::LLVMContext &ctx = m.getContext();
  std::vector<llvm::Type *> params;
  for (size_t i = 0; i < signature.arity; ++i)
    params.push_back(llvm_type(ctx, signature.params[i]));
  llvm::FunctionCallee callee = m.getOrInsertFunction(
      signature.name, llvm::FunctionType::get(llvm_type(ctx, signature.result), params, false));
  auto *function = llvm::cast<llvm::Function>(callee.getCallee());
  function->addFnAttr(llvm::Attribute::NoUnwind);
  // The runtime keeps no copy of the context pointer: LLVM may then keep the context's fields
  // in registers across stores to array data.
  function->addParamAttr(0, llvm::Attribute::NoCapture);
  if (signature.cold)
    function->addFnAttr(llvm::Attribute::Cold);
  return callee;
}

llvm::Module &module_of(Emitter &e) { return *e.b.GetInsertBlock()->getModule(); }

} // namespace

void HostTarget::configure(llvm::Module &module) {
  module.setTargetTriple(triple_);
  module.setDataLayout(data_layout_);
}

llvm::Type *HostTarget::environment_type(llvm::LLVMContext &ctx) {
  return llvm::PointerType::getUnqual(ctx);
}

llvm::Value *HostTarget::special_register(Emitter &e, ir::Op op, int axis) {
  llvm::IRBuilder<> &b = e.b;
  if (op == ir::Op::WarpSize)
    return b.getInt32(32);
  if (op == ir::Op::LaneId) {
    // Lanes are linear thread ids in groups of 32, x fastest.
    auto reg = [&](ir::Op which, int k) { return special_register(e, which, k); };
    llvm::Value *linear = b.CreateAdd(
        reg(ir::Op::ThreadIdx, 0),
        b.CreateMul(reg(ir::Op::BlockDim, 0),
                    b.CreateAdd(reg(ir::Op::ThreadIdx, 1),
                                b.CreateMul(reg(ir::Op::BlockDim, 1), reg(ir::Op::ThreadIdx, 2)))));
    return b.CreateAnd(linear, b.getInt32(31), "laneid");
  }
  // Thread and block indices and extents lie in [0, 2**31): with this LLVM knows cuda.grid(1) is
  // never negative, so bounds checks need not wrap it and IRCE can take them out of loops.
  auto *load = llvm::cast<llvm::LoadInst>(
      load_field(b, e.env, special_offset(op, axis), b.getInt32Ty(), "sreg"));
  load->setMetadata(llvm::LLVMContext::MD_range,
                    llvm::MDBuilder(b.getContext())
                        .createRange(llvm::APInt(32, 0), llvm::APInt(32, uint64_t(1) << 31)));
  return load;
}

llvm::Value *HostTarget::shared_memory(Emitter &e, int64_t offset) {
  llvm::Value *base =
      load_field(e.b, e.env, offsetof(ThreadContext, shared), e.b.getPtrTy(), "shared");
  return e.b.CreateConstInBoundsGEP1_64(e.b.getInt8Ty(), base, offset);
}

llvm::Value *HostTarget::dynamic_shared_bytes(Emitter &e) {
  return load_field(e.b, e.env, offsetof(ThreadContext, dynamic_shared_bytes), e.b.getInt64Ty(),
                    "dynamic_shared_bytes");
}

void HostTarget::barrier(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_syncthreads),
               {e.env, b.getInt32(loc)});
}

llvm::Value *HostTarget::barrier_reduce(Emitter &e, Reduction reduction, llvm::Value *predicate,
                                        int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  return b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_syncthreads_reduce),
                      {e.env, b.getInt32(int32_t(reduction)), predicate, b.getInt32(loc)});
}

llvm::Value *HostTarget::warp_op(Emitter &e, ir::WarpOp op, llvm::Value *mask, llvm::Value *value,
                                 llvm::Value *operand, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  return b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_warp),
                      {e.env, b.getInt32(int32_t(op)), mask, value, operand, b.getInt32(loc)});
}

llvm::Value *HostTarget::active_mask(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  return b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_activemask),
                      {e.env, b.getInt32(loc)});
}

void HostTarget::grid_barrier(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_grid_sync),
               {e.env, b.getInt32(loc)});
}

void HostTarget::index_error(Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                             llvm::Value *loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_index_error),
               {e.env, index, axis, size, loc});
}

llvm::Value *HostTarget::out_of_bounds_access(Emitter &e, llvm::Value *index, llvm::Value *axis,
                                              llvm::Value *size, int32_t loc, int64_t itemsize,
                                              const std::string &access) {
  llvm::IRBuilder<> &b = e.b;
  return b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_out_of_bounds),
                      {e.env, index, axis, size, b.getInt32(loc), b.getInt64(itemsize),
                       b.CreateGlobalString(access, "access")});
}

void HostTarget::raise(Emitter &e, const std::string &exception, const std::string &message,
                       llvm::Value *loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_raise),
               {e.env, b.CreateGlobalString(exception, "exception"),
                b.CreateGlobalString(message, "message"), loc});
}

llvm::Value *HostTarget::allocate(Emitter &e, llvm::Value *bytes, bool zeroed, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  return b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_allocate),
                      {e.env, bytes, b.getInt32(zeroed ? 1 : 0), b.getInt32(loc)});
}

llvm::Value *HostTarget::must_return(Emitter &e) {
  llvm::Value *status =
      load_field(e.b, e.env, offsetof(ThreadContext, status), e.b.getInt32Ty(), "status");
  return e.b.CreateICmpNE(status, e.b.getInt32(0));
}

llvm::Value *HostTarget::enter_recursive_call(Emitter &e) {
  llvm::Value *address = field_address(e.b, e.env, offsetof(ThreadContext, call_depth));
  llvm::Value *depth = e.b.CreateAdd(e.b.CreateLoad(e.b.getInt32Ty(), address), e.b.getInt32(1));
  e.b.CreateStore(depth, address);
  return e.b.CreateICmpSGT(depth, e.b.getInt32(codegen::max_recursive_call_depth));
}

void HostTarget::leave_recursive_call(Emitter &e) {
  llvm::Value *address = field_address(e.b, e.env, offsetof(ThreadContext, call_depth));
  e.b.CreateStore(e.b.CreateSub(e.b.CreateLoad(e.b.getInt32Ty(), address), e.b.getInt32(1)),
                  address);
}

llvm::Value *HostTarget::loop_back_edge(Emitter &e, bool spins, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Module &m = module_of(e);
  if (spins) {
    b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_yield), {e.env, b.getInt32(loc)});
    return must_return(e);
  }
  // A relaxed atomic load: LLVM may not hoist it out of the loop, and it costs a plain load.
  llvm::LoadInst *requests = b.CreateAlignedLoad(
      b.getInt32Ty(), m.getOrInsertGlobal("simt_rt_stop_requests", b.getInt32Ty()), llvm::Align(4),
      "stop_requests");
  requests->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock *running = b.GetInsertBlock();
  llvm::Function *fn = running->getParent();
  auto *poll = llvm::BasicBlock::Create(b.getContext(), "poll", fn);
  auto *next = llvm::BasicBlock::Create(b.getContext(), "polled", fn);
  b.CreateCondBr(b.CreateICmpNE(requests, b.getInt32(0)), poll, next,
                 llvm::MDBuilder(b.getContext()).createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(poll);
  b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_poll), {e.env, b.getInt32(loc)});
  llvm::Value *stopped = must_return(e);
  llvm::BasicBlock *polled = b.GetInsertBlock();
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::PHINode *result = b.CreatePHI(b.getInt1Ty(), 2, "must_return");
  result->addIncoming(b.getFalse(), running);
  result->addIncoming(stopped, polled);
  return result;
}

void HostTarget::enter_function(Emitter &e, int32_t function, llvm::Value *frame) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_enter),
               {e.env, b.getInt32(function), frame});
}

void HostTarget::leave_function(Emitter &e) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_leave), {e.env});
}

void HostTarget::statement(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_statement),
               {e.env, b.getInt32(loc)});
}

void HostTarget::breakpoint_call(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_breakpoint),
               {e.env, b.getInt32(loc)});
}

void HostTarget::memory_access(Emitter &e, llvm::Value *address, uint32_t size, uint32_t align,
                               codegen::AccessKind kind, MemSpace space, llvm::Value *value,
                               int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  auto report = [&] {
    b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_access),
                 {e.env, address, b.getInt32(size), b.getInt32(align), b.getInt32(int32_t(kind)),
                  b.getInt32(int32_t(space)), value, b.getInt32(loc)});
  };
  const bool array_access = kind == codegen::AccessKind::Load ||
                            kind == codegen::AccessKind::Store ||
                            kind == codegen::AccessKind::Atomic;
  if (!array_access || size > (1u << WatchedPages::kPageBits)) {
    report();
    return;
  }
  // Reported only where the observers watch (sim/watched_pages.h): null watches everything.
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = b.getContext();
  auto *call = llvm::BasicBlock::Create(context, "watch.report", fn);
  auto *done = llvm::BasicBlock::Create(context, "watch.done", fn);
  llvm::MDBuilder weights(context);
  llvm::MDNode *rarely = weights.createBranchWeights(1, 64);
  // The same all launch long: LLVM may load them once.
  auto invariant_field = [&](size_t offset, llvm::Type *type, const char *name) {
    auto *load = llvm::cast<llvm::LoadInst>(load_field(b, e.env, offset, type, name));
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context, {}));
    return load;
  };
  llvm::Value *root =
      invariant_field(offsetof(ThreadContext, watched_pages), b.getPtrTy(), "watched.root");
  if (space == MemSpace::Shared) {
    // No observer watches shared memory's pages: reported when every access is, or when it
    // reads a byte the block has not written where an observer tracks shared writes.
    llvm::Value *offset = invariant_field(offsetof(ThreadContext, shared_written_offset),
                                          b.getInt64Ty(), "shared.written.offset");
    llvm::Value *tracked = b.CreateICmpNE(offset, b.getInt64(0));
    llvm::Value *flags = b.CreateInBoundsGEP(b.getInt8Ty(), address, offset, "written");
    if (kind == codegen::AccessKind::Store) {
      b.CreateCondBr(b.CreateIsNull(root), call, done, rarely);
    } else {
      auto *check = llvm::BasicBlock::Create(context, "written.check", fn);
      auto *test = llvm::BasicBlock::Create(context, "written.test", fn);
      b.CreateCondBr(b.CreateIsNull(root), call, check);
      b.SetInsertPoint(check);
      b.CreateCondBr(tracked, test, done);
      b.SetInsertPoint(test);
      if (size == 1 || size == 2 || size == 4 || size == 8) {
        llvm::Value *written = b.CreateAlignedLoad(b.getIntNTy(8 * size), flags, llvm::Align(1));
        b.CreateCondBr(b.CreateICmpNE(written, llvm::Constant::getAllOnesValue(written->getType())),
                       call, done, rarely);
      } else {
        b.CreateBr(call); // the observer looks at the flags itself
      }
    }
    b.SetInsertPoint(call);
    report();
    b.CreateBr(done);
    b.SetInsertPoint(done);
    if (kind != codegen::AccessKind::Load) { // written from now on, after the observers saw it
      auto *mark = llvm::BasicBlock::Create(context, "written.mark", fn);
      auto *marked = llvm::BasicBlock::Create(context, "written.marked", fn);
      b.CreateCondBr(tracked, mark, marked);
      b.SetInsertPoint(mark);
      b.CreateMemSet(flags, b.getInt8(0xff), b.getInt64(size), llvm::MaybeAlign(1));
      b.CreateBr(marked);
      b.SetInsertPoint(marked);
    }
    return;
  }
  auto *lookup = llvm::BasicBlock::Create(context, "watch.lookup", fn);
  auto *in_leaf = llvm::BasicBlock::Create(context, "watch.leaf", fn);
  b.CreateCondBr(b.CreateIsNull(root), call, lookup);
  b.SetInsertPoint(lookup);
  llvm::Value *page = b.CreateLShr(b.CreatePtrToInt(address, b.getInt64Ty()),
                                   uint64_t(WatchedPages::kPageBits), "page");
  llvm::Value *root_index = b.CreateAnd(b.CreateLShr(page, uint64_t(WatchedPages::kLeafBits)),
                                        b.getInt64((uint64_t(1) << WatchedPages::kRootBits) - 1));
  llvm::Value *leaf =
      b.CreateLoad(b.getPtrTy(), b.CreateInBoundsGEP(b.getPtrTy(), root, root_index), "leaf");
  b.CreateCondBr(b.CreateIsNull(leaf), done, in_leaf, weights.createBranchWeights(64, 1));
  b.SetInsertPoint(in_leaf);
  llvm::Value *leaf_index =
      b.CreateAnd(page, b.getInt64((uint64_t(1) << WatchedPages::kLeafBits) - 1));
  llvm::Value *reasons =
      b.CreateLoad(b.getInt8Ty(), b.CreateInBoundsGEP(b.getInt8Ty(), leaf, leaf_index));
  b.CreateCondBr(b.CreateICmpNE(reasons, b.getInt8(0)), call, done, rarely);
  b.SetInsertPoint(call);
  report();
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

void HostTarget::print(Emitter &e, const std::vector<codegen::PrintItem> &items) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Module &m = module_of(e);
  auto print_str = runtime_function(m, RuntimeFn::simt_rt_print_str);
  for (size_t i = 0; i < items.size(); ++i) {
    const codegen::PrintItem &item = items[i];
    if (i > 0 && !item.space_before)
      b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_print_glue), {e.env});
    if (!item.value) {
      b.CreateCall(print_str, {e.env, b.CreateGlobalString(item.text, "text")});
      continue;
    }
    Scalar s = item.type.scalar;
    if (s == Scalar::Bool) {
      llvm::Value *text = b.CreateSelect(item.value, b.CreateGlobalString("True", "true"),
                                         b.CreateGlobalString("False", "false"));
      b.CreateCall(print_str, {e.env, text});
    } else if (is_float(s)) {
      b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_print_f64),
                   {e.env, b.CreateFPExt(item.value, b.getDoubleTy())});
    } else if (codegen::scalar_is_signed(s)) {
      b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_print_i64),
                   {e.env, b.CreateSExt(item.value, b.getInt64Ty())});
    } else {
      b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_print_u64),
                   {e.env, b.CreateZExt(item.value, b.getInt64Ty())});
    }
  }
  b.CreateCall(runtime_function(m, RuntimeFn::simt_rt_print_end), {e.env});
}

llvm::Value *HostTarget::math(Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                              Scalar type) {
  llvm::IRBuilder<> &b = e.b;
  if (llvm::Intrinsic::ID id = codegen::llvm_math_intrinsic(fn);
      id != llvm::Intrinsic::not_intrinsic) {
    // LLVM's intrinsic: the C library's function, which the host's libdevice calls too, and
    // which LLVM may simplify (pow(x, 2.0) is x * x). float32 transcendental functions in double,
    // rounded once (see codegen/math.h).
    if (type == Scalar::F32 && !codegen::exact_in_float32(fn)) {
      std::vector<llvm::Value *> widened;
      for (llvm::Value *arg : args)
        widened.push_back(b.CreateFPExt(arg, b.getDoubleTy()));
      return b.CreateFPTrunc(math(e, fn, widened, Scalar::F64), b.getFloatTy());
    }
    return b.CreateCall(llvm::Intrinsic::getDeclaration(&module_of(e), id, {args[0]->getType()}),
                        args);
  }
  // the host's libdevice (sim/libdevice_host.cpp), as libdevice.x in a kernel
  return libdevice(e, codegen::math_libdevice(fn, type), args).at(0);
}

std::vector<llvm::Value *> HostTarget::libdevice(Emitter &e, ir::Libdevice fn,
                                                 llvm::ArrayRef<llvm::Value *> args) {
  codegen::LibdeviceAbi abi;
  abi.widen_int16 = true; // C functions taking int32_t
  abi.pure = true;
  return codegen::call_libdevice(e, fn, args,
                                 std::string("simt_libdevice_") + ir::libdevice_name(fn), abi);
}

namespace {

// 8-byte slots of a kernel argument of `type` in its storage (sim/abi.h).
int64_t argument_slots(const Type &type) {
  switch (type.kind) {
  case Type::Kind::Scalar:
    return type.scalar == Scalar::C128 ? 2 : 1;
  case Type::Kind::Array:
    return 1 + 2 * int64_t(type.ndim);
  case Type::Kind::Record:
    return 1;
  case Type::Kind::Tuple: {
    int64_t slots = 0;
    for (const Type &elem : type.elems)
      slots += argument_slots(elem);
    return slots;
  }
  default:
    throw std::runtime_error("simt: a kernel parameter of type " + type.str() +
                             " is not supported yet");
  }
}

// The header never changes during a launch: invariant loads let LLVM hoist them out of loops.
llvm::LoadInst *invariant(llvm::LoadInst *load) {
  load->setMetadata(llvm::LLVMContext::MD_invariant_load,
                    llvm::MDNode::get(load->getContext(), {}));
  return load;
}

// The array argument at `header` of the host's argument buffer (codegen/backend.h).
llvm::Value *load_array_header(llvm::IRBuilderBase &b, llvm::Value *header, int ndim) {
  llvm::Value *data = invariant(b.CreateAlignedLoad(b.getPtrTy(), header, llvm::Align(8), "data"));
  std::vector<llvm::Value *> shape, strides;
  for (int k = 0; k < 2 * ndim; ++k) {
    llvm::Value *addr = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), header, 8 + 8 * k);
    llvm::Value *dim = invariant(
        b.CreateAlignedLoad(b.getInt64Ty(), addr, llvm::Align(8), k < ndim ? "shape" : "stride"));
    (k < ndim ? shape : strides).push_back(dim);
  }
  return codegen::make_array_value(b, ndim, data, shape, strides);
}

// The value of a kernel argument of `type` stored at `storage` (sim/abi.h).
llvm::Value *load_argument(llvm::IRBuilder<> &b, llvm::Value *storage, const Type &type,
                           const std::string &name) {
  switch (type.kind) {
  case Type::Kind::Array:
    return load_array_header(b, storage, type.ndim);
  case Type::Kind::Scalar: {
    llvm::Value *value =
        b.CreateLoad(codegen::memory_type(b.getContext(), type.scalar), storage, name);
    return codegen::memory_to_register(b, value, type.scalar);
  }
  case Type::Kind::Record: // the slot holds the record's address
    return b.CreateLoad(b.getPtrTy(), storage, name);
  case Type::Kind::Tuple: {
    llvm::Value *tuple = llvm::PoisonValue::get(codegen::register_type(b.getContext(), type));
    int64_t slot = 0;
    for (size_t k = 0; k < type.elems.size(); ++k) {
      llvm::Value *at = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), storage, slot);
      tuple = b.CreateInsertValue(tuple, load_argument(b, at, type.elems[k], name), {unsigned(k)});
      slot += argument_slots(type.elems[k]);
    }
    return tuple;
  }
  default:
    throw std::runtime_error("simt: a kernel parameter of type " + type.str() +
                             " is not supported yet");
  }
}

// The kernel's parameters, read from `args` (sim/abi.h: args[i] points at the i-th argument).
std::vector<llvm::Value *> load_params(llvm::IRBuilder<> &b, llvm::Value *args,
                                       const ir::Function &kernel) {
  std::vector<llvm::Value *> params;
  for (int i = 0; i < kernel.num_params; ++i) {
    const std::string &name = kernel.slots[i].name;
    llvm::Value *slot = b.CreateConstInBoundsGEP1_64(b.getPtrTy(), args, i);
    llvm::Value *storage = b.CreateLoad(b.getPtrTy(), slot, name + ".arg");
    params.push_back(load_argument(b, storage, kernel.slots[i].type, name));
  }
  return params;
}

llvm::Function *create_entry(llvm::Module &module, const std::string &name) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false),
                             llvm::GlobalValue::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->getArg(0)->setName("args");
  fn->getArg(1)->setName("ctx");
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  return fn;
}

} // namespace

void HostTarget::enter_thread(Emitter &e, llvm::ArrayRef<llvm::Value *> tid) {
  for (int axis = 0; axis < 3; ++axis)
    e.b.CreateStore(tid[axis], field_address(e.b, e.env, offsetof(ThreadContext, tid) + 4 * axis));
}

void HostTarget::fissioned_barrier(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  b.CreateCall(runtime_function(module_of(e), RuntimeFn::simt_rt_barrier_passed),
               {e.env, b.getInt32(loc)});
}

llvm::Value *HostTarget::block_scratch(Emitter &e, llvm::Value *bytes) {
  llvm::IRBuilder<> &b = e.b;
  llvm::FunctionCallee scratch = runtime_function(module_of(e), RuntimeFn::simt_rt_block_scratch);
  // Nothing else points into the scratch memory (as with malloc): LLVM may keep a thread's
  // locals in registers across its accesses of arrays.
  llvm::cast<llvm::Function>(scratch.getCallee())->addRetAttr(llvm::Attribute::NoAlias);
  return b.CreateCall(scratch, {e.env, bytes}, "scratch");
}

void HostTarget::emit_entry_points(llvm::Module &module, llvm::Function *body,
                                   const ir::Module &ir_module, const std::string &symbol) {
  const ir::Function &kernel = ir_module.kernel();
  // One entry point per kernel (code generation is half of the compile time): a fissioned body
  // (flat kernels included) runs the whole block, its entry a block entry that calls it once; a
  // fiber's runs one thread.
  llvm::Function *fn =
      create_entry(module, plan_.fibers() ? thread_entry_name(symbol) : block_entry_name(symbol));
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "entry", fn));
  std::vector<llvm::Value *> call_args{fn->getArg(1)};
  for (llvm::Value *param : load_params(b, fn->getArg(0), kernel))
    call_args.push_back(param);
  b.CreateCall(body, call_args);
  b.CreateRetVoid();
}

} // namespace simt::sim
