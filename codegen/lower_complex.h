// Complex numbers in LLVM IR: a complex64/complex128 value is the struct {float, float} /
// {double, double} (real, imaginary), in registers as in memory (NumPy's layout). These lower
// the operations Numba lowers directly (numba/cpython/numbers.py); division, power and the cmath
// functions are the frontend's complex prelude.
#pragma once

#include "ir/ir.h"

#include <llvm/IR/IRBuilder.h>

namespace simt::codegen {

llvm::StructType *complex_type(llvm::LLVMContext &ctx, Scalar s);
llvm::Value *make_complex(llvm::IRBuilderBase &b, llvm::Value *real, llvm::Value *imag);
llvm::Value *complex_real(llvm::IRBuilderBase &b, llvm::Value *z);
llvm::Value *complex_imag(llvm::IRBuilderBase &b, llvm::Value *z);
llvm::Constant *complex_constant(llvm::LLVMContext &ctx, Scalar s, double real, double imag);

// Add, Sub, Mul ((a+bi)(c+di) = (ac-bd) + (ad+bc)i) on two complexes of one type.
llvm::Value *complex_arithmetic(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *x, llvm::Value *y);
// Neg and Pos.
llvm::Value *complex_unary(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *z);
// Eq (both parts ordered-equal) and Ne (either part unordered-unequal).
llvm::Value *complex_compare(llvm::IRBuilderBase &b, ir::Op op, llvm::Value *x, llvm::Value *y);
// Truthiness: either part non-zero (NaN counts as non-zero).
llvm::Value *complex_truth(llvm::IRBuilderBase &b, llvm::Value *z);
// A real number (already a float of the parts' type) as a complex with a zero imaginary part.
llvm::Value *real_to_complex(llvm::IRBuilderBase &b, llvm::Value *real);
// complex64 <-> complex128, part by part.
llvm::Value *complex_to_complex(llvm::IRBuilderBase &b, llvm::Value *z, Scalar to);

} // namespace simt::codegen
