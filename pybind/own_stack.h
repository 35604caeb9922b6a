// Compiling on a stack of simt's own. The compiler's recursion is bounded by the nesting limit
// (frontend/nesting.h), but a compile at that limit needs a few MiB of stack (several times that
// under AddressSanitizer), more than a Python thread made with a small threading.stack_size()
// has: so compiles run on a fresh, lazily committed stack, on the calling thread (the GIL and
// Python's thread state stay as they are).
#pragma once

#include <functional>

namespace simt::bindings {

// Runs `work` to completion on a stack of its own; an exception it throws is rethrown here.
void run_on_compile_stack(const std::function<void()> &work);

} // namespace simt::bindings
