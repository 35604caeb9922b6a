#include "codegen/lower_bf16.h"
#include "codegen/lower_fp16.h"

#include <llvm/IR/Intrinsics.h>

#include <stdexcept>

namespace simt::codegen {

namespace {

using Mode = ir::Bf16Mode;

// The GPU's canonical NaN (cvt.rn.bf16.f32 of any NaN).
constexpr uint16_t kCanonicalNan = 0x7fff;

llvm::Value *bits_of(llvm::IRBuilderBase &b, llvm::Value *f32) {
  return b.CreateBitCast(f32, b.getInt32Ty());
}

// A float32 rounded to bfloat16 by `mode`, on its bits: the top half, plus one where the rounding
// goes up in magnitude (a carry into the exponent gives the next binade, or infinity). NaN is
// the canonical NaN.
llvm::Value *round_float(Emitter &e, Target &target, llvm::Value *f32, Mode mode) {
  llvm::IRBuilderBase &b = e.b;
  if (mode == Mode::None)
    mode = Mode::RN;
  if (mode == Mode::RN && target.native_bfloat16())
    return b.CreateBitCast(b.CreateFPTrunc(f32, b.getBFloatTy()), b.getInt16Ty());
  llvm::Value *bits = bits_of(b, f32);
  llvm::Value *top = b.CreateLShr(bits, 16);
  llvm::Value *rounded = nullptr;
  if (mode == Mode::RN) { // ties to even: add just under half, plus the kept last bit
    llvm::Value *odd = b.CreateAnd(top, b.getInt32(1));
    rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7fff), odd)), 16);
  } else if (mode == Mode::RZ) {
    rounded = top;
  } else { // RD / RU: up in magnitude when inexact and negative / positive
    llvm::Value *inexact = b.CreateICmpNE(b.CreateAnd(bits, b.getInt32(0xffff)), b.getInt32(0));
    llvm::Value *negative = b.CreateICmpSLT(bits, b.getInt32(0));
    llvm::Value *away = b.CreateAnd(inexact, mode == Mode::RD ? negative : b.CreateNot(negative));
    rounded = b.CreateAdd(top, b.CreateZExt(away, b.getInt32Ty()));
  }
  llvm::Value *nan = b.CreateFCmpUNO(f32, f32);
  return b.CreateSelect(nan, b.getInt16(kCanonicalNan), b.CreateTrunc(rounded, b.getInt16Ty()));
}

// An integer (i1 to i64) as a float32 that rounds to bfloat16 in every mode as the integer does:
// its magnitude's top 24 bits, the last of them set when any bit below is (rounding to odd), times
// the power of two dropped, then the sign.
llvm::Value *integer_to_float_odd(llvm::IRBuilderBase &b, llvm::Value *value, bool is_signed) {
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *wide = is_signed ? b.CreateSExt(value, i64) : b.CreateZExt(value, i64);
  llvm::Value *negative = is_signed ? b.CreateICmpSLT(wide, b.getInt64(0))
                                    : llvm::ConstantInt::getFalse(b.getContext());
  llvm::Value *magnitude = b.CreateSelect(negative, b.CreateNeg(wide), wide);
  llvm::Value *leading = b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, magnitude, b.getFalse());
  // significant bits beyond 24 (64 - leading - 24), else 0
  llvm::Value *excess = b.CreateSub(b.getInt64(40), leading);
  llvm::Value *shift =
      b.CreateSelect(b.CreateICmpSGT(excess, b.getInt64(0)), excess, b.getInt64(0));
  llvm::Value *kept = b.CreateLShr(magnitude, shift);
  llvm::Value *dropped =
      b.CreateAnd(magnitude, b.CreateSub(b.CreateShl(b.getInt64(1), shift), b.getInt64(1)));
  kept = b.CreateOr(kept, b.CreateZExt(b.CreateICmpNE(dropped, b.getInt64(0)), i64));
  llvm::Value *f32 = b.CreateUIToFP(kept, b.getFloatTy()); // exact: below 2**24
  // 2**shift (shift <= 40) as a float32, from its exponent field
  llvm::Value *scale = b.CreateBitCast(
      b.CreateTrunc(b.CreateShl(b.CreateAdd(shift, b.getInt64(127)), 23), b.getInt32Ty()),
      b.getFloatTy());
  f32 = b.CreateFMul(f32, scale);
  return b.CreateSelect(negative, b.CreateFNeg(f32), f32);
}

// The rounding of a float to an integral value that `mode` asks for.
llvm::Intrinsic::ID integral_rounding(Mode mode) {
  switch (mode) {
  case Mode::RN:
    return llvm::Intrinsic::roundeven;
  case Mode::RD:
    return llvm::Intrinsic::floor;
  case Mode::RU:
    return llvm::Intrinsic::ceil;
  default:
    return llvm::Intrinsic::trunc;
  }
}

// A bfloat16 result computed as the float32 `f32`, rounded to nearest even.
llvm::Value *round_result(Emitter &e, Target &target, llvm::Value *f32) {
  return round_float(e, target, f32, Mode::RN);
}

// A float32 operation's result made a bfloat16 per `mode`: Sat clamps it to [0, 1] (NaN to +0),
// Relu makes a negative one +0 (NaN stays NaN).
llvm::Value *saturate(llvm::IRBuilderBase &b, llvm::Value *f32, Mode mode) {
  llvm::Constant *zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  llvm::Constant *one = llvm::ConstantFP::get(b.getFloatTy(), 1.0);
  if (mode == Mode::Sat) {
    llvm::Value *below_one = b.CreateSelect(b.CreateFCmpOLT(f32, one), f32, one);
    return b.CreateSelect(b.CreateFCmpOGT(f32, zero), below_one, zero);
  }
  if (mode == Mode::Relu)
    return b.CreateSelect(b.CreateFCmpOLT(f32, zero), zero, f32);
  return f32;
}

llvm::Value *float_arithmetic(llvm::IRBuilderBase &b, ir::Bf16Op op, llvm::Value *x,
                              llvm::Value *y) {
  switch (op) {
  case ir::Bf16Op::Add:
    return b.CreateFAdd(x, y);
  case ir::Bf16Op::Sub:
    return b.CreateFSub(x, y);
  case ir::Bf16Op::Mul:
    return b.CreateFMul(x, y);
  case ir::Bf16Op::Div:
    return b.CreateFDiv(x, y);
  default:
    throw std::logic_error("simt: bad bfloat16 arithmetic");
  }
}

// hfma: a * b + c rounded once. The product of two bfloat16s is exact in double; the sum is
// rounded to odd in double, then to odd in float32, which rounds to bfloat16 exactly.
llvm::Value *fused_multiply_add(Emitter &e, Target &target, llvm::Value *x, llvm::Value *y,
                                llvm::Value *z, Mode mode) {
  llvm::IRBuilderBase &b = e.b;
  if (target.native_bfloat16() && mode == Mode::None) { // fma.rn.bf16
    llvm::Type *bf = b.getBFloatTy();
    llvm::Value *r =
        b.CreateIntrinsic(llvm::Intrinsic::fma, {bf},
                          {b.CreateBitCast(x, bf), b.CreateBitCast(y, bf), b.CreateBitCast(z, bf)});
    return b.CreateBitCast(r, b.getInt16Ty());
  }
  llvm::Type *f64 = b.getDoubleTy();
  auto wide = [&](llvm::Value *v) { return b.CreateFPExt(bfloat16_to_float(b, v), f64); };
  llvm::Value *odd = double_to_float_odd(b, fma_to_odd(b, wide(x), wide(y), wide(z)));
  if (mode == Mode::None)
    return round_float(e, target, odd, Mode::RN);
  // clamping after rounding gives what rounding the clamped exact value would: 0 and 1 are
  // bfloat16s and rounding is monotonic
  llvm::Value *rounded = bfloat16_to_float(b, round_float(e, target, odd, Mode::RN));
  return round_float(e, target, saturate(b, rounded, mode), Mode::RN);
}

llvm::Value *compare(llvm::IRBuilderBase &b, ir::Bf16Op op, Mode mode, llvm::Value *x,
                     llvm::Value *y) {
  using P = llvm::CmpInst::Predicate;
  const bool unordered = mode == Mode::Unordered;
  P p;
  switch (op) {
  case ir::Bf16Op::Eq:
    p = unordered ? P::FCMP_UEQ : P::FCMP_OEQ;
    break;
  case ir::Bf16Op::Ne: // setp.ne is ordered: false for NaN
    p = unordered ? P::FCMP_UNE : P::FCMP_ONE;
    break;
  case ir::Bf16Op::Ge:
    p = unordered ? P::FCMP_UGE : P::FCMP_OGE;
    break;
  case ir::Bf16Op::Gt:
    p = unordered ? P::FCMP_UGT : P::FCMP_OGT;
    break;
  case ir::Bf16Op::Le:
    p = unordered ? P::FCMP_ULE : P::FCMP_OLE;
    break;
  default:
    p = unordered ? P::FCMP_ULT : P::FCMP_OLT;
    break;
  }
  return b.CreateFCmp(p, x, y);
}

// hmax / hmin (Mode::Nan: hmax_nan / hmin_nan), on the bits: the greater (lesser) operand, +0
// above -0; a NaN operand gives the other (both NaN, or any NaN with Mode::Nan: the canonical
// NaN).
llvm::Value *max_min(llvm::IRBuilderBase &b, bool is_max, Mode mode, llvm::Value *x,
                     llvm::Value *y) {
  llvm::Value *fx = bfloat16_to_float(b, x), *fy = bfloat16_to_float(b, y);
  llvm::Value *x_first = is_max ? b.CreateFCmpOGT(fx, fy) : b.CreateFCmpOLT(fx, fy);
  llvm::Value *y_first = is_max ? b.CreateFCmpOGT(fy, fx) : b.CreateFCmpOLT(fy, fx);
  // equal: the same bits, or zeros of two signs (AND keeps +0, OR gives -0)
  llvm::Value *equal = is_max ? b.CreateAnd(x, y) : b.CreateOr(x, y);
  llvm::Value *ordered = b.CreateSelect(x_first, x, b.CreateSelect(y_first, y, equal));
  llvm::Value *x_nan = b.CreateFCmpUNO(fx, fx), *y_nan = b.CreateFCmpUNO(fy, fy);
  llvm::Value *nan = b.getInt16(kCanonicalNan);
  if (mode == Mode::Nan)
    return b.CreateSelect(b.CreateOr(x_nan, y_nan), nan, ordered);
  return b.CreateSelect(x_nan, b.CreateSelect(y_nan, nan, y), b.CreateSelect(y_nan, x, ordered));
}

// A math function of float32 on a bfloat16, rounded back to nearest even.
llvm::Value *math(Emitter &e, Target &target, ir::Bf16Op op, llvm::Value *x) {
  llvm::IRBuilderBase &b = e.b;
  llvm::Value *f = bfloat16_to_float(b, x);
  llvm::Constant *one = llvm::ConstantFP::get(b.getFloatTy(), 1.0);
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return b.CreateUnaryIntrinsic(id, f); };
  auto library = [&](ir::Intrinsic fn, std::vector<llvm::Value *> args) {
    return target.math(e, fn, args, Scalar::F32);
  };
  llvm::Value *r = nullptr;
  switch (op) {
  case ir::Bf16Op::Trunc:
    r = intrinsic(llvm::Intrinsic::trunc);
    break;
  case ir::Bf16Op::Ceil:
    r = intrinsic(llvm::Intrinsic::ceil);
    break;
  case ir::Bf16Op::Floor:
    r = intrinsic(llvm::Intrinsic::floor);
    break;
  case ir::Bf16Op::Rint:
    r = intrinsic(llvm::Intrinsic::roundeven);
    break;
  case ir::Bf16Op::Sqrt: // correctly rounded in float32, so once rounded to bfloat16
    r = intrinsic(llvm::Intrinsic::sqrt);
    break;
  case ir::Bf16Op::Rsqrt:
    r = b.CreateFDiv(one, intrinsic(llvm::Intrinsic::sqrt));
    break;
  case ir::Bf16Op::Rcp:
    r = b.CreateFDiv(one, f);
    break;
  case ir::Bf16Op::Log:
    r = library(ir::Intrinsic::Log, {f});
    break;
  case ir::Bf16Op::Log2:
    r = library(ir::Intrinsic::Log2, {f});
    break;
  case ir::Bf16Op::Log10:
    r = library(ir::Intrinsic::Log10, {f});
    break;
  case ir::Bf16Op::Cos:
    r = library(ir::Intrinsic::Cos, {f});
    break;
  case ir::Bf16Op::Sin:
    r = library(ir::Intrinsic::Sin, {f});
    break;
  case ir::Bf16Op::Tanh:
    r = library(ir::Intrinsic::Tanh, {f});
    break;
  case ir::Bf16Op::Exp:
    r = library(ir::Intrinsic::Exp, {f});
    break;
  case ir::Bf16Op::Exp2:
    r = library(ir::Intrinsic::Exp2, {f});
    break;
  case ir::Bf16Op::Exp10:
    r = library(ir::Intrinsic::Pow, {llvm::ConstantFP::get(b.getFloatTy(), 10.0), f});
    break;
  default:
    throw std::logic_error("simt: bad bfloat16 math function");
  }
  return round_result(e, target, r);
}

} // namespace

llvm::Value *bfloat16_to_float(llvm::IRBuilderBase &b, llvm::Value *bits) {
  return b.CreateBitCast(b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
}

llvm::Value *convert_to_bfloat16(Emitter &e, Target &target, llvm::Value *value, Scalar from,
                                 ir::Bf16Mode mode) {
  llvm::IRBuilderBase &b = e.b;
  switch (from) {
  case Scalar::BF16:
    return value;
  case Scalar::F32:
    return round_float(e, target, value, mode);
  case Scalar::F16: // exact in float32
    return round_float(e, target, b.CreateFPExt(value, b.getFloatTy()), mode);
  case Scalar::F64: // rounded to odd first, so rounded once
    return round_float(e, target, double_to_float_odd(b, value), mode);
  default:
    if (is_complex(from))
      throw std::logic_error("simt: a complex converted to bfloat16");
    return round_float(e, target, integer_to_float_odd(b, value, is_signed(from)), mode);
  }
}

llvm::Value *convert_from_bfloat16(llvm::IRBuilderBase &b, llvm::Value *bits, Scalar to,
                                   ir::Bf16Mode mode) {
  switch (to) {
  case Scalar::BF16:
    return bits;
  case Scalar::Bool:
    return b.CreateICmpNE(b.CreateAnd(bits, b.getInt16(0x7fff)), b.getInt16(0));
  case Scalar::F32:
    return bfloat16_to_float(b, bits);
  case Scalar::F64:
    return b.CreateFPExt(bfloat16_to_float(b, bits), b.getDoubleTy());
  case Scalar::F16: // the float32 rounded once to half
    return b.CreateFPTrunc(bfloat16_to_float(b, bits), b.getHalfTy());
  default:
    break;
  }
  if (is_complex(to))
    throw std::logic_error("simt: bfloat16 converted to a complex number directly");
  llvm::Value *f = bfloat16_to_float(b, bits);
  llvm::Value *whole = b.CreateUnaryIntrinsic(integral_rounding(mode), f);
  llvm::Type *t = b.getIntNTy(bit_width(to));
  llvm::Value *result =
      b.CreateIntrinsic(is_signed(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                        {t, whole->getType()}, {whole});
  if (bit_width(to) == 64) // NaN: 0x8000000000000000, as CUDA's 64-bit conversions give
    result = b.CreateSelect(b.CreateFCmpUNO(f, f), b.getInt64(uint64_t(1) << 63), result);
  return result;
}

llvm::Value *bfloat16_binary(Emitter &e, Target &target, ir::Op op, llvm::Value *x,
                             llvm::Value *y) {
  ir::Bf16Op fn;
  switch (op) {
  case ir::Op::Add:
    fn = ir::Bf16Op::Add;
    break;
  case ir::Op::Sub:
    fn = ir::Bf16Op::Sub;
    break;
  case ir::Op::Mul:
    fn = ir::Bf16Op::Mul;
    break;
  case ir::Op::TrueDiv:
    fn = ir::Bf16Op::Div;
    break;
  default:
    throw std::logic_error("simt: bad bfloat16 operator");
  }
  llvm::IRBuilderBase &b = e.b;
  return round_result(e, target,
                      float_arithmetic(b, fn, bfloat16_to_float(b, x), bfloat16_to_float(b, y)));
}

llvm::Value *bfloat16_function(Emitter &e, Target &target, ir::Bf16Fn fn,
                               const std::vector<llvm::Value *> &args) {
  llvm::IRBuilderBase &b = e.b;
  const ir::Bf16Info &info = ir::bf16_info(fn);
  auto wide = [&](size_t i) { return bfloat16_to_float(b, args[i]); };
  switch (info.op) {
  case ir::Bf16Op::Add:
  case ir::Bf16Op::Sub:
  case ir::Bf16Op::Mul:
  case ir::Bf16Op::Div: {
    llvm::Value *r = float_arithmetic(b, info.op, wide(0), wide(1));
    if (info.mode == Mode::Sat) // clamped after rounding (see fused_multiply_add)
      r = saturate(b, bfloat16_to_float(b, round_result(e, target, r)), info.mode);
    return round_result(e, target, r);
  }
  case ir::Bf16Op::Fma:
    return fused_multiply_add(e, target, args[0], args[1], args[2], info.mode);
  // abs.bf16 and neg.bf16 only touch the sign bit
  case ir::Bf16Op::Abs:
    return b.CreateAnd(args[0], b.getInt16(0x7fff));
  case ir::Bf16Op::Neg:
    return b.CreateXor(args[0], b.getInt16(int16_t(0x8000)));
  case ir::Bf16Op::Eq:
  case ir::Bf16Op::Ne:
  case ir::Bf16Op::Ge:
  case ir::Bf16Op::Gt:
  case ir::Bf16Op::Le:
  case ir::Bf16Op::Lt:
    return compare(b, info.op, info.mode, wide(0), wide(1));
  case ir::Bf16Op::Max:
  case ir::Bf16Op::Min:
    return max_min(b, info.op == ir::Bf16Op::Max, info.mode, args[0], args[1]);
  case ir::Bf16Op::IsNan:
    return b.CreateFCmpUNO(wide(0), wide(0));
  case ir::Bf16Op::IsInf: { // 1 for +inf, -1 for -inf, else 0
    llvm::Value *bits = args[0];
    llvm::Value *plus = b.CreateICmpEQ(bits, b.getInt16(0x7f80));
    llvm::Value *minus = b.CreateICmpEQ(bits, b.getInt16(int16_t(0xff80)));
    return b.CreateSelect(plus, b.getInt32(1),
                          b.CreateSelect(minus, b.getInt32(-1), b.getInt32(0)));
  }
  case ir::Bf16Op::Convert:
    if (info.result == Scalar::BF16)
      return convert_to_bfloat16(e, target, args[0], info.param, info.mode);
    return convert_from_bfloat16(b, args[0], info.result, info.mode);
  case ir::Bf16Op::Bits: // i16 either way
    return args[0];
  default:
    return math(e, target, info.op, args[0]);
  }
}

} // namespace simt::codegen
