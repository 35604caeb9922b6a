// The local memory a kernel's thread needs at most: what its stack must hold for local arrays.
#pragma once

#include "ir/ir.h"

#include <cstdint>

namespace simt::sim {

// The bytes of `module`'s kernel's local arrays plus, of the device functions it calls, the chain
// that needs the most (device functions are not recursive, so the chain ends).
int64_t local_frame_bytes(const ir::Module &module);

} // namespace simt::sim
