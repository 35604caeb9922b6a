// initcheck's and memcheck's view of memory: which bytes of the memory they track hold a value.
//
// Tracked memory starts poisoned (poison()): floats hold a NaN, integers a byte pattern, so a
// read that goes unreported still shows. The checker tracks a block's shared memory while the
// block runs, each call's local arrays, and device arrays from their allocation (the dispatcher
// registers device_array and its kin) until they are freed; the host writes to device arrays
// (copies, NumPy writes into pinned or mapped memory) are found at each launch: bytes no longer
// holding the poison are initialised.
#pragma once

#include "checker/page_table.h"
#include "ir/types.h"
#include "sim/watched_pages.h"

#include <cstdint>
#include <map>
#include <memory>

namespace simt::checker {

// Fills `bytes` at `address` with elements of `dtype` that say "never written": NaNs with a
// payload for floats (and complex parts), 0xCD bytes otherwise (records: Scalar::U8).
void poison(void *address, uint64_t bytes, Scalar dtype);

class InitTracker {
public:
  enum State : uint8_t { Untracked, Uninitialised, Initialised, Freed };

  // `watched`: where to watch (sim/watched_pages.h) the pages holding a byte in one of the
  // `watched_states` (a mask of 1 << State): the accesses the checkers must see there.
  InitTracker(sim::WatchedPages &watched, unsigned watched_states)
      : watched_(watched), watched_states_(watched_states) {}
  ~InitTracker() { clear(); }
  InitTracker(const InitTracker &) = delete;
  InitTracker &operator=(const InitTracker &) = delete;

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
  // Bytes of state allocated, and what tracking `bytes` more (on pages of their own) takes.
  uint64_t bytes() const { return pages_.size() * sizeof(Page); }
  static uint64_t bytes_for(uint64_t bytes) { return ((bytes >> kPageBits) + 1) * sizeof(Page); }

private:
  static constexpr unsigned kPageBits = sim::WatchedPages::kPageBits;
  struct Page {
    uint8_t states[size_t(1) << kPageBits] = {}; // untracked
    uint32_t watched_bytes = 0;                  // bytes in a watched state
  };
  Page *page(uintptr_t address, bool create) {
    return create ? &pages_.get(address) : pages_.find(address);
  }
  // Sets the states of `count` bytes of `page` (at `key`) from `first`; `state` applies to the
  // bytes for which `applies` holds (std::true_type: every byte), and the page is watched while
  // it has a byte in a watched state.
  template <typename Applies>
  void change(uintptr_t key, Page &page, size_t first, size_t count, State state, Applies applies);
  bool is_watched(uint8_t state) const { return (watched_states_ >> state & 1) != 0; }

  sim::WatchedPages &watched_;
  const unsigned watched_states_;
  PageTable<Page> pages_;
  struct Allocation {
    uint64_t bytes;
    Scalar dtype;
    uint64_t itemsize;
  };
  std::map<uintptr_t, Allocation> scanned_; // host-scanned memory, by start address
};

} // namespace simt::checker
