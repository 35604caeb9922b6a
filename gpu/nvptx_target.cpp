#include "gpu/nvptx_target.h"

#include "codegen/llvm_types.h"

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

llvm::Value *NvptxTarget::shared_memory(Emitter &e, int64_t offset) {
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

llvm::Value *NvptxTarget::dynamic_shared_bytes(Emitter &e) {
  // The launch gives the static arrays and the dynamic memory as one size (one extern array).
  llvm::Value *total =
      e.b.CreateZExt(ptx_register(e, "mov.u32 $0, %dynamic_smem_size;"), e.b.getInt64Ty());
  return e.b.CreateSub(total, e.b.getInt64(static_shared_bytes_));
}

void NvptxTarget::barrier(Emitter &e, int32_t) {
  call_intrinsic(e, llvm::Intrinsic::nvvm_barrier0, {});
}

llvm::Value *NvptxTarget::barrier_reduce(Emitter &e, Reduction reduction, llvm::Value *predicate,
                                         int32_t) {
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
    return b.CreateZExt(call_intrinsic(e, nvvm_match_any_sync_i64, {mask, value}), i64);
  case ir::WarpOp::MatchAll: {
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

void NvptxTarget::grid_barrier(Emitter &, int32_t) { not_on_gpu("grid sync"); }

// The first fault of a launch: simt_exception = {code, loc, tid.xyz, ctaid.xyz} in global
// memory, claimed by a compare-and-swap of the code, read back by the host after the launch.
void NvptxTarget::record_exception(Emitter &e, DeviceException code, llvm::Value *loc) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Module &m = module_of(e);
  auto *type = llvm::ArrayType::get(b.getInt32Ty(), 8);
  llvm::GlobalVariable *record = m.getGlobalVariable("simt_exception", true);
  if (record == nullptr)
    record = new llvm::GlobalVariable(m, type, false, llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantAggregateZero::get(type), "simt_exception",
                                      nullptr, llvm::GlobalValue::NotThreadLocal, 1);
  llvm::Value *base = b.CreateAddrSpaceCast(record, b.getPtrTy());
  llvm::Value *claimed = b.CreateExtractValue(
      b.CreateAtomicCmpXchg(base, b.getInt32(0), b.getInt32(int32_t(code)), llvm::MaybeAlign(4),
                            llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic),
      {1});
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *fill = llvm::BasicBlock::Create(b.getContext(), "exception.first", fn);
  auto *done = llvm::BasicBlock::Create(b.getContext(), "exception.done", fn);
  b.CreateCondBr(claimed, fill, done);
  b.SetInsertPoint(fill);
  llvm::Value *fields[7] = {loc,
                            special_register(e, ir::Op::ThreadIdx, 0),
                            special_register(e, ir::Op::ThreadIdx, 1),
                            special_register(e, ir::Op::ThreadIdx, 2),
                            special_register(e, ir::Op::BlockIdx, 0),
                            special_register(e, ir::Op::BlockIdx, 1),
                            special_register(e, ir::Op::BlockIdx, 2)};
  for (int i = 0; i < 7; ++i)
    b.CreateStore(fields[i], b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), base, uint64_t(i + 1)));
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

void NvptxTarget::index_error(Emitter &e, llvm::Value *, llvm::Value *, llvm::Value *,
                              llvm::Value *loc) {
  record_exception(e, DeviceException::IndexError, loc);
}

void NvptxTarget::raise(Emitter &e, const std::string &, const std::string &, llvm::Value *loc) {
  record_exception(e, DeviceException::Raised, loc);
}

llvm::Value *NvptxTarget::must_return(Emitter &e) { return e.b.getFalse(); }

llvm::Value *NvptxTarget::loop_back_edge(Emitter &e, bool, int32_t) { return e.b.getFalse(); }

void NvptxTarget::print(Emitter &e, const std::vector<codegen::PrintItem> &items) {
  // vprintf(format, packed arguments), as Numba's CUDA target prints: %f for floats.
  llvm::IRBuilder<> &b = e.b;
  std::string format;
  std::vector<llvm::Value *> values;
  for (const codegen::PrintItem &item : items) {
    if (!format.empty())
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
  llvm::Value *packed = b.CreateAlloca(packed_type);
  for (size_t i = 0; i < values.size(); ++i)
    b.CreateStore(values[i], b.CreateStructGEP(packed_type, packed, unsigned(i)));
  llvm::FunctionCallee vprintf = module_of(e).getOrInsertFunction(
      "vprintf", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy()}, false));
  b.CreateCall(vprintf, {b.CreateGlobalStringPtr(format), packed});
}

void NvptxTarget::enter_function(Emitter &, int32_t, llvm::Value *) {
  not_on_gpu("the debugger's instrumentation");
}
void NvptxTarget::leave_function(Emitter &) { not_on_gpu("the debugger's instrumentation"); }
void NvptxTarget::statement(Emitter &, int32_t) { not_on_gpu("the debugger's instrumentation"); }
void NvptxTarget::breakpoint_call(Emitter &, int32_t) { not_on_gpu("breakpoint()"); }
void NvptxTarget::memory_access(Emitter &, llvm::Value *, uint32_t, codegen::AccessKind, MemSpace,
                                llvm::Value *, int32_t) {
  not_on_gpu("the debugger's instrumentation");
}

llvm::Value *NvptxTarget::math(Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                               Scalar type) {
  // libdevice's function of the intrinsic's name (__nv_sinf for float32), linked in by gpu/ptx.
  std::vector<llvm::Type *> params;
  for (llvm::Value *arg : args)
    params.push_back(arg->getType());
  const std::string symbol =
      std::string("__nv_") + ir::intrinsic_name(fn) + (type == Scalar::F32 ? "f" : "");
  llvm::FunctionCallee callee = module_of(e).getOrInsertFunction(
      symbol, llvm::FunctionType::get(args[0]->getType(), params, false));
  return e.b.CreateCall(callee, args);
}

void NvptxTarget::emit_entry_points(llvm::Module &module, llvm::Function *body,
                                    const ir::Module &ir_module, const std::string &) {
  llvm::LLVMContext &ctx = module.getContext();
  const ir::Function &kernel = ir_module.kernel();
  std::vector<llvm::Type *> params;
  for (int i = 0; i < kernel.num_params; ++i) {
    const Type &type = kernel.slots[size_t(i)].type;
    if (type.is_array()) {
      params.push_back(llvm::PointerType::getUnqual(ctx));
      params.insert(params.end(), size_t(2 * type.ndim), llvm::Type::getInt64Ty(ctx));
    } else if (type.is_scalar()) {
      params.push_back(type.scalar == Scalar::Bool ? llvm::Type::getInt8Ty(ctx)
                                                   : codegen::register_type(ctx, type));
    } else {
      not_on_gpu("a kernel parameter of type " + type.str());
    }
  }
  auto *fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
      llvm::GlobalValue::ExternalLinkage, ir_module.kernel().python_name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value *> args;
  unsigned next = 0;
  for (int i = 0; i < kernel.num_params; ++i) {
    const Type &type = kernel.slots[size_t(i)].type;
    if (type.is_array()) {
      llvm::Value *data = fn->getArg(next++);
      std::vector<llvm::Value *> shape, strides;
      for (int axis = 0; axis < type.ndim; ++axis)
        shape.push_back(fn->getArg(next++));
      for (int axis = 0; axis < type.ndim; ++axis)
        strides.push_back(fn->getArg(next++));
      args.push_back(codegen::make_array_value(b, type.ndim, data, shape, strides));
    } else {
      llvm::Value *value = fn->getArg(next++);
      args.push_back(type.scalar == Scalar::Bool ? b.CreateICmpNE(value, b.getInt8(0)) : value);
    }
  }
  b.CreateCall(body, args);
  b.CreateRetVoid();
  llvm::Metadata *annotation[] = {llvm::ValueAsMetadata::get(fn),
                                  llvm::MDString::get(ctx, "kernel"),
                                  llvm::ConstantAsMetadata::get(b.getInt32(1))};
  module.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(ctx, annotation));
}

} // namespace simt::gpu
