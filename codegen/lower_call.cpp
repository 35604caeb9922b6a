// Intrinsics, libdevice and calls of device and external functions
// (codegen/function_lowering.h).
#include "codegen/function_lowering.h"

namespace simt::codegen {

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

} // namespace simt::codegen
