// Types as the Python side rebuilds them (simt/types.py), for signatures and the debugger.
#pragma once

#include "ir/types.h"

#include <pybind11/pybind11.h>

namespace simt::bindings {

// None, ("scalar", name), ("array", dtype, ndim, layout, readonly) (dtype a scalar name or a
// record), ("tuple", [types]) or ("record", [(name, scalar name, offset, shape)], size, aligned).
// Types that are no kernel argument (thread and grid groups, vectors) throw
// std::invalid_argument, unless `opaque` is set: then ("opaque", their name).
pybind11::object describe_type(const Type &type, bool opaque = false);

} // namespace simt::bindings
