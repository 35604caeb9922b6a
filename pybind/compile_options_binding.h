// simt::CompileOptions (frontend/compile_options.h) as the Python class simt._simt.CompileOptions,
// which the dispatcher builds once per compile and passes to compile() and compile_ptx().
#pragma once

#include <pybind11/pybind11.h>

namespace simt::bindings {

void bind_compile_options(pybind11::module_ &m);

} // namespace simt::bindings
