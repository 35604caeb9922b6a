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
#include <sanitizer/common_interface_defs.h>
#endif
