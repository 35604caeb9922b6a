// The memory initcheck and memcheck track, shared by them and by the host's reports of device
// memory (checker/checker.h: allocated, written, freed): the states of device arrays' and local
// arrays' bytes (checker/init_tracker.h), and the pages whose accesses the tools need to see.
#pragma once

#include "checker/init_tracker.h"
#include "sim/watched_pages.h"

#include <cstdint>

namespace simt::checker {

struct TrackedMemory {
  // `device_states`, `scratch_states`: the InitTracker states (a mask of 1 << State) whose
  // accesses the active tools need to see.
  TrackedMemory(unsigned device_states, unsigned scratch_states)
      : device(watched, device_states), scratch(watched, scratch_states) {}

  // Every tool's pages (initcheck's, memcheck's): before the trackers, which watch in it.
  sim::WatchedPages watched;
  InitTracker device;     // device arrays, from allocation to release
  InitTracker scratch;    // local arrays, for one launch
  bool any_freed = false; // device memory was freed: accesses are looked up
  // Bytes of state the trackers hold.
  uint64_t bytes() const { return device.bytes() + scratch.bytes(); }
};

} // namespace simt::checker
