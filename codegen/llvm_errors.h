// LLVM's fatal errors. LLVM reports what it cannot go on from with report_fatal_error (and failed
// allocations with report_bad_alloc_error), which end the process unless a handler is installed:
// the Python module installs one (pybind/fatal_error.cpp) that calls on_llvm_fatal_error. simt
// refuses what users can reach before LLVM runs (codegen/symbol_name.h, gpu/ptx.cpp); this is
// for whatever is left.
//
// Why only some work recovers: Debian's LLVM 19 is built without exceptions (-fno-exceptions) but
// with unwind tables (-funwind-tables, `llvm-config --cxxflags`), so an exception thrown by the
// handler unwinds through LLVM's frames without running their destructors. What those frames
// left linked into LLVM's objects (value handles in their stack, a pass manager stopped mid-run,
// half-built machine functions) makes the objects unsafe to use again or even to destroy. LLVM's
// own CrashRecoveryContext (clang, libclang) recovers the same way: a non-local exit, the pretty
// stack trace restored, the objects leaked. So the handler throws only out of an LlvmTask marked
// recoverable, whose work owns every LLVM object it touches and leaks them all after a fatal
// error (gpu/ptx.cpp: a PTX compile). Elsewhere (the simulator's JIT shares its session and
// target machines between kernels) the process still ends, with a message saying what simt was
// compiling.
#pragma once

#include <stdexcept>
#include <string>

namespace simt::codegen {

// An LLVM fatal error in a recoverable task: "simt: LLVM failed while WHAT: REASON".
struct LlvmFatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The handlers' work (below).
void on_llvm_fatal_error(const char *reason);
[[noreturn]] void on_llvm_bad_alloc(const char *reason);

// What this thread has LLVM do while it lives (tasks nest; the innermost one counts).
class LlvmTask {
public:
  // `what`: "compiling kernel 'k' (k.py:3) for sm_75", for the messages.
  LlvmTask(std::string what, bool recoverable);
  ~LlvmTask();
  LlvmTask(const LlvmTask &) = delete;
  LlvmTask &operator=(const LlvmTask &) = delete;

  const std::string &what() const { return what_; }
  bool recoverable() const { return recoverable_; }
  // Whether LLVM reported a fatal error in it: its LLVM objects must then be leaked.
  bool failed() const { return failed_; }

  static LlvmTask *current(); // this thread's innermost task, or null

private:
  friend void on_llvm_fatal_error(const char *reason);
  friend void on_llvm_bad_alloc(const char *reason);
  std::string what_;
  bool recoverable_;
  bool failed_ = false;
  const void *pretty_stack_; // LLVM's PrettyStackTrace entries when the task began
  LlvmTask *outer_;
};

// The fatal-error handler's work: throws LlvmFatalError out of a recoverable task; elsewhere writes
// "simt: LLVM fatal error while WHAT: REASON; the process cannot continue" to standard error and
// returns (LLVM then ends the process as it would have).
void on_llvm_fatal_error(const char *reason);

// The same for an allocation LLVM could not make: std::bad_alloc out of a recoverable task;
// elsewhere a message (written without allocating) and abort().
[[noreturn]] void on_llvm_bad_alloc(const char *reason);

} // namespace simt::codegen
