// The frontend's entry points: Python source (+ argument types) -> typed IR.
#pragma once

#include "frontend/resolver.h"
#include "ir/compile_error.h"
#include "ir/ir.h"
#include "ir/types.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace simt {

// Compiles `kernel` for the argument types `arg_types` into a module whose functions[0] is the
// kernel (returning None) followed by every device function it reaches, specialised per call
// signature. Throws CompileError.
ir::Module compile_kernel(const FunctionSource &kernel, const std::vector<Type> &arg_types,
                          const CompileOptions &options = {});

// Compiles a device function on its own (cuda.compile_ptx(device=True)): as compile_kernel, but
// functions[0] is the device function, returning the type its typing infers.
ir::Module compile_device_function(const FunctionSource &function,
                                   const std::vector<Type> &arg_types,
                                   const CompileOptions &options = {});

// Parses a signature as Numba writes it: "void(float32[:], int32)", "(float32[:, ::1],)",
// "float64(float64, float64)", and Numba type reprs ("array(float32, 2d, C)"). Returns the
// argument types; `return_type` gets the return type (None when absent or void).
// Throws std::invalid_argument with a message naming the bad part.
std::vector<Type> parse_signature(const std::string &signature, Type *return_type = nullptr);

} // namespace simt
