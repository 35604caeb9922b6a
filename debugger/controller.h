// The debugger's hold on a launch: an observer of its statements and faults (sim/observer.h) and
// the choice of which fiber runs next (sim/block_scheduler.h), so it stops, steps and resumes
// single threads. It knows breakpoints by source line and the stepping commands; what the user
// sees and types (the prompt, printing values, evaluating conditions) is its caller's, reached
// through Callbacks while every thread of the block is parked.
#pragma once

#include "debugger/condition.h"
#include "sim/block_scheduler.h"
#include "sim/observer.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace simt::debugger {

// Why the launch stopped (every thread of the running block parked, the REPL's turn).
enum class StopReason {
  Launch,     // the first statement of the launch (set cuda break_on_launch)
  Breakpoint, // a thread reached an enabled breakpoint whose condition held
  Step,       // the focused thread finished a step, next, finish or until
  Exited,     // the focused thread returned while stepping
  Fault,      // a thread faulted (post-mortem: its frames are intact)
  Barrier,    // stepping: the focused thread waits at a barrier the others are brought to
  Interrupt,  // Ctrl-C while threads ran
  Watch,      // a thread is about to access watched memory
};

struct StopEvent {
  StopReason reason = StopReason::Launch;
  size_t thread = 0;   // the thread's index in the running block (linear, x fastest)
  int32_t loc = -1;    // the statement it stopped at (KernelCode::locations), -1 when none
  int breakpoint = 0;  // Breakpoint, Watch: its number
  std::string message; // Fault: the exception and message
  // Watch: the access (before it happens) and, for a store, the value's bits.
  codegen::AccessKind access = codegen::AccessKind::Load;
  uint64_t value = 0;
};

// Memory whose accesses stop the thread that makes them (watch: stores and atomics; rwatch:
// loads and atomics).
struct Watchpoint {
  int number = 0;
  uintptr_t address = 0;
  uint32_t size = 0;
  bool reads = false; // rwatch
};

// What the threads do until the next stop.
enum class Command { Continue, Step, Next, Finish, Kill };
struct Resume {
  Command command = Command::Continue;
  bool warp = false; // step/next: the 32 lanes of the focused warp each take the step
};

struct Breakpoint {
  int number = 0;
  std::string file; // as the kernel's code objects name it (absolute path)
  int line = 0;
  bool enabled = true;
  bool temporary = false;   // tbreak: deleted at its first stop
  bool conditional = false; // Callbacks::condition decides each hit
  int ignore = 0;           // hits to pass over before stopping
  int hits = 0;
  std::optional<size_t> only_thread; // until: the focused thread's
  // The condition as a program the controller runs itself, for this launch's kernel (reset at
  // each launch; the REPL installs it at the first hit it evaluates).
  std::optional<std::vector<ConditionStep>> program;
  bool internal = false; // until's: not listed, gone when the launch ends
  // A breakpoint() call of the kernel's source (file:line): made, and numbered, when a thread
  // first calls it; it stops threads at the call, never at the line's statements.
  bool in_source = false;
};

class Controller final : public sim::Observer, public sim::FiberChoice {
public:
  struct Callbacks {
    // The REPL: runs while every thread of the block is parked; returns how to go on.
    std::function<Resume(const StopEvent &)> stopped;
    // Whether breakpoint `number`'s condition holds for the thread on `thread`.
    std::function<bool(int number, const sim::ThreadContext &thread)> condition;
  };
  explicit Controller(Callbacks callbacks) : callbacks_(std::move(callbacks)) {}

  // --- breakpoints (by source line; resolved against each launch's statements)
  int add_breakpoint(std::string file, int line, bool temporary);
  bool remove_breakpoint(int number);
  void clear_breakpoints();
  Breakpoint *breakpoint(int number);
  // Breakpoint `number`'s condition was set, replaced or removed: the program compiled from the
  // old one is dropped, so the next crossing asks Callbacks::condition. False when there is none.
  bool set_conditional(int number, bool conditional);
  const std::map<int, Breakpoint> &breakpoints() const { return breakpoints_; }
  // The first line at or after `line` of `file` holding a statement of `kernel`, or 0.
  static int line_with_code(const sim::KernelCode &kernel, const std::string &file, int line);
  bool break_on_launch = true;

  // --- watchpoints (numbered with the breakpoints)
  int add_watchpoint(uintptr_t address, uint32_t size, bool reads);
  const std::map<int, Watchpoint> &watchpoints() const { return watchpoints_; }

  // --- the running block, while stopped
  std::span<const sim::ThreadState> threads() const { return threads_; }
  const sim::KernelCode *kernel() const { return kernel_; }
  const sim::LaunchConfig *config() const { return config_; }
  size_t focus() const { return focus_; }
  // Moves the focus to thread `index` of the running block; false when there is none.
  bool set_focus(size_t index);
  // Runs the focused thread to `line` (of its innermost function's file), the others as for
  // continue: a one-shot breakpoint of that thread.
  void run_until(int line);
  // The kill command was given: every thread returns at once; the launch raises.
  bool killed() const { return killed_; }
  // Ctrl-C while threads run (async-signal-safe): the next thread to reach a statement stops.
  void request_interrupt() { interrupt_requested_.store(true); }
  // Whether the REPL runs (Ctrl-C is then its own).
  bool at_prompt() const { return at_prompt_.load(); }

  // --- sim::Observer
  bool thread_safe() const override { return false; }
  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                      void *const *args) override;
  void launch_finished(const std::optional<sim::Fault> &) override;
  bool statement(sim::ThreadContext &thread, int32_t loc) override;
  bool fault(sim::ThreadContext &thread, const sim::Fault &fault) override;
  bool breakpoint_called(sim::ThreadContext &thread, int32_t loc) override;
  bool memory_access(sim::ThreadContext &thread, const sim::MemoryAccess &access) override;
  void thread_exited(const sim::ThreadContext &thread) override;

  // --- sim::FiberChoice
  size_t next(std::span<const sim::ThreadState> threads, size_t previous) override;

private:
  size_t index_of(const sim::ThreadContext &thread) const;
  // The thread takes the focus (it stopped); whether a thread is in the focused block.
  void take_focus(const sim::ThreadContext &thread);
  bool in_focus_block(const sim::ThreadContext &thread) const;
  bool condition_holds(const Breakpoint &b, const sim::ThreadContext &thread);
  // Whether breakpoint `b`, reached by the thread on `thread` (index `index`), stops it: it is
  // enabled, for that thread, its condition holds and no ignore count is left. Counts the hit.
  bool stops(Breakpoint &b, sim::ThreadContext &thread, size_t index);
  // The breakpoint of the breakpoint() call at `where` (made at its first call), or nullptr when
  // the user deleted it.
  Breakpoint *source_breakpoint(const sim::SourceLocation &where);
  // Whether an enabled breakpoint at `loc` stops `thread` (counting its hit); its number.
  int breakpoint_hit(sim::ThreadContext &thread, int32_t loc);
  // Runs the REPL for every pending stop; then the command given decides the mode.
  void handle_stops();
  // Starts the stepping command given at a stop: who steps (the focused thread, or its warp's
  // lanes) and from which call depth.
  void start_step(const Resume &resume);
  bool stepping(size_t index) const;
  size_t next_while_stepping(size_t previous);
  // Adds the statements of the running kernel that `added` stops at.
  void resolve(const Breakpoint &added);

  Callbacks callbacks_;
  std::map<int, Breakpoint> breakpoints_;
  std::map<int, Watchpoint> watchpoints_;
  int next_number_ = 1;
  int next_internal_number_ = -1; // until's breakpoints, numbered apart
  // The breakpoint() calls (file, line) whose breakpoints were deleted: they no longer stop.
  std::set<std::pair<std::string, int>> deleted_calls_;
  std::vector<std::vector<int>> at_loc_; // this launch: breakpoint numbers by statement
  const sim::KernelCode *kernel_ = nullptr;
  const sim::LaunchConfig *config_ = nullptr;
  std::span<const sim::ThreadState> threads_;
  std::vector<StopEvent> pending_;
  Command mode_ = Command::Continue;
  size_t focus_ = 0;                     // in the focused block, x fastest
  std::array<int32_t, 3> focus_block_{}; // its block
  std::vector<size_t> steppers_;         // the threads whose step is not done yet
  std::vector<size_t> stepped_;          // those whose step is done (they wait, stopped)
  std::map<size_t, size_t> depth_;       // each stepper's call depth when the step began
  std::set<size_t> unstarted_;           // steppers not started when the step began
  std::map<size_t, int> line_;           // each stepper's line: a step ends on another line or call
  bool launch_stop_ = false;             // the first statement of this launch stops
  std::string barrier_note_;             // this step brought the other threads to a barrier
  bool killed_ = false;
  std::atomic<bool> interrupt_requested_{false};
  std::atomic<bool> at_prompt_{false};
};

} // namespace simt::debugger
