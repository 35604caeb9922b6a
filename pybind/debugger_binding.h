// simt._simt.Debugger: the debugger's Controller (debugger/controller.h) for the REPL in
// python/simt/tools/debugger.py, and the launch hooks of a kernel launched under it.
#pragma once

#include "debugger/controller.h"
#include "sim/launch.h"

#include <pybind11/pybind11.h>

namespace simt::bindings {

class PyDebugger {
public:
  // `stopped(event)` returns the command to go on with ("continue", "step", "next", "finish" or
  // "kill"); event is (reason, thread index, loc, breakpoint or watchpoint number, message,
  // access kind ("load", "store", "atomic"), a stored value's bits). `condition(number,
  // thread index)` says whether breakpoint `number`'s condition holds.
  PyDebugger(pybind11::object stopped, pybind11::object condition);

  debugger::Controller controller;
  sim::LaunchHooks hooks();

private:
  sim::Observer *observers_[1];
  pybind11::object stopped_, condition_;
};

void bind_debugger(pybind11::module_ &m);

} // namespace simt::bindings
