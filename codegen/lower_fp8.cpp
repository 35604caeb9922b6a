#include "codegen/lower_fp8.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>

namespace simt::codegen {

namespace {

llvm::Value *i64(llvm::IRBuilderBase &b, uint64_t v) { return b.getInt64(v); }

// x (double) rounded to nearest even into `format`'s code, the sign kept: the code from the
// exponent and the top significand bits for normal values (rounding may carry into the
// exponent), |x| scaled to units of the smallest subnormal and rounded for the others (which
// also flushes what is at most half of it to zero), then NaN and overflow, which saturates to
// the largest finite code where `satfinite`.
llvm::Value *double_to_fp8(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *satfinite,
                           const ir::Fp8Format &format) {
  const int m = format.mantissa_bits;
  const uint64_t shift = 52 - m, half = uint64_t{1} << (shift - 1);
  llvm::Value *bits = b.CreateBitCast(x, b.getInt64Ty());
  llvm::Value *abs = b.CreateAnd(bits, i64(b, ~(uint64_t{1} << 63)));
  llvm::Value *sign = b.CreateAnd(b.CreateTrunc(b.CreateLShr(bits, 56), b.getInt8Ty()), 0x80);

  llvm::Value *head = b.CreateLShr(abs, shift); // biased double exponent, then m bits
  llvm::Value *rest = b.CreateAnd(abs, i64(b, (uint64_t{1} << shift) - 1));
  llvm::Value *tie_to_odd =
      b.CreateAnd(b.CreateICmpEQ(rest, i64(b, half)), b.CreateTrunc(head, b.getInt1Ty()));
  llvm::Value *up = b.CreateOr(b.CreateICmpUGT(rest, i64(b, half)), tie_to_odd);
  llvm::Value *normal = b.CreateSub(b.CreateAdd(head, b.CreateZExt(up, b.getInt64Ty())),
                                    i64(b, uint64_t(1023 - format.bias) << m));

  llvm::Value *absx = b.CreateBitCast(abs, b.getDoubleTy());
  llvm::Value *units = b.CreateFMul(
      absx, llvm::ConstantFP::get(b.getDoubleTy(), std::ldexp(1.0, format.bias + m - 1)));
  // bounded so the conversion is defined where the normal path is taken
  units = b.CreateMinNum(units, llvm::ConstantFP::get(b.getDoubleTy(), std::ldexp(1.0, m + 1)));
  llvm::Value *rounded = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, units);
  llvm::Value *subnormal = b.CreateFPToUI(rounded, b.getInt64Ty());

  const uint64_t min_normal = uint64_t(1023 + 1 - format.bias) << 52;
  llvm::Value *code = b.CreateSelect(b.CreateICmpUGE(abs, i64(b, min_normal)), normal, subnormal);
  llvm::Value *overflow = b.CreateICmpUGT(code, i64(b, format.max_norm));
  llvm::Value *saturated =
      b.CreateSelect(satfinite, b.getInt8(format.max_norm), b.getInt8(format.overflow));
  llvm::Value *nan_code = b.getInt8(format.nan);
  if (format.nan_payload)
    nan_code = b.CreateOr(nan_code, b.CreateAnd(b.CreateTrunc(head, b.getInt8Ty()), (1 << m) - 1));
  llvm::Value *is_nan = b.CreateICmpUGT(abs, i64(b, 0x7FF0000000000000));
  llvm::Value *result = b.CreateSelect(
      is_nan, nan_code, b.CreateSelect(overflow, saturated, b.CreateTrunc(code, b.getInt8Ty())));
  return b.CreateOr(result, sign);
}

// cuda_fp8.h's __internal_double_to_float_with_sticky: x rounded to float toward zero, its last
// bit set where that was inexact, so rounding it once more rounds x once.
llvm::Value *double_to_float_with_sticky(llvm::IRBuilderBase &b, llvm::Value *x) {
  llvm::Value *f = b.CreateFPTrunc(x, b.getFloatTy());
  llvm::Value *d = b.CreateFPExt(f, b.getDoubleTy());
  llvm::Value *u = b.CreateBitCast(f, b.getInt32Ty());
  llvm::Value *zero = llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
  llvm::Value *rounded_away =
      b.CreateOr(b.CreateAnd(b.CreateFCmpOGT(x, zero), b.CreateFCmpOGT(d, x)),
                 b.CreateAnd(b.CreateFCmpOLT(x, zero), b.CreateFCmpOLT(d, x)));
  u = b.CreateSub(u, b.CreateZExt(rounded_away, b.getInt32Ty()));
  llvm::Value *not_nan = b.CreateICmpULE(b.CreateShl(u, 1), b.getInt32(0xFF000000));
  llvm::Value *inexact = b.CreateAnd(b.CreateFCmpUNE(d, x), not_nan);
  u = b.CreateSelect(inexact, b.CreateOr(u, 1), u);
  return b.CreateBitCast(u, b.getFloatTy());
}

// cuda_fp8.h's __nv_cvt_float_to_e8m0 (software path): x to bfloat16 toward zero, or |x| to
// bfloat16 upward, then its exponent field, rounded up once more where the bfloat16 is above
// 2^-127 and inexact; SATFINITE turns the NaN code an infinity or overflow gives into 2^127.
llvm::Value *float_to_e8m0(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *satfinite,
                           llvm::Value *toward_zero) {
  llvm::Value *ux = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value *abs = b.CreateAnd(ux, 0x7FFFFFFF);
  llvm::Value *is_nan = b.CreateICmpUGT(abs, b.getInt32(0x7F800000));
  llvm::Value *nan_bf16 = b.getInt32(0x7FFF);
  llvm::Value *rz = b.CreateSelect(is_nan, nan_bf16, b.CreateLShr(ux, 16));
  llvm::Value *abs_head = b.CreateLShr(abs, 16);
  llvm::Value *ru_inexact = b.CreateAnd(b.CreateICmpULT(abs, b.getInt32(0x7F800000)),
                                        b.CreateICmpNE(b.CreateAnd(abs, 0xFFFF), b.getInt32(0)));
  llvm::Value *ru = b.CreateSelect(
      is_nan, nan_bf16, b.CreateSelect(ru_inexact, b.CreateAdd(abs_head, b.getInt32(1)), abs_head));
  llvm::Value *bf = b.CreateSelect(toward_zero, rz, ru);
  llvm::Value *res = b.CreateTrunc(b.CreateLShr(bf, 7), b.getInt8Ty());
  llvm::Value *bf_abs = b.CreateAnd(bf, 0x7FFF);
  llvm::Value *round_up = b.CreateAnd(
      b.CreateAnd(b.CreateICmpNE(b.CreateAnd(bf, 0x7F), b.getInt32(0)),
                  b.CreateICmpUGT(bf_abs, b.getInt32(0x40))),
      b.CreateAnd(b.CreateICmpULT(bf_abs, b.getInt32(0x7F80)), b.CreateNot(toward_zero)));
  res = b.CreateAdd(res, b.CreateZExt(round_up, b.getInt8Ty()));
  llvm::Value *clamp =
      b.CreateAnd(satfinite, b.CreateAnd(b.CreateICmpULE(bf_abs, b.getInt32(0x7F80)),
                                         b.CreateICmpEQ(res, b.getInt8(0xFF))));
  return b.CreateSelect(clamp, b.getInt8(0xFE), res);
}

// One value (float or double, or a bfloat16_raw's i16 bits) converted as `info` says.
llvm::Value *convert_one(llvm::IRBuilderBase &b, const ir::Fp8Info &info, llvm::Value *x,
                         llvm::Value *satfinite, llvm::Value *mode) {
  if (info.param == Scalar::BF16) // a bfloat16_raw: exactly the float of its bits
    x = b.CreateBitCast(b.CreateShl(b.CreateZExt(x, b.getInt32Ty()), 16), b.getFloatTy());
  if (info.target == ir::Fp8Target::E8m0) {
    if (info.param == Scalar::F64)
      x = double_to_float_with_sticky(b, x);
    llvm::Value *toward_zero = b.CreateICmpEQ(mode, b.getInt32(ir::kRoundZero));
    return float_to_e8m0(b, x, satfinite, toward_zero);
  }
  if (info.param != Scalar::F64) { // float widens exactly; a NaN first becomes 0x7FFFFFFF
    llvm::Value *is_nan = b.CreateFCmpUNO(x, x);
    llvm::Value *canonical = llvm::ConstantFP::get(
        b.getContext(), llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, 0x7FFFFFFF)));
    x = b.CreateFPExt(b.CreateSelect(is_nan, canonical, x), b.getDoubleTy());
  }
  // fp8_interpretation_t: E4M3 (0), anything else E5M2, as cuda_fp8.h tests it
  llvm::Value *e4m3 = b.CreateICmpEQ(mode, b.getInt32(0));
  return b.CreateSelect(e4m3, double_to_fp8(b, x, satfinite, ir::fp8_format(0)),
                        double_to_fp8(b, x, satfinite, ir::fp8_format(1)));
}

// cuda_fp8.h's __nv_cvt_e8m0_to_bf16raw: 2^(code - 127) as bfloat16 bits (i16); code 0 is the
// subnormal 2^-127, 0xFF the canonical NaN.
llvm::Value *e8m0_to_bfloat16_bits(llvm::IRBuilderBase &b, llvm::Value *code) {
  llvm::Value *shifted = b.CreateShl(b.CreateZExt(code, b.getInt16Ty()), 7);
  return b.CreateSelect(
      b.CreateICmpEQ(code, b.getInt8(0xFF)), b.getInt16(0x7FFF),
      b.CreateSelect(b.CreateICmpEQ(code, b.getInt8(0)), b.getInt16(0x0040), shifted));
}

// An integer's E8M0 code rounded up, as cuda_fp8.h's constructors compute it (through a float,
// a double or a bfloat16 nudged up, each exact here): 2^ceil(log2 |n|), 0 for 0.
llvm::Value *integer_to_e8m0(llvm::IRBuilderBase &b, llvm::Value *n, bool is_signed) {
  llvm::Value *magnitude = n;
  if (is_signed) // |INT64_MIN| is 2^63 as unsigned
    magnitude = b.CreateSelect(b.CreateICmpSLT(n, b.getInt64(0)), b.CreateNeg(n), n);
  llvm::Value *bits_below = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::ctlz, b.CreateSub(magnitude, b.getInt64(1)), b.getFalse());
  llvm::Value *log2_up = b.CreateSub(b.getInt64(64), bits_below);
  llvm::Value *code = b.CreateTrunc(b.CreateAdd(log2_up, b.getInt64(127)), b.getInt8Ty());
  return b.CreateSelect(b.CreateICmpEQ(n, b.getInt64(0)), b.getInt8(0), code);
}

// One number (float, double, or for E8M0 an int64 / uint64) as a value type's constructor
// converts it: SATFINITE, E8M0 rounded up.
llvm::Value *encode_one(llvm::IRBuilderBase &b, ir::Fp8Encoding encoding, Scalar from,
                        llvm::Value *x) {
  if (encoding == ir::Fp8Encoding::E8M0 && is_integer(from))
    return integer_to_e8m0(b, x, is_signed(from));
  const bool e8m0 = encoding == ir::Fp8Encoding::E8M0;
  const ir::Fp8Info info{"", from, 1, e8m0 ? ir::Fp8Target::E8m0 : ir::Fp8Target::Fp8};
  llvm::Value *mode = b.getInt32(e8m0 ? ir::kRoundPosInf : int(encoding));
  return convert_one(b, info, x, b.getTrue(), mode);
}

llvm::Value *float_of_bits(llvm::IRBuilderBase &b, uint32_t bits) {
  return llvm::ConstantFP::get(b.getContext(),
                               llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits)));
}

// A code's value as float, exactly (cuda_fp8.h's operator float: a NaN is 0x7FFFFFFF, E8M0's
// 0x7FFF0000).
llvm::Value *decode_one(llvm::IRBuilderBase &b, ir::Fp8Encoding encoding, llvm::Value *code) {
  if (encoding == ir::Fp8Encoding::E8M0) {
    llvm::Value *bits = b.CreateZExt(e8m0_to_bfloat16_bits(b, code), b.getInt32Ty());
    return b.CreateBitCast(b.CreateShl(bits, 16), b.getFloatTy());
  }
  const ir::Fp8Format &format = ir::fp8_format(int(encoding));
  const int m = format.mantissa_bits;
  llvm::Value *c = b.CreateZExt(code, b.getInt32Ty());
  llvm::Value *abs = b.CreateAnd(c, 0x7F);
  llvm::Value *exponent = b.CreateLShr(abs, m);
  llvm::Value *mantissa = b.CreateAnd(abs, (1 << m) - 1);
  llvm::Value *normal =
      b.CreateOr(b.CreateShl(b.CreateAdd(exponent, b.getInt32(127 - format.bias)), 23),
                 b.CreateShl(mantissa, 23 - m));
  llvm::Value *subnormal = b.CreateBitCast(
      b.CreateFMul(b.CreateUIToFP(mantissa, b.getFloatTy()),
                   llvm::ConstantFP::get(b.getFloatTy(), std::ldexp(1.0, 1 - format.bias - m))),
      b.getInt32Ty());
  llvm::Value *bits = b.CreateSelect(b.CreateICmpEQ(exponent, b.getInt32(0)), subnormal, normal);
  llvm::Value *value =
      b.CreateBitCast(b.CreateOr(bits, b.CreateShl(b.CreateAnd(c, 0x80), 24)), b.getFloatTy());
  const bool has_infinity = format.overflow != format.nan; // E5M2: an overflow is infinite
  if (has_infinity) {
    llvm::Value *inf = b.CreateSelect(b.CreateICmpEQ(abs, c), float_of_bits(b, 0x7F800000),
                                      float_of_bits(b, 0xFF800000));
    value = b.CreateSelect(b.CreateICmpEQ(abs, b.getInt32(format.overflow)), inf, value);
  }
  llvm::Value *is_nan = b.CreateICmpUGT(abs, b.getInt32(format.max_norm + has_infinity));
  return b.CreateSelect(is_nan, float_of_bits(b, 0x7FFFFFFF), value);
}

} // namespace

llvm::Value *fp8_function(llvm::IRBuilderBase &b, ir::Fp8Fn fn,
                          const std::vector<llvm::Value *> &args) {
  const ir::Fp8Info &info = ir::fp8_info(fn);
  if (info.target == ir::Fp8Target::Bf16Raw)
    return e8m0_to_bfloat16_bits(b, args.at(0));
  llvm::Value *satfinite = b.CreateICmpEQ(args.at(1), b.getInt32(ir::kFp8SatFinite));
  if (info.lanes == 1)
    return convert_one(b, info, args.at(0), satfinite, args.at(2));
  // a 2-vector (a struct of its elements): .x's code in the low byte, .y's in the high one
  llvm::Value *low = convert_one(b, info, b.CreateExtractValue(args.at(0), 0), satfinite, args[2]);
  llvm::Value *high = convert_one(b, info, b.CreateExtractValue(args.at(0), 1), satfinite, args[2]);
  return b.CreateOr(b.CreateShl(b.CreateZExt(high, b.getInt16Ty()), 8),
                    b.CreateZExt(low, b.getInt16Ty()));
}

llvm::Value *fp8_value(llvm::IRBuilderBase &b, ir::Fp8Type type, const Type &from, const Type &to,
                       llvm::Value *x) {
  const ir::Fp8TypeInfo &info = ir::fp8_type_info(type);
  if (!from.is_storage()) { // a constructor: lane i's code in byte i
    if (info.lanes == 1)
      return encode_one(b, info.encoding, from.scalar, x);
    llvm::Type *storage = b.getIntNTy(8 * info.lanes);
    llvm::Value *codes = llvm::ConstantInt::get(storage, 0);
    for (int lane = 0; lane < info.lanes; ++lane) {
      llvm::Value *code = encode_one(b, info.encoding, from.scalar, b.CreateExtractValue(x, lane));
      codes = b.CreateOr(codes, b.CreateShl(b.CreateZExt(code, storage), 8 * lane));
    }
    return codes;
  }
  llvm::Value *value = decode_one(b, info.encoding, x);
  if (to.scalar == Scalar::F32)
    return value;
  // int64 / uint64: toward zero, saturating; NaN 0x8000000000000000 (CUDA's __half2ll_rz)
  llvm::Value *integer = b.CreateIntrinsic(to.scalar == Scalar::I64 ? llvm::Intrinsic::fptosi_sat
                                                                    : llvm::Intrinsic::fptoui_sat,
                                           {b.getInt64Ty(), b.getFloatTy()}, {value});
  return b.CreateSelect(b.CreateFCmpUNO(value, value), b.getInt64(uint64_t{1} << 63), integer);
}

} // namespace simt::codegen
