// A float's bits as MemoryAccess::value holds a stored scalar: zero-extended to 64 bits.
#pragma once

#include <cstdint>
#include <cstring>

namespace simt::checker::testing {

inline uint64_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

inline uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

} // namespace simt::checker::testing
