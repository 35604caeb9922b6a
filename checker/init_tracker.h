// initcheck's and memcheck's view of memory: which bytes of the memory they track hold a value.
//
// Tracked memory starts poisoned (poison()): floats hold a NaN, integers a byte pattern, so a
// read that goes unreported still shows. The checker tracks a block's shared memory while the
// block runs, each call's local arrays, and device arrays from their allocation (the dispatcher
// registers device_array and its kin) until they are freed; the host writes to device arrays
// (copies, NumPy writes into pinned or mapped memory) are found at each launch: bytes no longer
// holding the poison are initialised.
#pragma once

#include "frontend/types.h"

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>

namespace simt::checker {

// Fills `bytes` at `address` with elements of `dtype` that say "never written": NaNs with a
// payload for floats (and complex parts), 0xCD bytes otherwise (records: Scalar::U8).
void poison(void *address, uint64_t bytes, Scalar dtype);

class InitTracker {
public:
  enum State : uint8_t { Untracked, Uninitialised, Initialised, Freed };

  // [address, address + bytes) holds elements of `itemsize` bytes (`dtype` ones, or records:
  // U8), none written yet: poisons it. `host_scanned`: the host may write it without saying so
  // (pinned or mapped memory is a NumPy array), so notice_host_writes looks at it.
  void track(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize = 0,
             bool host_scanned = false);
  void set(uintptr_t address, uint64_t bytes, State state);
  // [address, address + size) was written: its uninitialised bytes are initialised now.
  void written(uintptr_t address, uint64_t size);
  // The first byte of [address, address + size) in `state`, or 0.
  uintptr_t find(uintptr_t address, uint64_t size, State state);
  // The bytes of host-scanned memory in [address, address + bytes) still uninitialised whose
  // element no longer holds the poison were written by the host: initialised now.
  void notice_host_writes(uintptr_t address, uint64_t bytes);
  // Forgets everything.
  void clear();
  // Device arrays: freed memory is marked Freed until forget() (its owner is gone).
  void forget(uintptr_t address, uint64_t bytes);

private:
  static constexpr unsigned kPageBits = 12;
  uint8_t *page(uintptr_t address, bool create);
  std::unordered_map<uintptr_t, std::unique_ptr<uint8_t[]>> pages_;
  // Pages looked up lately, direct-mapped, misses (untracked memory: null) included: kernels
  // touch a few arrays at once.
  static constexpr unsigned kRecentPages = 64;
  struct RecentPage {
    uintptr_t key = ~uintptr_t(0);
    uint8_t *states = nullptr;
  };
  RecentPage recent_[kRecentPages];
  struct Allocation {
    uint64_t bytes;
    Scalar dtype;
    uint64_t itemsize;
  };
  std::map<uintptr_t, Allocation> scanned_; // host-scanned memory, by start address
};

} // namespace simt::checker
