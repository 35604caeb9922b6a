// Every switch between a block's scheduler and one of its threads' fibers goes through these
// functions, so that each one tells AddressSanitizer which stack it moves to (without that, ASan
// takes a fiber's frames for the worker's own and reports them as stack-buffer overflows, and
// keeps stale markings on pooled stacks).
#pragma once

#include "sim/asan_fibers.h"
#include "sim/stack_pool.h"
#include "sim/thread_state.h"

#include <memory>
#include <utility>

namespace simt::sim {

// The fiber the calling thread runs, or null: the stack-overflow handler (sim/stack_pool.h)
// finds its thread. Set at every fiber switch: the initial-exec model makes it a plain
// thread-pointer access rather than a call of __tls_get_addr (one pointer of the static TLS
// surplus glibc keeps for dlopen'ed libraries).
[[gnu::tls_model("initial-exec")]] inline thread_local ThreadState *running_fiber = nullptr;

// The scheduler's side: runs the fiber of `state` until it parks or finishes.
inline void resume_fiber(ThreadState &state) {
#ifdef SIMT_ASAN_FIBERS
  void *fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, state.fiber_stack.bottom, state.fiber_stack.size);
#endif
  running_fiber = &state;
  state.self = std::move(state.self).resume();
  running_fiber = nullptr;
#ifdef SIMT_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
  if (state.stack_overflowed) [[unlikely]]
    abandon_overflowed_fiber(state);
}

// The fiber's side, first thing on a new fiber: keeps the scheduler to switch back to.
inline void enter_fiber(ThreadState &state, boost::context::fiber &&scheduler) {
#ifdef SIMT_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(nullptr, &state.scheduler_stack.bottom,
                                  &state.scheduler_stack.size);
#endif
  state.scheduler = std::move(scheduler);
}

// The fiber's side: suspends the calling thread (parked: its phase says at what) and returns
// once the scheduler resumes it.
inline void switch_to_scheduler(ThreadState &state) {
#ifdef SIMT_ASAN_FIBERS
  void *fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, state.scheduler_stack.bottom,
                                 state.scheduler_stack.size);
#endif
  state.scheduler = std::move(state.scheduler).resume();
#ifdef SIMT_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fake_stack, &state.scheduler_stack.bottom,
                                  &state.scheduler_stack.size);
#endif
}

// The fiber's side: an observer stopped the calling thread (sim/observer.h); returns once the
// block's FiberChoice resumes it.
inline void park_stopped(ThreadState &state) {
  state.phase = ThreadState::Phase::Stopped;
  switch_to_scheduler(state);
}

// The fiber's side, last thing: the scheduler, for the fiber's function to return (the fiber
// ends and its stack goes back to the pool).
inline boost::context::fiber exit_fiber(ThreadState &state) {
#ifdef SIMT_ASAN_FIBERS
  __sanitizer_start_switch_fiber(nullptr, state.scheduler_stack.bottom, state.scheduler_stack.size);
#endif
  return std::move(state.scheduler);
}

// Creates the fiber of `state` on `stack` (held by a StackLease that outlives the fiber), to run
// body() once resumed; the fiber finishes when body() returns.
template <typename Body> void create_fiber(ThreadState &state, const Stack &stack, Body body) {
  // The lease keeps the stack: a finished fiber has nothing to free.
  struct LeasedStack {
    void deallocate(boost::context::stack_context &) {}
  };
  boost::context::stack_context context;
  context.sp = stack.top();
  context.size = stack.size;
  state.fiber_stack = StackRange{stack.bottom, stack.size};
  state.self = boost::context::fiber(
      std::allocator_arg, boost::context::preallocated(context.sp, context.size, context),
      LeasedStack{}, [&state, body = std::move(body)](boost::context::fiber &&scheduler) mutable {
        enter_fiber(state, std::move(scheduler));
        body();
        return exit_fiber(state);
      });
}

} // namespace simt::sim
