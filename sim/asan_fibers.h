// Whether this build runs under AddressSanitizer, which must be told of every switch to another
// stack (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber): SIMT_ASAN_FIBERS.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMT_ASAN_FIBERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SIMT_ASAN_FIBERS)
#define SIMT_ASAN_FIBERS 1
#endif

#ifdef SIMT_ASAN_FIBERS
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <cstddef>

namespace simt::sim {

// Clears ASan's markings of a stack no fiber runs on any more: the redzones of its last frames
// stay poisoned otherwise, and the memory's next user (a fiber reusing the stack, or whatever is
// mapped there after munmap) trips on them as a "stack-buffer-underflow".
inline void forget_stack_frames([[maybe_unused]] void *bottom, [[maybe_unused]] size_t size) {
#ifdef SIMT_ASAN_FIBERS
  __asan_unpoison_memory_region(bottom, size);
#endif
}

} // namespace simt::sim
