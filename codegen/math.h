// Math functions (intrinsics with the kMath flag): which LLVM itself knows, and the libdevice
// function each one is, for every Target.
#pragma once

#include "ir/intrinsics.h"
#include "ir/libdevice.h"

#include <llvm/IR/Intrinsics.h>

namespace simt::codegen {

// The LLVM intrinsic computing math function `fn`, or not_intrinsic (a library call).
llvm::Intrinsic::ID llvm_math_intrinsic(ir::Intrinsic fn);

// Whether `fn` is an exactly rounded operation (IEEE: sqrt, fabs, floor, ceil, trunc, rint,
// copysign, nextafter), computed in float32 for float32 as is, and by the GPU's own instructions
// where LLVM has one (llvm_math_intrinsic; nextafter: libdevice's). (The
// simulator evaluates the other float32 functions in double and rounds once: correctly rounded
// in practice, and bit for bit what Numba's simulator, the differential tests' oracle, gives.)
bool exact_in_float32(ir::Intrinsic fn);

// The libdevice function computing math function `fn` on float type `type`; `fast`: the
// approximate float32 one (fast_sinf) where libdevice has one, as Numba's fastmath gives. Every
// target computes a math function as this libdevice function (save the exact operations LLVM
// has instructions for), so math.x, cuda.x and libdevice.x are one function on each target.
ir::Libdevice math_libdevice(ir::Intrinsic fn, Scalar type, bool fast = false);

} // namespace simt::codegen
