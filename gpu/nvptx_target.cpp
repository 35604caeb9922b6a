#include "gpu/nvptx_target.h"

#include "codegen/llvm_types.h"
#include "codegen/math.h"
#include "gpu/device_heap.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include <stdexcept>

namespace simt::gpu {

using codegen::Emitter;

namespace {

llvm::Module &module_of(Emitter &e) { return *e.b.GetInsertBlock()->getModule(); }

llvm::Value *call_intrinsic(Emitter &e, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args,
                            llvm::ArrayRef<llvm::Type *> overloads = {}) {
  return e.b.CreateCall(llvm::Intrinsic::getDeclaration(&module_of(e), id, overloads), args);
}

// A PTX instruction the NVVM intrinsics lack, as inline assembly returning one 32-bit register.
llvm::Value *ptx_register(Emitter &e, const char *instruction) {
  auto *type = llvm::FunctionType::get(e.b.getInt32Ty(), false);
  return e.b.CreateCall(llvm::InlineAsm::get(type, instruction, "=r", /*hasSideEffects=*/true));
}

[[noreturn]] void not_on_gpu(const std::string &what) {
  throw std::runtime_error("simt: " + what + " is not supported by the GPU target yet");
}

} // namespace

void NvptxTarget::configure(llvm::Module &module) {
  module.setTargetTriple("nvptx64-nvidia-cuda");
  module.setDataLayout(data_layout_);
}

llvm::Value *NvptxTarget::special_register(Emitter &e, ir::Op op, int axis) {
  using namespace llvm::Intrinsic;
  static const ID registers[4][3] = {
      {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y, nvvm_read_ptx_sreg_tid_z},
      {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y, nvvm_read_ptx_sreg_ctaid_z},
      {nvvm_read_ptx_sreg_ntid_x, nvvm_read_ptx_sreg_ntid_y, nvvm_read_ptx_sreg_ntid_z},
      {nvvm_read_ptx_sreg_nctaid_x, nvvm_read_ptx_sreg_nctaid_y, nvvm_read_ptx_sreg_nctaid_z}};
  switch (op) {
  case ir::Op::ThreadIdx:
    return call_intrinsic(e, registers[0][axis], {});
  case ir::Op::BlockIdx:
    return call_intrinsic(e, registers[1][axis], {});
  case ir::Op::BlockDim:
    return call_intrinsic(e, registers[2][axis], {});
  case ir::Op::GridDim:
    return call_intrinsic(e, registers[3][axis], {});
  case ir::Op::LaneId:
    return call_intrinsic(e, nvvm_read_ptx_sreg_laneid, {});
  case ir::Op::WarpSize:
    return e.b.getInt32(32);
  default:
    throw std::logic_error("simt: not a special register");
  }
}

// A static shared array: a global of the shared space named as Numba names it
// (`_cudapy_smem_<n>`), aligned to its alignment= (else 16 bytes).
llvm::Value *NvptxTarget::shared_array_memory(Emitter &e, const ir::SharedArrayDecl &decl,
                                              int index) {
  llvm::Module &m = module_of(e);
  constexpr unsigned shared_space = 3;
  const std::string name = "_cudapy_smem_" + std::to_string(index);
  llvm::GlobalVariable *array = m.getGlobalVariable(name, true);
  if (array == nullptr) {
    auto *type = llvm::ArrayType::get(e.b.getInt8Ty(), uint64_t(decl.elements.bytes(decl.shape)));
    array = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::UndefValue::get(type), name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, shared_space);
    array->setAlignment(llvm::Align(uint64_t(std::max<int64_t>(16, decl.alignment))));
  }
  return e.b.CreateAddrSpaceCast(array, e.b.getPtrTy());
}

// The launch's dynamic shared memory (the typed IR's offsets past the static arrays).
llvm::Value *NvptxTarget::shared_memory(Emitter &e, int64_t offset) {
  offset -= static_shared_bytes_;
  llvm::Module &m = module_of(e);
  constexpr unsigned shared_space = 3;
  llvm::GlobalVariable *shared = m.getGlobalVariable("simt_shared", true);
  if (shared == nullptr) {
    auto *type = llvm::ArrayType::get(e.b.getInt8Ty(), 0);
    shared = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                      "simt_shared", nullptr, llvm::GlobalValue::NotThreadLocal,
                                      shared_space);
    shared->setAlignment(llvm::Align(16));
  }
  llvm::Value *generic = e.b.CreateAddrSpaceCast(shared, e.b.getPtrTy());
  return e.b.CreateConstInBoundsGEP1_64(e.b.getInt8Ty(), generic, uint64_t(offset));
}

llvm::Value *NvptxTarget::const_memory(llvm::Module &module, const ir::ConstArrayDecl &decl,
                                       const std::string &name) {
  constexpr unsigned const_space = 4;
  llvm::Constant *data = llvm::ConstantDataArray::get(module.getContext(), decl.data);
  auto *global = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::InternalLinkage, data, name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, const_space);
  global->setAlignment(llvm::Align(16));
  return llvm::ConstantExpr::getAddrSpaceCast(global,
                                              llvm::PointerType::getUnqual(module.getContext()));
}

llvm::Value *NvptxTarget::dynamic_shared_bytes(Emitter &e) {
  // The launch's dynamic shared memory alone (the static arrays are globals).
  return e.b.CreateZExt(ptx_register(e, "mov.u32 $0, %dynamic_smem_size;"), e.b.getInt64Ty());
}

void NvptxTarget::barrier(Emitter &e, int32_t) {
  code_before_barrier_ = fault_code(e);
  call_intrinsic(e, llvm::Intrinsic::nvvm_barrier0, {});
}

llvm::Value *NvptxTarget::barrier_reduce(Emitter &e, Reduction reduction, llvm::Value *predicate,
                                         int32_t) {
  code_before_barrier_ = fault_code(e);
  switch (reduction) {
  case Reduction::Count:
    return call_intrinsic(e, llvm::Intrinsic::nvvm_barrier0_popc, {predicate});
  case Reduction::And:
    return call_intrinsic(e, llvm::Intrinsic::nvvm_barrier0_and, {predicate});
  case Reduction::Or:
    return call_intrinsic(e, llvm::Intrinsic::nvvm_barrier0_or, {predicate});
  }
  throw std::logic_error("simt: unknown barrier reduction");
}

llvm::Value *NvptxTarget::warp_op(Emitter &e, ir::WarpOp op, llvm::Value *mask, llvm::Value *value,
                                  llvm::Value *operand, int32_t) {
  using namespace llvm::Intrinsic;
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *i32 = b.getInt32Ty(), *i64 = b.getInt64Ty();
  auto predicate = [&] { return b.CreateICmpNE(value, b.getInt64(0)); };
  switch (op) {
  case ir::WarpOp::ShflIdx:
  case ir::WarpOp::ShflUp:
  case ir::WarpOp::ShflDown:
  case ir::WarpOp::ShflXor: {
    // 64 bits as two 32-bit shuffles (a 32-bit value's high half is zero).
    const ID id = op == ir::WarpOp::ShflIdx    ? nvvm_shfl_sync_idx_i32
                  : op == ir::WarpOp::ShflUp   ? nvvm_shfl_sync_up_i32
                  : op == ir::WarpOp::ShflDown ? nvvm_shfl_sync_down_i32
                                               : nvvm_shfl_sync_bfly_i32;
    llvm::Value *clamp = b.getInt32(op == ir::WarpOp::ShflUp ? 0 : 0x1f);
    llvm::Value *low = b.CreateTrunc(value, i32);
    llvm::Value *high = b.CreateTrunc(b.CreateLShr(value, 32), i32);
    llvm::Value *low_out = call_intrinsic(e, id, {mask, low, operand, clamp});
    llvm::Value *high_out = call_intrinsic(e, id, {mask, high, operand, clamp});
    return b.CreateOr(b.CreateZExt(low_out, i64), b.CreateShl(b.CreateZExt(high_out, i64), 32));
  }
  case ir::WarpOp::All:
    return b.CreateZExt(call_intrinsic(e, nvvm_vote_all_sync, {mask, predicate()}), i64);
  case ir::WarpOp::Any:
    return b.CreateZExt(call_intrinsic(e, nvvm_vote_any_sync, {mask, predicate()}), i64);
  case ir::WarpOp::Eq:
    return b.CreateZExt(call_intrinsic(e, nvvm_vote_uni_sync, {mask, predicate()}), i64);
  case ir::WarpOp::Ballot:
    return b.CreateZExt(call_intrinsic(e, nvvm_vote_ballot_sync, {mask, predicate()}), i64);
  case ir::WarpOp::MatchAny:
    require_sm(70, "cuda.match_any_sync");
    return b.CreateZExt(call_intrinsic(e, nvvm_match_any_sync_i64, {mask, value}), i64);
  case ir::WarpOp::MatchAll: {
    require_sm(70, "cuda.match_all_sync");
    llvm::Value *both = call_intrinsic(e, nvvm_match_all_sync_i64p, {mask, value});
    return b.CreateZExt(b.CreateExtractValue(both, {0}), i64);
  }
  case ir::WarpOp::SyncWarp:
    call_intrinsic(e, nvvm_bar_warp_sync, {mask});
    return b.getInt64(0);
  case ir::WarpOp::ActiveMask:
    return b.CreateZExt(active_mask(e, -1), i64);
  }
  throw std::logic_error("simt: unknown warp operation");
}

llvm::Value *NvptxTarget::active_mask(Emitter &e, int32_t) {
  return ptx_register(e, "activemask.b32 $0;");
}

// A cooperative launch has every block resident: each block's first thread counts its arrival
// in a global counter, and the last one to arrive resets it and bumps a generation that the
// others wait to see change.
void NvptxTarget::grid_barrier(Emitter &e, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Module &m = module_of(e);
  llvm::LLVMContext &ctx = b.getContext();
  auto *type = llvm::ArrayType::get(b.getInt32Ty(), 2); // {arrived, generation}
  llvm::GlobalVariable *state = m.getGlobalVariable("simt_grid_barrier", true);
  if (state == nullptr)
    state = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantAggregateZero::get(type), "simt_grid_barrier",
                                     nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  llvm::Value *arrived = b.CreateAddrSpaceCast(state, b.getPtrTy());
  llvm::Value *generation = b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), arrived, 1);
  auto volatile_load = [&](llvm::Value *address) {
    llvm::LoadInst *load = b.CreateAlignedLoad(b.getInt32Ty(), address, llvm::Align(4));
    load->setVolatile(true);
    return load;
  };
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *leader = llvm::BasicBlock::Create(ctx, "grid.leader", fn);
  auto *release = llvm::BasicBlock::Create(ctx, "grid.release", fn);
  auto *wait = llvm::BasicBlock::Create(ctx, "grid.wait", fn);
  auto *left = llvm::BasicBlock::Create(ctx, "grid.left", fn);
  auto *after = llvm::BasicBlock::Create(ctx, "grid.after", fn);
  barrier(e, loc);
  llvm::Value *tid = b.CreateOr(special_register(e, ir::Op::ThreadIdx, 0),
                                b.CreateOr(special_register(e, ir::Op::ThreadIdx, 1),
                                           special_register(e, ir::Op::ThreadIdx, 2)));
  b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt32(0)), leader, after);
  b.SetInsertPoint(leader);
  fence(e, FenceScope::Device);
  llvm::Value *seen = volatile_load(generation);
  // The generation is read before this block counts itself: read after (a load may be performed
  // after a later atomic), it could already be the released one, and the block would wait for a
  // release that never comes.
  fence(e, FenceScope::Device);
  llvm::Value *blocks = b.CreateMul(special_register(e, ir::Op::GridDim, 0),
                                    b.CreateMul(special_register(e, ir::Op::GridDim, 1),
                                                special_register(e, ir::Op::GridDim, 2)));
  llvm::Value *before = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, arrived, b.getInt32(1),
                                          llvm::MaybeAlign(4), llvm::AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateICmpEQ(before, b.CreateSub(blocks, b.getInt32(1))), release, wait);
  b.SetInsertPoint(release);
  b.CreateAlignedStore(b.getInt32(0), arrived, llvm::Align(4))->setVolatile(true);
  fence(e, FenceScope::Device);
  b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, generation, b.getInt32(1), llvm::MaybeAlign(4),
                    llvm::AtomicOrdering::Monotonic);
  b.CreateBr(left);
  b.SetInsertPoint(wait);
  b.CreateCondBr(b.CreateICmpEQ(volatile_load(generation), seen), wait, left);
  b.SetInsertPoint(left);
  fence(e, FenceScope::Device);
  b.CreateBr(after);
  b.SetInsertPoint(after);
  barrier(e, loc);
}

void NvptxTarget::fence(Emitter &e, FenceScope scope) {
  using namespace llvm::Intrinsic;
  call_intrinsic(e,
                 scope == FenceScope::Block    ? nvvm_membar_cta
                 : scope == FenceScope::Device ? nvvm_membar_gl
                                               : nvvm_membar_sys,
                 {});
}

void NvptxTarget::require_sm(int sm, const char *what) const {
  if (sm_ < sm)
    throw std::runtime_error(std::string("simt: ") + what + " needs compute capability " +
                             std::to_string(sm / 10) + "." + std::to_string(sm % 10) +
                             " or above, and the kernel is compiled for " +
                             std::to_string(sm_ / 10) + "." + std::to_string(sm_ % 10));
}

void NvptxTarget::nanosleep(Emitter &e, llvm::Value *nanoseconds) {
  require_sm(70, "cuda.nanosleep");
  call_intrinsic(e, llvm::Intrinsic::nvvm_nanosleep,
                 {e.b.CreateZExtOrTrunc(nanoseconds, e.b.getInt32Ty())});
}

llvm::GlobalVariable *NvptxTarget::exception_record(llvm::Module &m) {
  auto *type = llvm::ArrayType::get(llvm::Type::getInt32Ty(m.getContext()), exception_record_words);
  llvm::GlobalVariable *record = m.getGlobalVariable(exception_record_name, true);
  if (record == nullptr)
    record = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantAggregateZero::get(type), exception_record_name,
                                      nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  return record;
}

// The first fault of a launch goes to the exception record (gpu/nvptx_target.h), claimed by a
// compare-and-swap of its code; the host reads it back after the launch.
void NvptxTarget::record_exception(Emitter &e, int32_t code, llvm::Value *loc,
                                   llvm::ArrayRef<llvm::Value *> index_fault) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Value *base = b.CreateAddrSpaceCast(exception_record(module_of(e)), b.getPtrTy());
  llvm::Value *claimed = b.CreateExtractValue(
      b.CreateAtomicCmpXchg(base, b.getInt32(0), b.getInt32(code), llvm::MaybeAlign(4),
                            llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic),
      {1});
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *fill = llvm::BasicBlock::Create(b.getContext(), "exception.first", fn);
  auto *done = llvm::BasicBlock::Create(b.getContext(), "exception.done", fn);
  b.CreateCondBr(claimed, fill, done);
  b.SetInsertPoint(fill);
  auto store = [&](llvm::Value *value, uint64_t word) {
    b.CreateStore(value, b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), base, word));
  };
  store(loc, 1);
  for (int axis = 0; axis < 3; ++axis) {
    store(special_register(e, ir::Op::ThreadIdx, axis), uint64_t(2 + axis));
    store(special_register(e, ir::Op::BlockIdx, axis), uint64_t(5 + axis));
  }
  if (!index_fault.empty()) { // index (i64), axis (i32), size (i64)
    store(index_fault[1], 8);
    store(index_fault[0], 10);
    store(index_fault[2], 12);
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

void NvptxTarget::index_error(Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                              llvm::Value *loc) {
  record_exception(e, index_error_code, loc, {index, axis, size});
}

void NvptxTarget::raise(Emitter &e, const std::string &exception, const std::string &message,
                        llvm::Value *loc) {
  raised_.push_back({exception, message});
  record_exception(e, first_raise_code + int32_t(raised_.size() - 1), loc, {});
}

llvm::Value *NvptxTarget::fault_code(Emitter &e) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Value *code = b.CreateAddrSpaceCast(exception_record(module_of(e)), b.getPtrTy());
  llvm::LoadInst *value = b.CreateAlignedLoad(b.getInt32Ty(), code, llvm::Align(4));
  value->setVolatile(true);
  return value;
}

// After a call that may fault and after barriers: every thread of the launch stops once one has
// faulted (a device function's fault returns to its caller), as on the simulator. After a
// barrier the record was read as the thread arrived there: the global load's latency passes
// while the thread waits, where a load after the barrier stalled every thread once more per
// barrier (a fault that lands during the wait stops the threads at their next check).
llvm::Value *NvptxTarget::must_return(Emitter &e) {
  auto *sampled = llvm::cast_or_null<llvm::Instruction>(code_before_barrier_);
  code_before_barrier_ = nullptr;
  llvm::Value *code =
      sampled != nullptr && sampled->getParent() == e.b.GetInsertBlock() ? sampled : fault_code(e);
  return e.b.CreateICmpNE(code, e.b.getInt32(0));
}

std::string NvptxTarget::allocation_refusal() const {
  return "not supported by the GPU target in a device function compiled on its own (no launch of "
         "it frees the arrays)";
}

llvm::Value *NvptxTarget::allocate(Emitter &e, llvm::Value *bytes, bool zeroed, int32_t loc) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Value *data = device_allocate(b, bytes, zeroed);
  llvm::BasicBlock *failed =
      llvm::BasicBlock::Create(b.getContext(), "alloc.failed", b.GetInsertBlock()->getParent());
  llvm::BasicBlock *next =
      llvm::BasicBlock::Create(b.getContext(), "alloc.next", b.GetInsertBlock()->getParent());
  b.CreateCondBr(b.CreateIsNull(data), failed, next);
  b.SetInsertPoint(failed);
  raise(e, "MemoryError", "Allocation failed (probably too large).", b.getInt32(loc));
  b.CreateBr(next);
  b.SetInsertPoint(next);
  return data;
}

llvm::Value *NvptxTarget::loop_back_edge(Emitter &e, bool, int32_t) { return e.b.getFalse(); }

void NvptxTarget::print(Emitter &e, const std::vector<codegen::PrintItem> &items) {
  // vprintf(format, packed arguments), as Numba's CUDA target prints: %f for floats.
  llvm::IRBuilder<> &b = e.b;
  std::string format;
  std::vector<llvm::Value *> values;
  for (const codegen::PrintItem &item : items) {
    if (!format.empty() && item.space_before)
      format += ' ';
    if (item.value == nullptr) {
      for (char c : item.text)
        format += c == '%' ? std::string("%%") : std::string(1, c);
      continue;
    }
    const Scalar s = item.type.scalar;
    if (is_float(s)) {
      format += "%f";
      values.push_back(b.CreateFPExt(item.value, b.getDoubleTy()));
    } else if (s == Scalar::Bool) {
      format += "%s";
      values.push_back(b.CreateSelect(item.value, b.CreateGlobalStringPtr("True"),
                                      b.CreateGlobalStringPtr("False")));
    } else {
      format += codegen::scalar_is_signed(s) ? "%lld" : "%llu";
      values.push_back(codegen::scalar_is_signed(s) ? b.CreateSExt(item.value, b.getInt64Ty())
                                                    : b.CreateZExt(item.value, b.getInt64Ty()));
    }
  }
  format += '\n';
  std::vector<llvm::Type *> types;
  for (llvm::Value *v : values)
    types.push_back(v->getType());
  auto *packed_type = llvm::StructType::get(b.getContext(), types);
  // In the entry block: an alloca elsewhere is dynamic, and once inlined (always_inline at -O0)
  // it is bracketed by stacksave/stackrestore, which LLVM 19's NVPTX backend cannot select.
  llvm::BasicBlock &entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.getFirstInsertionPt());
  llvm::Value *packed = at_entry.CreateAlloca(packed_type);
  for (size_t i = 0; i < values.size(); ++i)
    b.CreateStore(values[i], b.CreateStructGEP(packed_type, packed, unsigned(i)));
  llvm::FunctionCallee vprintf = module_of(e).getOrInsertFunction(
      "vprintf", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy()}, false));
  b.CreateCall(vprintf, {b.CreateGlobalStringPtr(format), packed});
}

// numba-cuda's lowering: PTX's brkpt, where cuda-gdb stops the thread (a trap without it).
void NvptxTarget::breakpoint_call(Emitter &e, int32_t) {
  auto *type = llvm::FunctionType::get(e.b.getVoidTy(), false);
  e.b.CreateCall(llvm::InlineAsm::get(type, "brkpt;", "", /*hasSideEffects=*/true));
}

llvm::Value *NvptxTarget::math(Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                               Scalar type) {
  // Exactly rounded operations are the GPU's own instructions (sqrt.rn.f32, or sqrt.approx under
  // fastmath); the others libdevice's (codegen/math.h: __nv_sinf, __nv_fast_sinf under fastmath),
  // linked in by gpu/ptx.
  if (codegen::exact_in_float32(fn) &&
      codegen::llvm_math_intrinsic(fn) != llvm::Intrinsic::not_intrinsic)
    return e.b.CreateCall(llvm::Intrinsic::getDeclaration(&module_of(e),
                                                          codegen::llvm_math_intrinsic(fn),
                                                          {args[0]->getType()}),
                          args);
  return libdevice(e, codegen::math_libdevice(fn, type, fastmath_), args).at(0);
}

namespace {

// A parameter of the typed IR as the PTX function's parameters (Numba's data models, flattened):
// an array as meminfo, parent, nitems, itemsize, data, shape.., strides..; bool as a byte;
// a complex number as its two parts; a tuple as its elements; a record as a pointer to it.
void flatten_parameter(llvm::LLVMContext &ctx, const Type &type, std::vector<llvm::Type *> &out) {
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  if (type.is_array()) {
    for (llvm::Type *field : {ptr, ptr, i64, i64, ptr}) // meminfo, parent, nitems, itemsize, data
      out.push_back(field);
    out.resize(out.size() + size_t(2 * type.ndim), i64);
  } else if (type.is_scalar() && is_complex(type.scalar)) {
    llvm::Type *part = codegen::register_type(ctx, Type::scalar_of(component_of(type.scalar)));
    out.push_back(part);
    out.push_back(part);
  } else if (type.is_scalar()) {
    out.push_back(type.scalar == Scalar::Bool ? llvm::Type::getInt8Ty(ctx)
                                              : codegen::register_type(ctx, type));
  } else if (type.is_tuple()) {
    for (const Type &element : type.elems)
      flatten_parameter(ctx, element, out);
  } else if (type.is_record()) {
    out.push_back(ptr);
  } else {
    not_on_gpu("a parameter of type " + type.str());
  }
}

// The register value of a parameter of `type` from the flattened parameters at `next`.
llvm::Value *gather_parameter(llvm::IRBuilder<> &b, const Type &type, llvm::Function &fn,
                              unsigned &next) {
  llvm::LLVMContext &ctx = b.getContext();
  if (type.is_array()) {
    next += 4; // meminfo, parent, nitems, itemsize: the simulator's array needs none of them
    llvm::Value *data = fn.getArg(next++);
    std::vector<llvm::Value *> shape, strides;
    for (int axis = 0; axis < type.ndim; ++axis)
      shape.push_back(fn.getArg(next++));
    for (int axis = 0; axis < type.ndim; ++axis)
      strides.push_back(fn.getArg(next++));
    return codegen::make_array_value(b, type.ndim, data, shape, strides);
  }
  if (type.is_scalar() && type.scalar == Scalar::Bool)
    return b.CreateICmpNE(fn.getArg(next++), b.getInt8(0));
  if (type.is_scalar() && !is_complex(type.scalar))
    return fn.getArg(next++);
  llvm::Type *whole = codegen::register_type(ctx, type);
  if (type.is_record())
    return fn.getArg(next++);
  llvm::Value *value = llvm::PoisonValue::get(whole);
  if (type.is_scalar()) { // complex
    value = b.CreateInsertValue(value, fn.getArg(next++), {0});
    return b.CreateInsertValue(value, fn.getArg(next++), {1});
  }
  for (unsigned i = 0; i < type.elems.size(); ++i)
    value = b.CreateInsertValue(value, gather_parameter(b, type.elems[i], fn, next), {i});
  return value;
}

} // namespace

void NvptxTarget::emit_entry_points(llvm::Module &module, llvm::Function *body,
                                    const ir::Module &ir_module, const std::string &) {
  llvm::LLVMContext &ctx = module.getContext();
  const ir::Function &function = ir_module.kernel();
  const bool numba_device = abi_.device && !abi_.c_abi;
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  std::vector<llvm::Type *> params;
  if (numba_device) // the result's address, the exception info's
    params.resize(2, ptr);
  for (int i = 0; i < function.num_params; ++i)
    flatten_parameter(ctx, function.slots[size_t(i)].type, params);
  llvm::Type *result = llvm::Type::getVoidTy(ctx);
  if (numba_device)
    result = llvm::Type::getInt32Ty(ctx);
  else if (abi_.device && !function.return_type.is_none())
    result = body->getReturnType();
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(result, params, false),
                                    llvm::GlobalValue::ExternalLinkage, abi_.name, module);
  if (fn->getName() != abi_.name)
    throw std::runtime_error("simt: the name '" + abi_.name + "' is taken in the PTX module");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value *> args;
  unsigned next = numba_device ? 2 : 0;
  for (int i = 0; i < function.num_params; ++i)
    args.push_back(gather_parameter(b, function.slots[size_t(i)].type, *fn, next));
  llvm::Value *value = b.CreateCall(body, args);
  if (!abi_.device) {
    b.CreateRetVoid();
    auto annotate = [&](const char *key, int value) {
      llvm::Metadata *annotation[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, key),
                                      llvm::ConstantAsMetadata::get(b.getInt32(value))};
      module.getOrInsertNamedMetadata("nvvm.annotations")
          ->addOperand(llvm::MDNode::get(ctx, annotation));
    };
    annotate("kernel", 1);
    emit_free_arrays_kernel(module, abi_.name);
    if (abi_.max_threads_per_block > 0)
      annotate("maxntidx", abi_.max_threads_per_block);
    if (abi_.min_blocks_per_multiprocessor > 0)
      annotate("minctasm", abi_.min_blocks_per_multiprocessor);
    if (abi_.max_blocks_per_cluster > 0)
      annotate("maxclusterrank", abi_.max_blocks_per_cluster);
  } else if (numba_device) {
    if (!function.return_type.is_none())
      b.CreateStore(value, fn->getArg(0));
    b.CreateRet(b.getInt32(0));
  } else if (function.return_type.is_none()) {
    b.CreateRetVoid();
  } else {
    b.CreateRet(value);
  }
}

} // namespace simt::gpu
