// PTX that ptxas compiles wrongly, rewritten into PTX of the same meaning that it compiles right.
//
// 16-bit negation and absolute value: ptxas keeps a 16-bit value in a 32-bit register, sign-
// extended, and takes `neg.s16`/`abs.s16` of a sign-extended value to be sign-extended again,
// which is false for -32768: `neg.s16` then `cvt.s64.s16` of -32768 gives +32768 (SASS for
// sm_90 from CUDA 13.0's ptxas: PRMT 0x9910, IMAD.MOV -R, and no second sign extension; the H200
// run of 2026-11-28 showed it). LLVM's NVPTX backend emits both for Numba's wrapping int8/int16
// `-x` and `abs(x)`. Their unsigned forms (`sub.u16 d, 0, a`; a shift, xor and subtract for
// abs) are the same bits, and ptxas sign-extends their results again. docs/gpu.md has the SASS.
#pragma once

#include <string>

namespace simt::gpu {

std::string avoid_ptxas_miscompiles(const std::string &ptx);

} // namespace simt::gpu
