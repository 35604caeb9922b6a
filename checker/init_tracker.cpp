#include "checker/init_tracker.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

namespace simt::checker {

namespace {

// One element of poison: `bytes` bytes written to `out`.
void poison_element(uint8_t *out, Scalar dtype) {
  switch (dtype) {
  case Scalar::F16:
  case Scalar::BF16: { // a NaN either way
    const uint16_t bits = 0x7fff;
    std::memcpy(out, &bits, 2);
    return;
  }
  case Scalar::F32:
  case Scalar::C64: {
    const uint32_t bits = 0x7fffdead; // a quiet NaN with a payload
    std::memcpy(out, &bits, 4);
    if (dtype == Scalar::C64)
      std::memcpy(out + 4, &bits, 4);
    return;
  }
  case Scalar::F64:
  case Scalar::C128: {
    const uint64_t bits = 0x7fffdeaddeaddeadull;
    std::memcpy(out, &bits, 8);
    if (dtype == Scalar::C128)
      std::memcpy(out + 8, &bits, 8);
    return;
  }
  default:
    std::memset(out, 0xcd, size_t(byte_size(dtype)));
  }
}

} // namespace

namespace {

// Copies the `Size`-byte `element` over `out` as often as it fits in `bytes`; returns the bytes
// copied. (A copy of a constant size is a store: a block's shared arrays are poisoned per block.)
template <size_t Size> uint64_t repeat(uint8_t *out, uint64_t bytes, const uint8_t *element) {
  uint64_t at = 0;
  for (; at + Size <= bytes; at += Size)
    std::memcpy(out + at, element, Size);
  return at;
}

} // namespace

void poison(void *address, uint64_t bytes, Scalar dtype) {
  uint8_t element[16];
  poison_element(element, dtype);
  auto *out = static_cast<uint8_t *>(address);
  uint64_t at = 0;
  switch (byte_size(dtype)) {
  case 1:
    at = repeat<1>(out, bytes, element);
    break;
  case 2:
    at = repeat<2>(out, bytes, element);
    break;
  case 4:
    at = repeat<4>(out, bytes, element);
    break;
  case 8:
    at = repeat<8>(out, bytes, element);
    break;
  default:
    at = repeat<16>(out, bytes, element);
  }
  std::memset(out + at, 0xcd, bytes - at);
}

template <typename Applies>
void InitTracker::change(uintptr_t key, Page &page, size_t first, size_t count, State state,
                         Applies applies) {
  const uint32_t before = page.watched_bytes;
  uint8_t *const begin = page.states + first, *const end = begin + count;
  if constexpr (std::is_same_v<Applies, std::true_type>) { // every byte: counted, then set
    uint32_t after = before;
    for (const uint8_t *byte = begin; byte < end; ++byte)
      after -= uint32_t(is_watched(*byte));
    after += is_watched(state) ? uint32_t(count) : 0;
    if (before == 0 && after != 0) // first: it may throw std::bad_alloc, with nothing changed
      watched_.watch(key << kPageBits);
    std::memset(begin, state, count);
    page.watched_bytes = after;
    if (before != 0 && after == 0)
      watched_.unwatch(key << kPageBits);
  } else {
    for (uint8_t *byte = begin; byte < end; ++byte) {
      if (!applies(*byte) || *byte == state)
        continue;
      page.watched_bytes += uint32_t(is_watched(state)) - uint32_t(is_watched(*byte));
      *byte = state;
    }
    if ((before == 0) != (page.watched_bytes == 0)) {
      if (before == 0)
        watched_.watch(key << kPageBits);
      else
        watched_.unwatch(key << kPageBits);
    }
  }
}

void InitTracker::track(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                        bool host_scanned) {
  poison(reinterpret_cast<void *>(address), bytes, dtype);
  set(address, bytes, Uninitialised);
  if (host_scanned)
    scanned_[address] = {bytes, dtype, itemsize != 0 ? itemsize : uint64_t(byte_size(dtype))};
}

void InitTracker::set(uintptr_t address, uint64_t bytes, State state) {
  const uintptr_t page_size = uintptr_t(1) << kPageBits;
  for (uintptr_t at = address; at < address + bytes;) {
    const uintptr_t page_start = at & ~(page_size - 1);
    const uintptr_t end = std::min<uintptr_t>(page_start + page_size, address + bytes);
    if (Page *states = page(at, state != Untracked))
      change(at >> kPageBits, *states, at - page_start, end - at, state, std::true_type{});
    at = end;
  }
}

void InitTracker::written(uintptr_t address, uint64_t size) {
  if (pages_.empty())
    return;
  const uintptr_t page_size = uintptr_t(1) << kPageBits;
  for (uintptr_t at = address; at < address + size;) {
    const uintptr_t page_start = at & ~(page_size - 1);
    const uintptr_t end = std::min<uintptr_t>(page_start + page_size, address + size);
    if (Page *states = page(at, false))
      change(at >> kPageBits, *states, at - page_start, end - at, Initialised,
             [](uint8_t state) { return state == Uninitialised; });
    at = end;
  }
}

uintptr_t InitTracker::find(uintptr_t address, uint64_t size, State state) {
  if (pages_.empty())
    return 0;
  const uintptr_t page_size = uintptr_t(1) << kPageBits;
  for (uintptr_t at = address; at < address + size;) {
    const uintptr_t page_start = at & ~(page_size - 1);
    const uintptr_t end = std::min<uintptr_t>(page_start + page_size, address + size);
    if (const Page *found = page(at, false)) {
      const uint8_t *states = found->states;
      for (const uint8_t *byte = states + (at - page_start); byte < states + (end - page_start);
           ++byte) // accesses are a few bytes: a plain loop beats memchr's set-up
        if (*byte == state)
          return page_start + uintptr_t(byte - states);
    }
    at = end;
  }
  return 0;
}

void InitTracker::notice_host_writes(uintptr_t address, uint64_t bytes) {
  auto next = scanned_.upper_bound(address);
  if (next != scanned_.begin())
    --next;
  for (; next != scanned_.end() && next->first < address + bytes; ++next) {
    const uintptr_t start = next->first;
    const uint64_t length = next->second.bytes, size = next->second.itemsize;
    std::vector<uint8_t> poisoned(size);
    poison(poisoned.data(), size, next->second.dtype);
    const uintptr_t first = std::max(start, address),
                    last = std::min(start + length, address + bytes);
    const uintptr_t mask = (uintptr_t(1) << kPageBits) - 1;
    const uint8_t *states = nullptr;
    uintptr_t states_page = ~uintptr_t(0);
    for (uintptr_t element = start + (first - start) / size * size; element < last;
         element += size) {
      if ((element >> kPageBits) != states_page) {
        states_page = element >> kPageBits;
        const Page *found = page(element, false);
        states = found != nullptr ? found->states : nullptr;
      }
      if (states == nullptr)
        continue;
      // Elements inside a page: their states at hand; else (a record across pages) looked up.
      const bool in_page = ((element + size - 1) >> kPageBits) == states_page;
      const bool uninitialised =
          in_page ? std::memchr(states + (element & mask), Uninitialised, size) != nullptr
                  : find(element, size, Uninitialised) != 0;
      if (!uninitialised ||
          std::memcmp(reinterpret_cast<const void *>(element), poisoned.data(), size) == 0)
        continue;
      written(element, size);
    }
  }
}

void InitTracker::clear() {
  pages_.for_each([&](uintptr_t start, const Page &page) {
    if (page.watched_bytes != 0)
      watched_.unwatch(start);
  });
  pages_.clear();
  scanned_.clear();
}

void InitTracker::forget(uintptr_t address, uint64_t bytes) {
  set(address, bytes, Untracked);
  pages_.drop(address, bytes); // untracked whole pages: as though never made
  scanned_.erase(address);
}

} // namespace simt::checker
