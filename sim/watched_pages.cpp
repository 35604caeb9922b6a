#include "sim/watched_pages.h"

#include <stdexcept>

namespace simt::sim {

WatchedPages::WatchedPages() : root_(zeroed_array<uint8_t *>(size_t(1) << kRootBits)) {}

WatchedPages::~WatchedPages() {
  for (size_t i = 0; i < (size_t(1) << kRootBits); ++i)
    std::free(root_[i]);
  std::free(root_);
}

uint8_t *WatchedPages::leaf(uintptr_t address, bool create) {
  uint8_t *&leaf = root_[root_index(address)];
  if (leaf == nullptr && create)
    leaf = zeroed_array<uint8_t>(size_t(1) << kLeafBits);
  return leaf;
}

void WatchedPages::count(uintptr_t address, int delta) {
  const uintptr_t page_size = uintptr_t(1) << kPageBits;
  // The page, and the one before it: an access starting there may reach into this one.
  for (uintptr_t at : {address, address - page_size}) {
    uint8_t &reasons = leaf(at, true)[leaf_index(at)];
    if ((delta < 0 && reasons == 0) || (delta > 0 && reasons == 255))
      throw std::logic_error("simt: watched pages counted wrong");
    reasons = uint8_t(reasons + delta);
  }
}

bool WatchedPages::watched(uintptr_t address) const {
  const uint8_t *leaf = root_[root_index(address)];
  return leaf != nullptr && leaf[leaf_index(address)] != 0;
}

} // namespace simt::sim
