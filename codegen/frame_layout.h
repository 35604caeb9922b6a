// Where an instrumented function keeps its locals: one frame per call, each slot at a fixed byte
// offset, so that the runtime's observers (the debugger) read and write them by name. Written by
// the lowering (from the target's data layout), carried by the compiled kernel.
#pragma once

#include "ir/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace simt::codegen {

struct FrameSlot {
  // The Python name (two slots may share one); compiler temporaries start with '$'.
  std::string name;
  Type type;
  uint64_t offset = 0; // in the frame, in bytes; the value in its register form (llvm_types.h)
  int first_line = 0, last_line = 0; // where the name means this slot (ir::Slot)
};

// The frame of ir::Module::functions[i].
struct FrameLayout {
  std::string function; // the Python function's name
  std::string file;
  int first_line = 0;
  int num_params = 0; // slots[0, num_params) are the parameters
  std::vector<FrameSlot> slots;
};

// How an instrumented kernel accesses memory (reported before the access). The checkers' variant
// also reports a fence (address null, size 0; the value is its Target::FenceScope) and each
// local array a call creates (its address and size; the value is the function's index in
// ir::Module::functions << 32 | the array's index in its local_arrays).
enum class AccessKind : uint8_t { Load, Store, Atomic, Fence, LocalArray };

} // namespace simt::codegen
