#include "pybind/own_stack.h"

#include "sim/asan_fibers.h"
#include "sim/launch_state.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <cxxabi.h>
#include <exception>
#include <utility>

namespace simt::bindings {

namespace {
// Pages are committed only as the compile touches them; the guard page below stays. Under
// AddressSanitizer frames are several times larger (a level of a 10,000-term operator chain in
// the lowering takes ~7.5 KiB there, ~320 B in release).
#ifdef SIMT_ASAN_FIBERS
constexpr size_t compile_stack_bytes = size_t(512) << 20;
#else
constexpr size_t compile_stack_bytes = size_t(64) << 20;
#endif

// Boost's guarded stacks, with ASan's markings of the compile's frames cleared before unmapping.
class CompileStackAllocator {
public:
  boost::context::stack_context allocate() { return stacks_.allocate(); }
  void deallocate(boost::context::stack_context &stack) {
    sim::forget_stack_frames(static_cast<char *>(stack.sp) - stack.size, stack.size);
    stacks_.deallocate(stack);
  }

private:
  boost::context::protected_fixedsize_stack stacks_{compile_stack_bytes};
};
} // namespace

void run_on_compile_stack(const std::function<void()> &work) {
  std::exception_ptr failure;
  CompileStackAllocator allocator;
  boost::context::stack_context stack = allocator.allocate(); // freed by the fiber when it ends
#ifdef SIMT_ASAN_FIBERS
  const void *caller_bottom = nullptr;
  size_t caller_size = 0;
#endif
  boost::context::fiber compile(
      std::allocator_arg, boost::context::preallocated(stack.sp, stack.size, stack), allocator,
      [&](boost::context::fiber &&caller) {
#ifdef SIMT_ASAN_FIBERS
        __sanitizer_finish_switch_fiber(nullptr, &caller_bottom, &caller_size);
#endif
        try {
          work();
        } catch (const abi::__forced_unwind &) {
          // The thread is ending (a daemon thread that took the GIL while Python finalizes calls
          // pthread_exit): its unwinding cannot cross back to the caller's stack, and swallowing
          // it aborts the process, so the thread stays here until the process ends.
          sim::park_until_exit();
        } catch (...) {
          failure = std::current_exception();
        }
#ifdef SIMT_ASAN_FIBERS
        __sanitizer_start_switch_fiber(nullptr, caller_bottom, caller_size);
#endif
        return std::move(caller);
      });
#ifdef SIMT_ASAN_FIBERS
  void *fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, static_cast<char *>(stack.sp) - stack.size,
                                 stack.size);
#endif
  compile = std::move(compile).resume();
#ifdef SIMT_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
  if (failure)
    std::rethrow_exception(failure);
}

} // namespace simt::bindings
