// simt._simt.Checker: `simt check`'s checkers (checker/checker.h) for python/simt/tools/check.py,
// which launches kernels under it and prints what it finds.
#pragma once

#include "checker/checker.h"

#include <pybind11/pybind11.h>

namespace simt::bindings {

void bind_checker(pybind11::module_ &m);

} // namespace simt::bindings
