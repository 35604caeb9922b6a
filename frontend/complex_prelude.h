// The operations Numba implements in Python (complex numbers: numba/cpython/cmathimpl.py, the
// division of numba/cpython/numbers.py and the CUDA power of numba/cuda/mathimpl.py; round(x,
// ndigits): numba/cuda/cudaimpl.py), kept as
// Python source that the frontend compiles as device functions, so that their typing (float32
// parts widening to float64 where Numba's do) and results match Numba's.
#pragma once

#include "frontend/resolver.h"

#include <memory>
#include <string>

namespace simt {

// cmath functions of one complex argument (cmathdecl's CMath_unary); each has a prelude function
// of its name (sqrt also takes its threshold, see the source).
bool is_cmath_unary(const std::string &name);
// Every cmath function a kernel may call: the unary ones, log (of 1 or 2 arguments), phase, polar,
// rect, isnan, isinf, isfinite.
bool is_cmath_function(const std::string &name);

// The prelude function `name` (a cmath function name, "log_base", "cdiv", "cpow" or
// "round_ndigits"), or null.
std::shared_ptr<FunctionSource> complex_prelude_function(const std::string &name);

} // namespace simt
