// simt::CompileOptions (ir/compile_options.h) and sim::SimOptions (sim/sim_options.h) as the Python
// classes simt._simt.CompileOptions and SimOptions, which the dispatcher builds once per compile
// and passes to compile() (and the first to compile_ptx()).
#pragma once

#include <pybind11/pybind11.h>

namespace simt::bindings {

void bind_compile_options(pybind11::module_ &m);

} // namespace simt::bindings
