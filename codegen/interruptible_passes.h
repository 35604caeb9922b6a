// Ctrl-C during an LLVM optimisation pipeline (ir/compile_interrupt.h): once a stop is
// requested, every optional pass is skipped, so the pipeline ends within one pass; the caller then
// polls (poll_compile_interrupt) before generating code. Exceptions cannot be thrown through
// LLVM's frames, which are built without them.
#pragma once

#include "ir/compile_interrupt.h"

#include <llvm/IR/PassInstrumentation.h>

namespace simt::codegen {

inline void skip_passes_once_interrupted(llvm::PassInstrumentationCallbacks &callbacks) {
  callbacks.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef, llvm::Any) { return !compile_interrupt_requested(); });
}

} // namespace simt::codegen
