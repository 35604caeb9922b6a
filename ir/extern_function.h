// A device function defined outside Python, as the typed IR calls it (ir::Module::externs) and
// the resolver describes it: its own header, so that the IR needs nothing of the resolver.
#pragma once

#include "ir/types.h"

#include <string>
#include <vector>

namespace simt {

// A device function defined outside Python (cuda.declare_device(name, sig)), linked in from
// CUDA C/C++ or PTX (@cuda.jit(link=[...])). Called with Numba's ABI for foreign functions:
// `int name(return_type *result, params...)`.
struct ExternFunction {
  std::string name;
  Type return_type;
  std::vector<Type> params;
};

} // namespace simt
