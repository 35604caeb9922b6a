// NumPy ufuncs as kernels call them (numba/cuda/ufuncs.py, numba/cuda/typing/npydecl.py): each
// one's loops, in NumPy's order, and the element operation each loop lowers to. One table: the
// typer (typer_ufunc.cpp) selects a loop and applies it to scalars or, element by element, to
// arrays written into an out array.
#pragma once

#include "frontend/operators.h"
#include "ir/types.h"

#include <optional>
#include <string>
#include <vector>

namespace simt {

// What a ufunc computes on one element of each operand (typer_ufunc.cpp lowers each).
enum class UfuncOp : uint8_t {
  Math,       // a math library function: `intrinsic` on floats, `cmath` on complexes
  Angle,      // deg2rad/rad2deg: the operand times `factor`
  Compare,    // `python_operator` (<, ==, ...): NumPy's lexicographic order on complexes
  Logical,    // logical_and/or/xor/not (`detail`: "and", "or", "xor", "not")
  MinMax,     // `detail`: maximum/minimum ("max", "min": NaN-propagating), fmax/fmin ("fmax",
              // "fmin": NaN-ignoring)
  Arithmetic, // `python_operator` on the loop's type (+, &, <<, ~, unary -...)
  Predicate,  // isnan, isinf, isfinite: false/false/true on integers
  Conjugate,  // conjugate: the operand on reals
};

struct UfuncLoop {
  std::vector<Scalar> inputs;
  Scalar output;
  std::string letters; // NumPy's spelling, "ff->f"
};

struct Ufunc {
  std::string name; // NumPy's name of the ufunc (aliases give theirs: bitwise_not -> invert)
  int nin;
  UfuncOp op;
  std::string detail; // Math: the intrinsic's name (intrinsics.def); Logical, MinMax, Predicate:
                      // the operation
  std::string cmath;  // Math: the complex prelude function ("" when complexes are unsupported)
  double factor = 0;  // Angle
  std::vector<UfuncLoop> loops;
  ast::Operator python_operator{}; // Compare, Arithmetic
};

// The ufunc `np.<name>` (aliases included), or null when simt does not know it as a ufunc.
const Ufunc *find_ufunc(const std::string &name);

// Numba's ufunc_find_matching_loop: the first loop every input casts to safely (any integer to any
// float or complex when the inputs mix integers and floats), whose output casts to the explicit
// output's dtype (`out`) with NumPy's same_kind rule.
std::optional<UfuncLoop> select_ufunc_loop(const Ufunc &u, const std::vector<Scalar> &inputs,
                                           std::optional<Scalar> out);

// NumPy's np.can_cast(from, to, "safe") and (same_kind) "same_kind" on the scalar types.
bool numpy_can_cast(Scalar from, Scalar to, bool same_kind = false);

} // namespace simt
