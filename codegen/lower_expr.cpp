// Expressions of the typed IR: operators, comparisons, conversions (codegen/function_lowering.h).
#include "codegen/function_lowering.h"

namespace simt::codegen {

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
  case ir::ExprKind::ArrayLoad:
  case ir::ExprKind::ArrayShape:
  case ir::ExprKind::ArrayStride:
  case ir::ExprKind::ArraySize:
  case ir::ExprKind::ArrayAddress:
  case ir::ExprKind::SharedArray:
  case ir::ExprKind::LocalArray:
  case ir::ExprKind::ConstArray:
  case ir::ExprKind::ArrayView:
  case ir::ExprKind::DtypeView:
  case ir::ExprKind::Reshape:
  case ir::ExprKind::FieldView:
  case ir::ExprKind::ArrayAlloc:
    return array_expr(e);
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
  case ir::ExprKind::Atomic:
    return atomic(e);
  case ir::ExprKind::Slice:
    throw std::logic_error("simt: a slice outside an array view");
  case ir::ExprKind::TupleIndex:
    return tuple_index(e);
  case ir::ExprKind::RecordField:
    return field_load(e);
  case ir::ExprKind::Libdevice:
    return libdevice(e);
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

} // namespace simt::codegen
