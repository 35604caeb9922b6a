// What a kernel is compiled for, beyond its source and argument types: chosen by the dispatcher
// (the decorator's options, SIMT_DEBUG, `simt debug`), carried by the typed IR to every backend,
// and part of every cache key, so release and instrumented variants of a kernel never mix.
#pragma once

#include <cstdint>
#include <string>

namespace simt {

// What the compiled code reports to the runtime's observers (sim/observer.h). Release code
// reports nothing and is exactly what it would be were there no other variants.
enum class Instrumentation : uint8_t {
  None,
  // The debugger's variant: locals live in one frame per call that the runtime can read and
  // write by name, a statement hook runs before every statement (and every loop iteration), the
  // runtime keeps a call stack through device functions, and every array access is reported.
  // Every thread runs on its own fiber, so any one can be stopped.
  Debug,
  // The checkers' variant (`simt check`): every array access is reported (where an observer
  // watches, sim/watched_pages.h), and so are fences and each call's fresh local arrays
  // (AccessKind::Fence, LocalArray); no statement hooks or frames. Which threads run on fibers
  // is the simulator's to choose (sim/sim_options.h).
  Check,
};

// Source-level debug information in the generated code (GPU backend: compile_ptx(lineinfo=True)
// gives line tables, debug=True full DWARF).
enum class DebugInfo : uint8_t {
  None,
  LineTables, // .file/.loc directives only, as nvcc -lineinfo
  Full,       // DWARF with a .debug_info section, as nvcc -G
};

// What an index out of an array's bounds does (SIMT_BOUNDSCHECK).
enum class BoundsCheck : uint8_t {
  Raise, // an IndexError stops the launch, as Numba's simulator does (the default)
  // The access is reported once per site (thread, line) and goes on as on a GPU, which checks
  // nothing: a read gives a poisoned value (every byte 0xFF: NaN, -1), a write is lost.
  Warn,
};

struct CompileOptions {
  // Numba's error model: 'python' (debug=True or lineinfo=True) makes float division, floor
  // division and modulo by zero raise ZeroDivisionError, and 0 ** negative on integers too;
  // 'numpy' (the default) gives inf/nan, and INT_MIN for the integer power.
  bool python_error_model = false;
  Instrumentation instrumentation = Instrumentation::None;
  // LLVM's optimisation level, 0 to 3 (@cuda.jit(opt=False) gives 0).
  int opt_level = 3;
  DebugInfo debug_info = DebugInfo::None;
  // @cuda.jit(fastmath=True): LLVM's fast-math flags on float arithmetic, no ZeroDivisionError
  // check on float division (Numba's fast division), and the GPU's approximate math functions.
  bool fastmath = false;
  BoundsCheck bounds_check = BoundsCheck::Raise;

  // A short text naming every option, for cache keys ("py,debug,O3").
  std::string key() const {
    return std::string(python_error_model ? "py" : "np") +
           (instrumentation == Instrumentation::Debug   ? ",debug"
            : instrumentation == Instrumentation::Check ? ",check"
                                                        : ",release") +
           ",O" + std::to_string(opt_level) +
           (debug_info == DebugInfo::LineTables ? ",lines"
            : debug_info == DebugInfo::Full     ? ",dwarf"
                                                : "") +
           (fastmath ? ",fast" : "") + (bounds_check == BoundsCheck::Warn ? ",oobwarn" : "");
  }
  bool operator==(const CompileOptions &) const = default;
};

} // namespace simt
