// Ctrl-C during a compile. The compile runs in C++ (its LLVM part without the GIL), so Python's
// handler, which only flags the signal for the main thread's next bytecode, cannot stop it:
// simt's SIGINT handler (pybind/compiled_kernel.cpp) requests a stop here, and the compiler polls
// for it at every statement it types and between LLVM passes (codegen/interruptible_passes.h).
// The compile then ends with CompileInterrupted, which Python sees as KeyboardInterrupt. As with
// launches, an interrupt stops every compile running when it comes, and none that starts later.
#pragma once

#include <stdexcept>

namespace simt {

struct CompileInterrupted : std::runtime_error {
  CompileInterrupted() : std::runtime_error("simt: compile interrupted") {}
};

// Marks a compile as running on this thread for its lifetime (compiles may nest). Only such
// compiles are stopped.
class CompileInProgress {
public:
  CompileInProgress();
  ~CompileInProgress();
  CompileInProgress(const CompileInProgress &) = delete;
  CompileInProgress &operator=(const CompileInProgress &) = delete;
};

// Stops the compiles running now. Async-signal-safe (lock-free atomics only).
void request_compile_interrupt() noexcept;

// Whether the compile running on this thread was asked to stop.
bool compile_interrupt_requested() noexcept;

// Throws CompileInterrupted when compile_interrupt_requested().
void poll_compile_interrupt();

} // namespace simt
