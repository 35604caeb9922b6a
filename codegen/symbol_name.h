// The names simt gives LLVM for functions and globals, made from Python's names. Every backend
// names symbols through symbol_name(): LLVM's NVPTX backend aborts the process on a name PTX
// cannot spell ("Symbol name with unsupported characters"), and Python allows Unicode
// identifiers (`def kñ`), `<lambda>`, and any string as a function's __name__.
#pragma once

#include <string>
#include <string_view>

namespace simt::codegen {

// Whether `name` is a PTX identifier: [a-zA-Z][a-zA-Z0-9_$]*, or [_$][a-zA-Z0-9_$]+.
bool is_symbol_name(std::string_view name);

// `name` itself when it is a PTX identifier (so names simt gave before stay as they were);
// otherwise `name` with each byte other than [a-zA-Z0-9_] (a leading digit, and `_` alone, too)
// written as '$' and two lowercase hex digits: `<lambda>` is `$3clambda$3e`, `kñ` `k$c3$b1`,
// `_` `$5f` (the empty name `$_`). A name written so always contains '$', which no Python
// identifier does, and '$' always starts an escape in it, so two Python names never share a
// symbol (Numba's `_3c` could: `_3clambda_3e` is a Python identifier too).
std::string symbol_name(std::string_view name);

} // namespace simt::codegen
