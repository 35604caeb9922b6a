#include "sim/watched_pages.h"

#include <stdexcept>

namespace simt::sim {

namespace {

constexpr uintptr_t kLeafMask = (uintptr_t(1) << WatchedPages::kLeafBits) - 1;
constexpr uintptr_t kRootMask = (uintptr_t(1) << WatchedPages::kRootBits) - 1;

} // namespace

WatchedPages::WatchedPages() : root_(zeroed_array<uint8_t *>(size_t(1) << kRootBits)) {}

WatchedPages::~WatchedPages() {
  for (size_t i = 0; i < (size_t(1) << kRootBits); ++i)
    std::free(root_[i]);
  std::free(root_);
}

uint8_t *WatchedPages::leaf(uintptr_t page, bool create) {
  uint8_t *&leaf = root_[(page >> kLeafBits) & kRootMask];
  if (leaf == nullptr && create)
    leaf = zeroed_array<uint8_t>(size_t(1) << kLeafBits);
  return leaf;
}

void WatchedPages::count(uintptr_t address, int delta) {
  const uintptr_t page = address >> kPageBits;
  // The page, and the one before it: an access starting there may reach into this one.
  for (uintptr_t at : {page, page - 1}) {
    uint8_t &reasons = leaf(at, true)[at & kLeafMask];
    if ((delta < 0 && reasons == 0) || (delta > 0 && reasons == 255))
      throw std::logic_error("simt: watched pages counted wrong");
    reasons = uint8_t(reasons + delta);
  }
}

bool WatchedPages::watched(uintptr_t address) const {
  const uintptr_t page = address >> kPageBits;
  const uint8_t *leaf = root_[(page >> kLeafBits) & kRootMask];
  return leaf != nullptr && leaf[page & kLeafMask] != 0;
}

} // namespace simt::sim
