// Cooperative launches: kernels that reach a grid sync (cuda.cg.this_grid().sync()).
//
// Every block of the grid stays resident: each of its threads is a fiber from start to end.
// Workers claim blocks as in an ordinary launch but keep them, running each until its live
// threads have finished or wait at the grid barrier. The barrier releases once every live thread
// of the grid waits there; a worker whose blocks all wait sleeps until then. Threads that have
// returned count as arrived, as at syncthreads. Waiting at different grid syncs, or at a grid
// sync and a syncthreads in one block, is a fault, never a hang.
#pragma once

#include "sim/launch_state.h"

namespace simt::sim {

// Runs every block of `launch` (a cooperative kernel) to completion; faults are recorded in
// `launch`. Throws std::invalid_argument before running anything when the grid has more blocks
// than max_cooperative_blocks() allows.
void run_cooperative(LaunchState &launch);

} // namespace simt::sim
