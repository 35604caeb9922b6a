#include "codegen/math.h"

namespace simt::codegen {

llvm::Intrinsic::ID llvm_math_intrinsic(ir::Intrinsic fn) {
  using I = ir::Intrinsic;
  switch (fn) {
  case I::Sqrt:
    return llvm::Intrinsic::sqrt;
  case I::Fabs:
    return llvm::Intrinsic::fabs;
  case I::Floor:
    return llvm::Intrinsic::floor;
  case I::Ceil:
    return llvm::Intrinsic::ceil;
  case I::Trunc:
    return llvm::Intrinsic::trunc;
  case I::Rint:
    return llvm::Intrinsic::rint;
  case I::Sin:
    return llvm::Intrinsic::sin;
  case I::Cos:
    return llvm::Intrinsic::cos;
  case I::Exp:
    return llvm::Intrinsic::exp;
  case I::Exp2:
    return llvm::Intrinsic::exp2;
  case I::Log:
    return llvm::Intrinsic::log;
  case I::Log2:
    return llvm::Intrinsic::log2;
  case I::Log10:
    return llvm::Intrinsic::log10;
  case I::Pow:
    return llvm::Intrinsic::pow;
  case I::Copysign:
    return llvm::Intrinsic::copysign;
  default:
    return llvm::Intrinsic::not_intrinsic;
  }
}

bool exact_in_float32(ir::Intrinsic fn) {
  using I = ir::Intrinsic;
  return fn == I::Sqrt || fn == I::Fabs || fn == I::Floor || fn == I::Ceil || fn == I::Trunc ||
         fn == I::Rint || fn == I::Copysign || fn == I::Nextafter;
}

} // namespace simt::codegen
