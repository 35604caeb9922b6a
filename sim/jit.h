// Typed IR -> native code for the simulator, through one process-wide ORC LLJIT.
#pragma once

#include "ir/ir.h"
#include "sim/launch.h"
#include "sim/sim_options.h"

#include <cstddef>
#include <memory>
#include <new>
#include <string>

namespace simt::sim {

// Lowers `module` with the host Target as `options` plan it (sim/kernel_plan.h), optimises it at
// `tier`, adds it to the process's LLJIT and
// returns its entry points. The block entry is present only when no barrier is reachable (flat
// mode). Code is found by the module's fingerprint (ir::fingerprint) before anything is lowered:
// code this process or the on-disk cache has, of `tier` or better, answers the request (the
// returned code's tier says which it is), with the fault locations kept in its object. Thread-safe:
// a Full compile on one thread does not hold up a Quick one on another. Throws std::runtime_error
// if LLVM rejects the module (a simt bug, not a user error), JitOutOfMemory when its code cannot
// be mapped. The code stays mapped while a copy of the returned KernelCode lives. When the code is
// Quick and `unoptimised` is given, it receives what jit_compile_full needs.
struct UnoptimisedModule;
KernelCode jit_compile(const ir::Module &module, Tier tier = Tier::Full,
                       UnoptimisedModule *unoptimised = nullptr, const SimOptions &options = {});

// What compiling a Quick kernel again at its full level takes, kept from its Quick compile: no
// LLVM state, so it may outlive the compile and move to another thread.
struct UnoptimisedModule {
  std::string name;         // the kernel's, for errors
  std::string key;          // its cache key: the Full code replaces the Quick code on disk
  std::string entry_symbol; // its entry point: the thread body or the block loop
  // A copy of the typed IR, lowered again by the recompile (a Quick kernel found in a cache was
  // never lowered in this process).
  std::shared_ptr<const ir::Module> module;
  SimOptions options; // as it was planned
};

// A kernel's code at its full level: its entry point (of the kind jit_compile returned) and what
// keeps it mapped (KernelCode::keep_alive).
struct FullCode {
  KernelEntry entry = nullptr;
  std::shared_ptr<const void> keep_alive;
};

// Compiles `kernel` at its full level. Thread-safe; throws as jit_compile.
FullCode jit_compile_full(const UnoptimisedModule &kernel);

// How many kernels' code the JIT holds: each is freed (unmapped) when the last KernelCode
// holding it goes.
size_t jit_kernels_alive();

// The JIT could not map a kernel's code (out of memory, or of the process's memory mappings:
// vm.max_map_count). A std::bad_alloc, which Python sees as a MemoryError, whose message names
// the kernels alive and the likely cause.
class JitOutOfMemory : public std::bad_alloc {
public:
  explicit JitOutOfMemory(std::string message) : message_(std::move(message)) {}
  const char *what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

// The optimised LLVM IR the host Target produces for `module` as `options` plan it (for
// inspection and tests).
std::string host_llvm_ir(const ir::Module &module, const SimOptions &options = {});

} // namespace simt::sim
