// numba-cuda's FP8 conversion intrinsics (ir/fp8.def) in LLVM IR, the same on every
// target: cuda_fp8.h's software conversions, branch-free, from the formats' table.
#pragma once

#include "ir/fp8.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace simt::codegen {

// numba.cuda._internal.cuda_fp8.<fn>(x, saturate, mode): x of the function's parameter type,
// saturate and mode int32; the result is the i8 code (i16 for two, or a bfloat16_raw's bits).
llvm::Value *fp8_function(llvm::IRBuilderBase &b, ir::Fp8Fn fn,
                          const std::vector<llvm::Value *> &args);

// The Fp8Value expression (ir.h): x of type `from` converted to `to`: decoded when `from` is the
// value type `type` (its codes as i8 / i16 / i32), else encoded into it.
llvm::Value *fp8_value(llvm::IRBuilderBase &b, ir::Fp8Type type, const Type &from, const Type &to,
                       llvm::Value *x);

} // namespace simt::codegen
