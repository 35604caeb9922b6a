#include "codegen/lower_complex.h"

#include <stdexcept>

namespace simt::codegen {

namespace {

llvm::Type *part_type(llvm::LLVMContext &ctx, Scalar s) {
  return component_of(s) == Scalar::F32 ? llvm::Type::getFloatTy(ctx)
                                        : llvm::Type::getDoubleTy(ctx);
}

} // namespace

llvm::StructType *complex_type(llvm::LLVMContext &ctx, Scalar s) {
  llvm::Type *part = part_type(ctx, s);
  return llvm::StructType::get(ctx, {part, part});
}

llvm::Value *make_complex(llvm::IRBuilderBase &b, llvm::Value *real, llvm::Value *imag) {
  llvm::Type *part = real->getType();
  llvm::Value *z = llvm::PoisonValue::get(llvm::StructType::get(b.getContext(), {part, part}));
  z = b.CreateInsertValue(z, real, {0});
  return b.CreateInsertValue(z, imag, {1});
}

llvm::Value *complex_real(llvm::IRBuilderBase &b, llvm::Value *z) {
  return b.CreateExtractValue(z, {0});
}

llvm::Value *complex_imag(llvm::IRBuilderBase &b, llvm::Value *z) {
  return b.CreateExtractValue(z, {1});
}

llvm::Constant *complex_constant(llvm::LLVMContext &ctx, Scalar s, double real, double imag) {
  llvm::Type *part = part_type(ctx, s);
  return llvm::ConstantStruct::get(
      complex_type(ctx, s), {llvm::ConstantFP::get(part, real), llvm::ConstantFP::get(part, imag)});
}

llvm::Value *complex_arithmetic(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *x, llvm::Value *y) {
  llvm::Value *a = complex_real(b, x), *bi = complex_imag(b, x);
  llvm::Value *c = complex_real(b, y), *d = complex_imag(b, y);
  switch (op) {
  case ir::Op::Add:
    return make_complex(b, b.CreateFAdd(a, c), b.CreateFAdd(bi, d));
  case ir::Op::Sub:
    return make_complex(b, b.CreateFSub(a, c), b.CreateFSub(bi, d));
  case ir::Op::Mul: {
    llvm::Value *ac = b.CreateFMul(a, c), *bd = b.CreateFMul(bi, d);
    llvm::Value *ad = b.CreateFMul(a, d), *bc = b.CreateFMul(bi, c);
    return make_complex(b, b.CreateFSub(ac, bd), b.CreateFAdd(ad, bc));
  }
  default:
    throw std::logic_error("simt: bad complex arithmetic operator");
  }
}

llvm::Value *complex_unary(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *z) {
  if (op == ir::Op::Pos)
    return z;
  if (op != ir::Op::Neg)
    throw std::logic_error("simt: bad complex unary operator");
  return make_complex(b, b.CreateFNeg(complex_real(b, z)), b.CreateFNeg(complex_imag(b, z)));
}

llvm::Value *complex_compare(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *x, llvm::Value *y) {
  llvm::Value *a = complex_real(b, x), *bi = complex_imag(b, x);
  llvm::Value *c = complex_real(b, y), *d = complex_imag(b, y);
  if (op == ir::Op::Eq)
    return b.CreateAnd(b.CreateFCmpOEQ(a, c), b.CreateFCmpOEQ(bi, d));
  if (op == ir::Op::Ne)
    return b.CreateOr(b.CreateFCmpUNE(a, c), b.CreateFCmpUNE(bi, d));
  throw std::logic_error("simt: bad complex comparison");
}

llvm::Value *complex_truth(llvm::IRBuilderBase &b, llvm::Value *z) {
  llvm::Value *re = complex_real(b, z), *im = complex_imag(b, z);
  llvm::Value *zero = llvm::ConstantFP::get(re->getType(), 0.0);
  return b.CreateOr(b.CreateFCmpUNE(re, zero), b.CreateFCmpUNE(im, zero));
}

llvm::Value *real_to_complex(llvm::IRBuilderBase &b, llvm::Value *real) {
  return make_complex(b, real, llvm::ConstantFP::get(real->getType(), 0.0));
}

llvm::Value *complex_to_complex(llvm::IRBuilderBase &b, llvm::Value *z, Scalar to) {
  llvm::Type *part = part_type(b.getContext(), to);
  return make_complex(b, b.CreateFPCast(complex_real(b, z), part),
                      b.CreateFPCast(complex_imag(b, z), part));
}

} // namespace simt::codegen
