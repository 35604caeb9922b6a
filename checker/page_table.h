// The checkers' per-page state of memory (racecheck's shadow cells, initcheck's byte states),
// found from an address in two loads: a root indexed by address bits [30, 48), leaves of one
// pointer per 4 KiB page (the pages of sim/watched_pages.h). Pages are made on first use and
// kept until dropped.
#pragma once

#include "sim/watched_pages.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace simt::checker {

template <typename Page> class PageTable {
public:
  static constexpr unsigned kPageBits = sim::WatchedPages::kPageBits;
  static constexpr uintptr_t kPageSize = uintptr_t(1) << kPageBits;

  PageTable() : root_(sim::zeroed_array<Page **>(kRootSize)) {}
  ~PageTable() {
    clear();
    for (size_t i = 0; i < kRootSize; ++i)
      std::free(root_[i]);
    std::free(root_);
  }
  PageTable(const PageTable &) = delete;
  PageTable &operator=(const PageTable &) = delete;

  // The page holding `address`, or null when there is none.
  Page *find(uintptr_t address) const {
    Page **leaf = root_[root_index(address)];
    return leaf != nullptr ? leaf[leaf_index(address)] : nullptr;
  }
  // The page holding `address`, made (value-initialised) when there is none.
  Page &get(uintptr_t address) {
    Page **&leaf = root_[root_index(address)];
    if (leaf == nullptr)
      leaf = sim::zeroed_array<Page *>(kLeafSize);
    Page *&page = leaf[leaf_index(address)];
    if (page == nullptr) { // either allocation may throw std::bad_alloc: then nothing changed
      auto made = std::make_unique<Page>();
      pages_.push_back(address & ~(kPageSize - 1));
      page = made.release();
    }
    return *page;
  }
  // Calls visit(start address, page) for each page.
  template <typename Visit> void for_each(Visit visit) const {
    for (uintptr_t start : pages_)
      visit(start, *find(start));
  }
  // Drops the pages that lie wholly in [address, address + bytes) (`overlapping`: every page
  // that holds a byte of it).
  void drop(uintptr_t address, uint64_t bytes, bool overlapping = false) {
    std::erase_if(pages_, [&](uintptr_t start) {
      if (overlapping ? start + kPageSize <= address || start >= address + bytes
                      : start < address || start + kPageSize > address + bytes)
        return false;
      Page *&page = root_[root_index(start)][leaf_index(start)];
      delete page;
      page = nullptr;
      return true;
    });
  }
  void clear() {
    for (uintptr_t start : pages_) {
      Page *&page = root_[root_index(start)][leaf_index(start)];
      delete page;
      page = nullptr;
    }
    pages_.clear();
  }
  size_t size() const { return pages_.size(); }
  bool empty() const { return pages_.empty(); }

private:
  static constexpr size_t kLeafSize = size_t(1) << sim::WatchedPages::kLeafBits;
  static constexpr size_t kRootSize = size_t(1) << sim::WatchedPages::kRootBits;
  static size_t root_index(uintptr_t address) { return sim::WatchedPages::root_index(address); }
  static size_t leaf_index(uintptr_t address) { return sim::WatchedPages::leaf_index(address); }
  Page ***root_;
  std::vector<uintptr_t> pages_; // start addresses
};

} // namespace simt::checker
