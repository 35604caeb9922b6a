// The cache of link= libraries (sim/object_cache.h's kLinkLibraries) for
// python/simt/compiler/linking.py.
#pragma once

#include <pybind11/pybind11.h>

namespace simt::bindings {

void bind_link_cache(pybind11::module_ &m);

} // namespace simt::bindings
