// float16 in LLVM IR: LLVM's `half` (x86 converts it in software or with F16C). Numba's cuda.fp16
// functions lower to single PTX instructions rounding to nearest even; these compute the same
// results exactly.
#pragma once

#include "codegen/target.h"
#include "ir/intrinsics.h"

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace simt::codegen {

// A double rounded to half once (cvt.rn.f16.f64), without the __truncdfhf2 library call x86
// needs for a direct fptrunc: rounded to float by rounding to odd, which then rounds to half
// correctly since float has more than 11 + 2 bits.
llvm::Value *double_to_half(llvm::IRBuilderBase &b, llvm::Value *value);
// A double rounded to float by rounding to odd (an inexact result gets an odd last bit, of the
// neighbour towards the exact value): rounding that float again to any format of at most
// 24 - 2 significant bits (half, bfloat16), in any rounding mode, gives the result rounding the
// double once would. Beyond float's range it is infinite.
llvm::Value *double_to_float_odd(llvm::IRBuilderBase &b, llvm::Value *value);
// x * y + z of doubles whose product is exact, rounded to odd: it then rounds to any format of at
// most 53 - 2 significant bits as the exact result would.
llvm::Value *fma_to_odd(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y, llvm::Value *z);
// Numeric conversions from and to half (Numba's cvt.rn / cvt.rni): integers round to the nearest
// half, half rounds to the nearest integer (ties to even; saturating, NaN to 0).
llvm::Value *convert_to_half(llvm::IRBuilderBase &b, llvm::Value *value, bool from_signed);
llvm::Value *convert_from_half(llvm::IRBuilderBase &b, llvm::Value *value, llvm::Type *to,
                               bool to_signed);

// cuda.fp16.<name> (fp16.hadd, ...) on half operands, or null when `fn` is not one of them.
llvm::Value *fp16_intrinsic(llvm::IRBuilderBase &b, ir::Intrinsic fn,
                            const std::vector<llvm::Value *> &args);
// cuda.fp16's math functions (hsin, hexp10, hsqrt, ...): float32's through the target's math
// library, rounded to float16; nullptr for another intrinsic.
llvm::Value *fp16_math(Emitter &e, Target &target, ir::Intrinsic fn,
                       const std::vector<llvm::Value *> &args);

} // namespace simt::codegen
