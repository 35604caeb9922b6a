// The part of a compile that runs without the GIL (the backend: LLVM and the JIT), made safe
// against what other threads do meanwhile:
// - fork(): a child forked in the middle of that part would inherit its locks held (the JIT's
//   mutex, LLVM's, a function-local static's initialisation guard) with no thread to release
//   them, and hang at its first compile. fork() (pthread_atfork) waits until no such part runs and
//   keeps new ones from starting until it is done. The frontend's part
//   holds the GIL, which Python's os.fork() needs, so it cannot be forked across.
// - interpreter exit: a daemon thread whose compile ends after Python began finalizing must not
//   take the GIL back (Python would unwind the thread through destructors, std::terminate); it
//   parks until the process ends, as launches do (sim/launch_state.h).
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>

namespace simt::bindings {

class CompileSection {
public:
  CompileSection();  // releases the GIL, then counts itself as running
  ~CompileSection(); // uncounts itself, parks at exit, then takes the GIL back
  CompileSection(const CompileSection &) = delete;
  CompileSection &operator=(const CompileSection &) = delete;

private:
  pybind11::gil_scoped_release release_;
};

// At interpreter exit (after sim::stop_launches_at_exit, so that the sections ending park): waits
// for the running sections to end, as LLVM's code generation cannot be stopped and must not run on
// while static destructors tear LLVM down; past `patience`, says so and ends the process.
void wait_for_compiles_at_exit(std::chrono::milliseconds patience);

} // namespace simt::bindings
