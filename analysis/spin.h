// Spin detection over the typed IR: which loops may wait for other threads, so that the simulator
// runs their threads as fibers and the lowering lets a spinning thread yield.
#pragma once

#include "ir/ir.h"

#include <vector>

namespace simt::ir {

// Whether `loop` (a While; a range() loop always ends) may wait for other threads, as a spin-wait
// does: one of its exits (its condition, a break, a return) depends, through the locals the loop
// assigns and the conditions it branches on, on memory other threads may write that the loop
// reads (a global or shared array element, a record field, an atomic, a device function's
// result). A loop that does not cannot wait for another thread: its exits follow from values
// fixed when it starts.
bool loop_may_spin(const Stmt &loop);
// Whether some loop in `stmts` (nested ones included) may spin.
bool any_loop_may_spin(const std::vector<Stmt> &stmts);

} // namespace simt::ir
