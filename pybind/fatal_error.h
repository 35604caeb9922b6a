// LLVM's fatal errors in the Python module: without a handler LLVM aborts the process (SIGABRT,
// "LLVM ERROR: ..."). The handler installed here throws out of work that can recover (a Python
// exception: RuntimeError or MemoryError), and elsewhere says in one line that simt's LLVM
// failed and on what before the process ends (codegen/llvm_errors.h says which is which).
#pragma once

#include <pybind11/pybind11.h>

namespace simt::bindings {

// At the module's import: installs LLVM's fatal-error and bad-alloc handlers (once a process),
// and test hooks provoking LLVM fatal errors, _llvm_fatal_error_for_tests.
void install_fatal_error_handler(pybind11::module_ &m);

} // namespace simt::bindings
