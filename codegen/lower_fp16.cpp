#include "codegen/lower_fp16.h"

#include <llvm/IR/Intrinsics.h>

#include <map>

namespace simt::codegen {

namespace {

// fma.rn.f16: a*b + c rounded once. a*b is exact in double (22 significant bits); the sum is
// taken in double rounded to odd, which rounds to half correctly.
llvm::Value *fused_multiply_add(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y,
                                llvm::Value *z) {
  llvm::Type *f64 = b.getDoubleTy();
  return double_to_half(
      b, fma_to_odd(b, b.CreateFPExt(x, f64), b.CreateFPExt(y, f64), b.CreateFPExt(z, f64)));
}

} // namespace

// The error term of the rounded sum (TwoSum) sets the last bit when the sum is inexact.
llvm::Value *fma_to_odd(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y, llvm::Value *z) {
  llvm::Type *f64 = b.getDoubleTy();
  llvm::Value *product = b.CreateFMul(x, y);
  llvm::Value *addend = z;
  llvm::Value *sum = b.CreateFAdd(product, addend);
  llvm::Value *addend_part = b.CreateFSub(sum, product);
  llvm::Value *product_part = b.CreateFSub(sum, addend_part);
  llvm::Value *error =
      b.CreateFAdd(b.CreateFSub(product, product_part), b.CreateFSub(addend, addend_part));
  llvm::Value *zero = llvm::ConstantFP::get(f64, 0.0);
  llvm::Value *bits = b.CreateBitCast(sum, b.getInt64Ty());
  llvm::Value *even = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt64(1)), b.getInt64(0));
  // inexact (a NaN error means an infinite sum: nothing to fix) with an even last bit
  llvm::Value *fix = b.CreateAnd(b.CreateFCmpONE(error, zero), even);
  // the odd neighbour towards the exact value: one step up in magnitude when the error has the
  // sum's sign, else down
  llvm::Value *same_sign = b.CreateICmpEQ(b.CreateFCmpOLT(error, zero), b.CreateFCmpOLT(sum, zero));
  llvm::Value *step = b.CreateSelect(same_sign, b.getInt64(1), b.getInt64(-1));
  llvm::Value *odd = b.CreateBitCast(b.CreateAdd(bits, step), f64);
  return b.CreateSelect(fix, odd, sum);
}

llvm::Value *double_to_half(llvm::IRBuilderBase &b, llvm::Value *value) {
  return b.CreateFPTrunc(double_to_float_odd(b, value), b.getHalfTy());
}

llvm::Value *double_to_float_odd(llvm::IRBuilderBase &b, llvm::Value *value) {
  llvm::Value *narrow = b.CreateFPTrunc(value, b.getFloatTy());
  // inexact (unordered for NaN: nothing to fix; an overflow to infinity stays infinite after
  // rounding to half too) with an even last bit: the odd neighbour towards the exact value
  llvm::Value *widened = b.CreateFPExt(narrow, b.getDoubleTy());
  llvm::Value *bits = b.CreateBitCast(narrow, b.getInt32Ty());
  llvm::Value *even = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt32(1)), b.getInt32(0));
  llvm::Value *finite = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, narrow),
                                        llvm::ConstantFP::getInfinity(b.getFloatTy()));
  llvm::Value *fix = b.CreateAnd(b.CreateAnd(b.CreateFCmpONE(widened, value), even), finite);
  // (one step up in magnitude when the value is the larger, a zero's included: a double below
  // float's least subnormal rounds to odd as that subnormal)
  llvm::Value *away = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value),
                                      b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, widened));
  llvm::Value *step = b.CreateSelect(away, b.getInt32(1), b.getInt32(-1));
  llvm::Value *odd = b.CreateBitCast(b.CreateAdd(bits, step), b.getFloatTy());
  return b.CreateSelect(fix, odd, narrow);
}

llvm::Value *convert_to_half(llvm::IRBuilderBase &b, llvm::Value *value, bool from_signed) {
  if (value->getType()->isFloatingPointTy())
    return value->getType()->isDoubleTy() ? double_to_half(b, value)
                                          : b.CreateFPCast(value, b.getHalfTy());
  // exact in double below 2**53; beyond, half's range is long exceeded
  llvm::Value *wide =
      from_signed ? b.CreateSIToFP(value, b.getDoubleTy()) : b.CreateUIToFP(value, b.getDoubleTy());
  return double_to_half(b, wide);
}

llvm::Value *convert_from_half(llvm::IRBuilderBase &b, llvm::Value *value, llvm::Type *to,
                               bool to_signed) {
  if (to->isFloatingPointTy())
    return b.CreateFPExt(value, to);
  llvm::Value *whole =
      b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFPExt(value, b.getFloatTy()));
  return b.CreateIntrinsic(to_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                           {to, whole->getType()}, {whole});
}

llvm::Value *fp16_intrinsic(llvm::IRBuilderBase &b, ir::Intrinsic fn,
                            const std::vector<llvm::Value *> &args) {
  using I = ir::Intrinsic;
  switch (fn) {
  case I::Hadd:
    return b.CreateFAdd(args[0], args[1]);
  case I::Hsub:
    return b.CreateFSub(args[0], args[1]);
  case I::Hmul:
    return b.CreateFMul(args[0], args[1]);
  case I::Hdiv: // float32's quotient rounded to float16 is the correctly rounded one
    return b.CreateFPTrunc(b.CreateFDiv(b.CreateFPExt(args[0], b.getFloatTy()),
                                        b.CreateFPExt(args[1], b.getFloatTy())),
                           b.getHalfTy());
  // neg.f16 and abs.f16 only touch the sign bit: on the bits, so x86's conversions through float
  // do not quieten signalling NaNs
  case I::Hneg:
  case I::Habs: {
    llvm::Value *bits = b.CreateBitCast(args[0], b.getInt16Ty());
    bits = fn == I::Hneg ? b.CreateXor(bits, b.getInt16(0x8000)) : b.CreateAnd(bits, 0x7FFF);
    return b.CreateBitCast(bits, args[0]->getType());
  }
  case I::Hfma:
    return fused_multiply_add(b, args[0], args[1], args[2]);
  // setp's eq/ne/ge/gt/le/lt are ordered: false when either operand is NaN
  case I::Heq:
    return b.CreateFCmpOEQ(args[0], args[1]);
  case I::Hne:
    return b.CreateFCmpONE(args[0], args[1]);
  case I::Hge:
    return b.CreateFCmpOGE(args[0], args[1]);
  case I::Hgt:
    return b.CreateFCmpOGT(args[0], args[1]);
  case I::Hle:
    return b.CreateFCmpOLE(args[0], args[1]);
  case I::Hlt:
    return b.CreateFCmpOLT(args[0], args[1]);
  // Numba: a when a > b (a < b for hmin), else b
  case I::Hmax:
    return b.CreateSelect(b.CreateFCmpOGT(args[0], args[1]), args[0], args[1]);
  case I::Hmin:
    return b.CreateSelect(b.CreateFCmpOLT(args[0], args[1]), args[0], args[1]);
  default:
    return nullptr;
  }
}

llvm::Value *fp16_math(Emitter &e, Target &target, ir::Intrinsic fn,
                       const std::vector<llvm::Value *> &args) {
  using I = ir::Intrinsic;
  static const std::map<I, I> library = {
      {I::Hsin, I::Sin},   {I::Hcos, I::Cos},   {I::Htanh, I::Tanh},   {I::HtanhApprox, I::Tanh},
      {I::Hlog, I::Log},   {I::Hlog2, I::Log2}, {I::Hlog10, I::Log10}, {I::Hexp, I::Exp},
      {I::Hexp2, I::Exp2}, {I::Hrint, I::Rint}};
  llvm::IRBuilderBase &b = e.b;
  auto in_float = [&] { return b.CreateFPExt(args.at(0), b.getFloatTy()); };
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return b.CreateUnaryIntrinsic(id, in_float()); };
  llvm::Constant *one = llvm::ConstantFP::get(b.getFloatTy(), 1.0);
  llvm::Value *r = nullptr;
  if (auto it = library.find(fn); it != library.end())
    r = target.math(e, it->second, {in_float()}, Scalar::F32);
  else if (fn == I::Hexp10)
    r = target.math(e, I::Pow, {llvm::ConstantFP::get(b.getFloatTy(), 10.0), in_float()},
                    Scalar::F32);
  else if (fn == I::Hsqrt) // correctly rounded in float32, so once rounded to float16
    r = intrinsic(llvm::Intrinsic::sqrt);
  else if (fn == I::Hrsqrt)
    r = b.CreateFDiv(one, intrinsic(llvm::Intrinsic::sqrt));
  else if (fn == I::Hrcp)
    r = b.CreateFDiv(one, in_float());
  else if (fn == I::Hceil)
    r = intrinsic(llvm::Intrinsic::ceil);
  else if (fn == I::Hfloor)
    r = intrinsic(llvm::Intrinsic::floor);
  else if (fn == I::Htrunc)
    r = intrinsic(llvm::Intrinsic::trunc);
  return r ? b.CreateFPTrunc(r, b.getHalfTy()) : nullptr;
}

} // namespace simt::codegen
