// bfloat16 in LLVM IR. A bfloat16 value is its i16 bit pattern (numba-cuda's data model for
// it), float32's top half: it widens to float32 exactly with a shift, and an operation is
// computed in float32 (or, for hfma, double) and rounded back. Rounding to nearest even is done on
// the float's bits, except where the target converts natively (Target::native_bfloat16: the GPU
// from sm_80, cvt.rn.bf16.f32 and fma.rn.bf16 through LLVM's `bfloat`); the directed roundings of
// the conversion functions always are.
#pragma once

#include "codegen/target.h"
#include "ir/bf16.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace simt::codegen {

// The float32 a bfloat16 (i16) is.
llvm::Value *bfloat16_to_float(llvm::IRBuilderBase &b, llvm::Value *bits);

// Numeric conversions to and from bfloat16 (i16): from any real or integer scalar (or bool)
// `from`, rounded by `mode` (RN, RZ, RD or RU; a float64 only RN); to one, integers rounded by
// `mode` and saturating (NaN to 0, or to 0x8000000000000000 for 64 bits, as CUDA's
// __bfloat162ll_rz), floats exactly (float16 rounded to nearest), bool true unless zero.
llvm::Value *convert_to_bfloat16(Emitter &e, Target &target, llvm::Value *value, Scalar from,
                                 ir::Bf16Mode mode);
llvm::Value *convert_from_bfloat16(llvm::IRBuilderBase &b, llvm::Value *bits, Scalar to,
                                   ir::Bf16Mode mode);

// a op b of two bfloat16s, op one of Add, Sub, Mul, TrueDiv: rounded once to nearest even.
llvm::Value *bfloat16_binary(Emitter &e, Target &target, ir::Op op, llvm::Value *x, llvm::Value *y);

// numba.cuda.bf16.<fn>(args), the arguments of its parameter type.
llvm::Value *bfloat16_function(Emitter &e, Target &target, ir::Bf16Fn fn,
                               const std::vector<llvm::Value *> &args);

} // namespace simt::codegen
