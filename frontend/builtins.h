// Declarative typing tables of the kernel language, transcribed from Numba's
// (numba/core/typing/builtins.py, numba/cuda/cudamath.py, numba/cuda/cudadecl.py).
#pragma once

#include "frontend/conversion.h"
#include "frontend/operators.h"
#include "ir/ir.h"

#include <optional>
#include <string>
#include <vector>

namespace simt {

// Binary operators (+, //, <<, ...): the chosen signature (operands are converted to its params),
// or nullopt when Numba has no case (e.g. float & int).
std::optional<Signature> binary_operator_signature(ast::Operator op, Scalar lhs, Scalar rhs);
// Unary -, +, ~, not.
std::optional<Signature> unary_operator_signature(ast::Operator op, Scalar operand);
// Comparisons: the common operand type in params (the result is bool).
std::optional<Signature> compare_signature(Scalar lhs, Scalar rhs);
// Python's integer operator `op` (a binary ir::Op) on `x` and `y`, with unbounded ints here up to
// 128 bits; nullopt where Python gives no int (true division, a division by zero, a negative
// shift or exponent) or the result needs more bits.
std::optional<__int128> python_int_binary(ir::Op op, __int128 x, __int128 y);

// numba-cuda's cache-hinted loads (cuda.ldca ldcg ldcs ldlu ldcv: array[i]) and stores
// (cuda.stcg stcs stwb stwt: array[i] = value). Cache policies are hints only (PTX ISA: they
// do not change the memory consistency model): both backends access the element plainly.
bool is_cache_hinted_load(const std::string &name);
bool is_cache_hinted_store(const std::string &name);

// Numba's reductions of an array: a method (a.sum()) or NumPy function (np.amax(a)) named
// `name`, as the method it is ("sum", "prod", "min", "max", "mean"); nullopt for other names.
std::optional<std::string> array_reduction_method(const std::string &name, bool numpy_function);

// A function of `math` (or the NumPy ufunc with the same meaning) lowered to an intrinsic.
struct MathFunction {
  std::string name; // Python name in its module
  std::optional<ir::Intrinsic> intrinsic;
  std::vector<Signature> cases;
  double factor = 0; // without an intrinsic (degrees, radians): the argument times this
};
const MathFunction *find_math_function(const std::string &module, const std::string &name);

// cuda.atomic.<name>(array, index, value...)
struct AtomicFunction {
  std::string name;
  ir::Op op;
  std::vector<Scalar> dtypes; // array dtypes Numba accepts
};
const AtomicFunction *find_atomic_function(const std::string &name);

// cuda.<name>(args) typed by a case list of Numba's cudadecl.py and lowered to the intrinsic of
// that name: popc, brev, clz, ffs, fma, cbrt, syncthreads_count/and/or, fp16.hadd, ...
struct CudaFunction {
  ir::Intrinsic intrinsic;
  std::vector<Signature> cases;
};
const CudaFunction *find_cuda_function(const std::string &name);
// Any other cuda.<name> a kernel may name (typer_cuda.cpp types the calls): the table above,
// selp, the fences, nanosleep, the warp intrinsics, cg.this_thread_block, cg.this_grid.
bool is_cuda_intrinsic(const std::string &name);
// The warp intrinsics (typer_warp.cpp): shfl_sync, shfl_up/down/xor_sync, all/any/eq/ballot_sync,
// match_any/all_sync, syncwarp, activemask, lanemask_lt.
std::optional<ir::Intrinsic> find_warp_intrinsic(const std::string &name);
// CUDA's vector types as cuda.<name> spells them (stubs.py's _vector_type_stubs): float32x3,
// uint8x4, ... and the C aliases float3, uchar4, longlong2, ... Sets the element type and count.
bool parse_vector_type_name(const std::string &name, Scalar &base, int &count);
// Kernel-side names of Numba's cuda module that simt does not implement yet (float16, vector
// types): naming one is a "not supported yet" error, not an unknown name.
bool is_unsupported_cuda_name(const std::string &name);

// Python's builtin exception classes a kernel may raise.
bool is_builtin_exception(const std::string &name);
// Python builtins the frontend implements (when the Resolver does not shadow them).
bool is_builtin_function(const std::string &name);

} // namespace simt
