// simt::GlobalValue (frontend/resolver.h) as the Python class simt._simt.GlobalValue: what a
// kernel's global or closure name is. simt/compiler/resolver.py builds one per name with the
// constructor of its kind (GlobalValue.integer("int64", 3), GlobalValue.member("math", "sqrt")),
// and the frontend's Resolver (pybind/py_resolver.h) hands it over as it is.
#pragma once

#include <pybind11/pybind11.h>

namespace simt::bindings {

void bind_global_value(pybind11::module_ &m);

} // namespace simt::bindings
