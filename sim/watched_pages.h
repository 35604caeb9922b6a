// The memory whose accesses an observer wants to hear of (Observer::watched_pages): a checker
// that cares about a few arrays' bytes — initcheck's uninitialised ones, memcheck's freed ones —
// spares every other access of an instrumented kernel its runtime call.
//
// Instrumented code looks an access up itself (HostTarget::memory_access, through
// ThreadContext::watched_pages): a root table indexed by address bits [30, 48), leaves of one
// byte per 4 KiB page; the access is reported when its page's byte is non-zero. A page's byte
// counts the reasons to watch it and its successor's: an access that starts in one page may end
// in the next (accesses of more than a page are always reported). The root holds a leaf only
// while one of its pages is watched, so an access far from every watched page costs one load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace simt::sim {

// `count` zeroed elements from calloc (free them with std::free): memory the system commits only
// where it is written, for sparse tables.
template <typename T> T *zeroed_array(size_t count) {
  void *memory = std::calloc(count, sizeof(T));
  if (memory == nullptr)
    throw std::bad_alloc();
  return static_cast<T *>(memory);
}

class WatchedPages {
public:
  static constexpr unsigned kPageBits = 12;
  static constexpr unsigned kLeafBits = 18; // pages per leaf: a leaf covers 1 GiB
  static constexpr unsigned kRootBits = 48 - kPageBits - kLeafBits;

  WatchedPages();
  ~WatchedPages();
  WatchedPages(const WatchedPages &) = delete;
  WatchedPages &operator=(const WatchedPages &) = delete;

  // One more reason to report the accesses of the page holding `address` (watch), one fewer
  // (unwatch: each watch is undone once).
  void watch(uintptr_t address) { count(address, 1); }
  void unwatch(uintptr_t address) { count(address, -1); }
  // Whether an access (of at most a page) at `address` is reported: what instrumented code
  // computes.
  bool watched(uintptr_t address) const;
  // Where the page of `address` sits: its leaf's index in the root, its index in the leaf (the
  // layout of every such table, sim's and the checkers').
  static size_t root_index(uintptr_t address) {
    return (address >> (kPageBits + kLeafBits)) & ((size_t(1) << kRootBits) - 1);
  }
  static size_t leaf_index(uintptr_t address) {
    return (address >> kPageBits) & ((size_t(1) << kLeafBits) - 1);
  }
  // The root table, as ThreadContext::watched_pages holds it.
  const uint8_t *const *root() const { return root_; }

private:
  void count(uintptr_t address, int delta);
  uint8_t **root_;            // what instrumented code reads: leaves_[i] while it watches a page
  uint8_t **leaves_;          // every leaf made
  uint32_t *watched_in_leaf_; // per leaf, its pages watched
};

} // namespace simt::sim
