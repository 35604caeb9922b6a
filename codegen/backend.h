// The Backend interface: what every place a kernel can run does with it. A backend compiles a
// typed-IR module (its CompileOptions inside) into an Executable, and an Executable launches it
// on a grid with the host's arguments and returns the first fault. The simulator
// (sim/host_backend.h) and the GPU (gpu/gpu_backend.h) implement it; the dispatcher picks one
// per kernel by its target (SIMT_TARGET).
#pragma once

#include "codegen/lower.h"
#include "ir/ir.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace simt::codegen {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint64_t dynamic_shared_bytes = 0;
};

// What a fault is, beyond its exception: the checkers file barrier and warp errors under
// synccheck and bounds errors under memcheck.
enum class FaultKind : uint8_t {
  Exception, // raised by the kernel's code (ZeroDivisionError, assert, raise)
  Bounds,    // an index out of an array's bounds
  Barrier,   // threads of a block at different barriers (a divergent syncthreads)
  Warp,      // a warp operation whose mask names lanes that exited, or that disagree
  Deadlock,  // threads that wait for each other forever
  Resource,  // out of memory or stack; an interrupt
};

// "exception", "bounds", "barrier", "warp", "deadlock", "resource": as Python sees the kind.
constexpr const char *fault_kind_name(FaultKind kind) {
  constexpr const char *names[] = {"exception", "bounds",   "barrier",
                                   "warp",      "deadlock", "resource"};
  return names[static_cast<int>(kind)];
}

// The first fault of a launch, as the Python layer turns it into an exception.
struct Fault {
  std::string exception; // Python exception class name: "IndexError", "ZeroDivisionError", ...
  std::string message;   // without the thread ids or location
  Dim3 tid;
  Dim3 ctaid;
  CodeLocation where;
  FaultKind kind = FaultKind::Exception;
};

// The host's kernel arguments, `void **args` with args[i] pointing at the i-th argument's
// storage (one layout for every backend; the simulator's JIT code reads it as it is):
//   - a scalar: its value (bool as one byte, 0 or 1);
//   - an array: an ArrayHeader, immediately followed by int64 shape[ndim] then int64
//     strides[ndim] (in bytes). The pointer is 8-byte aligned;
//   - a record: the address of the record's bytes (the kernel reads and writes them in place);
//   - a tuple: its elements' storage one after the other, each element taking whole 8-byte slots
//     (a scalar one, complex128 two, an array 1 + 2 * ndim, a record one, a tuple its elements').
struct ArrayHeader {
  char *data;
  int64_t dims[]; // shape[ndim], then strides[ndim]
};

// The text of an IndexError, the same on every backend.
inline std::string index_error_message(int64_t index, int32_t axis, int64_t size) {
  return "index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) +
         " with size " + std::to_string(size);
}

class Executable {
public:
  virtual ~Executable() = default;
  // Runs the kernel: checks `config` (std::invalid_argument for what the backend cannot launch),
  // and returns the first fault, if any. Arrays are read and written in place (a backend with
  // its own memory copies them in and back).
  virtual std::optional<Fault> launch(const LaunchConfig &config, void **args) = 0;
  // The most blocks of `block` threads and `dynamic_shared_bytes` a cooperative launch may have
  // (Numba's max_cooperative_grid_blocks): all of them must be resident at once.
  virtual uint64_t max_cooperative_blocks(const Dim3 &block, uint64_t dynamic_shared_bytes) = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  // "sim" or "gpu": the target's name, as SIMT_TARGET spells it.
  virtual const char *name() const = 0;
  // Compiles `module` (std::runtime_error for what this backend cannot compile) with `link`, the
  // external device functions it calls (cuda.declare_device) as this backend takes them (made
  // by python/simt/linking.py from @cuda.jit(link=[...])): shared libraries' paths for the
  // simulator, PTX texts for the GPU.
  virtual std::unique_ptr<Executable> compile(const ir::Module &module,
                                              const std::vector<std::string> &link) = 0;
};

} // namespace simt::codegen
