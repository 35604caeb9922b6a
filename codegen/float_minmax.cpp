#include "codegen/float_minmax.h"

namespace simt::codegen {

llvm::Value *gpu_float_min_max(llvm::IRBuilder<> &b, bool is_max, llvm::Value *x, llvm::Value *y) {
  llvm::Value *num =
      b.CreateBinaryIntrinsic(is_max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, x, y);
  // LLVM leaves maxnum(-0.0, +0.0) to the target (x86 gives the second operand). Equal operands
  // differ at most in their sign bit, so max is their bits ANDed (+0.0 wins), min ORed.
  llvm::Type *bits = b.getIntNTy(x->getType()->getScalarSizeInBits());
  llvm::Value *x_bits = b.CreateBitCast(x, bits);
  llvm::Value *y_bits = b.CreateBitCast(y, bits);
  llvm::Value *zeros = b.CreateBitCast(
      is_max ? b.CreateAnd(x_bits, y_bits) : b.CreateOr(x_bits, y_bits), x->getType());
  return b.CreateSelect(b.CreateFCmpOEQ(x, y), zeros, num);
}

} // namespace simt::codegen
