#include "sim/watched_pages.h"

#include <stdexcept>

namespace simt::sim {

WatchedPages::WatchedPages()
    : root_(zeroed_array<uint8_t *>(size_t(1) << kRootBits)),
      leaves_(zeroed_array<uint8_t *>(size_t(1) << kRootBits)),
      watched_in_leaf_(zeroed_array<uint32_t>(size_t(1) << kRootBits)) {}

WatchedPages::~WatchedPages() {
  for (size_t i = 0; i < (size_t(1) << kRootBits); ++i)
    std::free(leaves_[i]);
  std::free(watched_in_leaf_);
  std::free(leaves_);
  std::free(root_);
}

void WatchedPages::count(uintptr_t address, int delta) {
  const uintptr_t page_size = uintptr_t(1) << kPageBits;
  // The page, and the one before it: an access starting there may reach into this one.
  for (uintptr_t at : {address, address - page_size}) {
    const size_t index = root_index(at);
    uint8_t *&leaf = leaves_[index];
    if (leaf == nullptr)
      leaf = zeroed_array<uint8_t>(size_t(1) << kLeafBits);
    uint8_t &reasons = leaf[leaf_index(at)];
    if ((delta < 0 && reasons == 0) || (delta > 0 && reasons == 255))
      throw std::logic_error("simt: watched pages counted wrong");
    const bool was_watched = reasons != 0;
    reasons = uint8_t(reasons + delta);
    if (was_watched != (reasons != 0)) {
      uint32_t &watched = watched_in_leaf_[index];
      watched = was_watched ? watched - 1 : watched + 1;
      root_[index] = watched != 0 ? leaf : nullptr;
    }
  }
}

bool WatchedPages::watched(uintptr_t address) const {
  const uint8_t *leaf = root_[root_index(address)];
  return leaf != nullptr && leaf[leaf_index(address)] != 0;
}

} // namespace simt::sim
