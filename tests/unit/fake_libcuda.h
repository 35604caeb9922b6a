// The test-only interface of the fake CUDA driver (fake_libcuda.cpp), reached by dlopen of the
// same file the driver layer loads, so both see one state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct FakeLaunch {
  std::string name; // the kernel's entry
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared = 0;
  bool cooperative = false;
  std::vector<std::vector<uint8_t>> params; // each parameter's bytes, sized by the PTX's .param
  // For each 8-byte parameter pointing into device memory when the kernel ran: its offset in its
  // allocation, and that allocation's size; -1 for the others.
  std::vector<int64_t> allocation_offset, allocation_size;
};

// The last launch, or nullptr before the first.
using FakeLastLaunch = const FakeLaunch *(*)();
// Live device allocations (cuMemAlloc minus cuMemFree).
using FakeLiveAllocations = long (*)();
// Forgets launches and a sticky error.
using FakeReset = void (*)();
// The allocation holding `address`: its base and size; false when there is none.
using FakeAllocationOf = bool (*)(uint64_t address, uint64_t *base, uint64_t *size);
// How many times cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) was called, and its last value.
using FakeSharedOptIn = int (*)(int *last_value);
