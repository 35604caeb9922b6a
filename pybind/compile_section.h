// A compile made safe against what other threads do meanwhile. A compile is a CompileScope (the
// whole of it: the frontend holds the GIL and calls into Python to resolve names) around a
// CompileSection (the backend: LLVM and the JIT, without the GIL).
// - fork(): a child forked in the middle of a CompileSection would inherit its locks held (the
//   JIT's mutex, LLVM's, a function-local static's initialisation guard) with no thread to
//   release them, and hang at its first compile. fork() (pthread_atfork) waits until no section
//   runs and keeps new ones from starting until it is done. The frontend holds the GIL, which
//   Python's os.fork() needs, so it cannot be forked across.
// - interpreter exit: Python ends a daemon thread that wants the GIL back once finalizing began
//   by unwinding it (pthread_exit) through simt's frames, whose destructors then release Python
//   objects without the GIL while the main thread collects garbage (a crash). So exit waits for
//   the compiles running (wait_for_compiles_at_exit, the GIL released), and a daemon thread whose
//   compile starts or ends after that parks without the GIL until the process ends, as launches
//   do (sim/launch_state.h).
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>

namespace simt::bindings {

// Made with the GIL held, around everything a compile does in C++ (scopes may nest).
class CompileScope {
public:
  CompileScope();  // parks if the process is exiting; else counts itself as running
  ~CompileScope(); // uncounts itself, then parks if the process is exiting
  CompileScope(const CompileScope &) = delete;
  CompileScope &operator=(const CompileScope &) = delete;
};

// The GIL-free part of a compile, inside a CompileScope.
class CompileSection {
public:
  CompileSection();  // releases the GIL, then counts itself as running (for fork)
  ~CompileSection(); // uncounts itself, then takes the GIL back
  CompileSection(const CompileSection &) = delete;
  CompileSection &operator=(const CompileSection &) = delete;

private:
  pybind11::gil_scoped_release release_;
};

// At interpreter exit (after sim::stop_launches_at_exit, so that compiles ending park), the GIL
// released: waits for the running compiles to end, as LLVM's code generation cannot be stopped
// and must not run on while static destructors tear LLVM down; past `patience`, says so and ends
// the process.
void wait_for_compiles_at_exit(std::chrono::milliseconds patience);

} // namespace simt::bindings
