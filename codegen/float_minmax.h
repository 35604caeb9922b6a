// min/max of two floats as the GPU computes them (PTX min/max, libdevice fmin/fmax): a NaN
// operand gives the other one, and -0.0 orders below +0.0 whatever the operands' order.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace simt::codegen {

llvm::Value *gpu_float_min_max(llvm::IRBuilder<> &b, bool is_max, llvm::Value *x, llvm::Value *y);

} // namespace simt::codegen
