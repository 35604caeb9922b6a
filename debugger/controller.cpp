#include "debugger/controller.h"

#include "sim/thread_state.h"

#include <algorithm>

namespace simt::debugger {

namespace {

using Phase = sim::ThreadState::Phase;

// Whether a statement of `location_file` is in the file a breakpoint names: the same path, or a
// path ending in it ("kernels.py", "pkg/kernels.py").
bool same_file(const std::string &location_file, const std::string &file) {
  if (location_file == file)
    return true;
  return location_file.size() > file.size() && location_file.ends_with(file) &&
         location_file[location_file.size() - file.size() - 1] == '/';
}

} // namespace

int Controller::add_breakpoint(std::string file, int line, bool temporary) {
  const int number = next_number_++;
  Breakpoint &added = breakpoints_[number];
  added.number = number;
  added.file = std::move(file);
  added.line = line;
  added.temporary = temporary;
  resolve(added);
  return number;
}

bool Controller::remove_breakpoint(int number) {
  return breakpoints_.erase(number) + watchpoints_.erase(number) > 0;
}

int Controller::add_watchpoint(uintptr_t address, uint32_t size, bool reads) {
  const int number = next_number_++;
  watchpoints_[number] = Watchpoint{number, address, size, reads};
  return number;
}

bool Controller::memory_access(sim::ThreadContext &thread, const sim::MemoryAccess &access) {
  if (killed_ || watchpoints_.empty())
    return false;
  const uintptr_t first = reinterpret_cast<uintptr_t>(access.address);
  for (const auto &[number, watch] : watchpoints_) {
    const bool overlaps = first < watch.address + watch.size && watch.address < first + access.size;
    const bool wanted = access.kind == codegen::AccessKind::Atomic ||
                        (access.kind == codegen::AccessKind::Load) == watch.reads;
    if (!overlaps || !wanted)
      continue;
    focus_ = index_of(thread);
    StopEvent event{StopReason::Watch, focus_, access.loc, number, ""};
    event.access = access.kind;
    event.value = access.value;
    pending_.push_back(event);
    return true;
  }
  return false;
}

Breakpoint *Controller::breakpoint(int number) {
  auto found = breakpoints_.find(number);
  return found == breakpoints_.end() ? nullptr : &found->second;
}

int Controller::line_with_code(const sim::KernelCode &kernel, const std::string &file, int line) {
  int best = 0;
  for (const sim::SourceLocation &where : kernel.locations)
    if (where.line >= line && same_file(where.file, file) && (best == 0 || where.line < best))
      best = where.line;
  return best;
}

void Controller::resolve(const Breakpoint &added) {
  if (kernel_ == nullptr)
    return;
  const int line = line_with_code(*kernel_, added.file, added.line);
  for (size_t loc = 0; loc < kernel_->locations.size(); ++loc) {
    const sim::SourceLocation &where = kernel_->locations[loc];
    if (line != 0 && where.line == line && same_file(where.file, added.file))
      at_loc_[loc].push_back(added.number);
  }
}

bool Controller::set_focus(size_t index) {
  if (index >= threads_.size())
    return false;
  focus_ = index;
  return true;
}

void Controller::run_until(int line) {
  const sim::ThreadState &focus = threads_[focus_];
  std::string file;
  if (!focus.call_stack.empty() && focus.call_stack.back().loc >= 0)
    file = kernel_->locations[size_t(focus.call_stack.back().loc)].file;
  const int number = add_breakpoint(file, line, /*temporary=*/true);
  breakpoints_[number].only_thread = focus_;
  breakpoints_[number].internal = true;
  mode_ = Command::Continue;
}

void Controller::launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config) {
  kernel_ = &kernel;
  config_ = &config;
  killed_ = false;
  mode_ = Command::Continue;
  pending_.clear();
  focus_ = 0;
  launch_stop_ = break_on_launch;
  interrupt_requested_.store(false);
  at_loc_.assign(kernel.locations.size(), {});
  for (auto &[number, added] : breakpoints_) {
    added.program.reset(); // frame layouts differ from kernel to kernel
    resolve(added);
  }
}

void Controller::launch_finished(const std::optional<sim::Fault> &) {
  threads_ = {};
  kernel_ = nullptr;
  config_ = nullptr;
  // until's one-shot breakpoints end with the launch.
  std::erase_if(breakpoints_, [](const auto &entry) { return entry.second.internal; });
}

size_t Controller::index_of(const sim::ThreadContext &thread) const {
  const size_t nx = size_t(thread.ntid[0]), ny = size_t(thread.ntid[1]);
  return size_t(thread.tid[0]) + nx * (size_t(thread.tid[1]) + ny * size_t(thread.tid[2]));
}

bool Controller::condition_holds(const Breakpoint &b, const sim::ThreadContext &thread) {
  if (b.program) {
    const auto stack = sim::call_stack(thread);
    const void *locals = stack.empty() ? nullptr : stack.back().locals;
    if (std::optional<bool> holds = evaluate(*b.program, thread, locals))
      return *holds;
  }
  return callbacks_.condition(b.number, thread);
}

int Controller::breakpoint_hit(sim::ThreadContext &thread, int32_t loc) {
  if (size_t(loc) >= at_loc_.size() || at_loc_[size_t(loc)].empty())
    return 0;
  const size_t index = index_of(thread);
  for (int number : at_loc_[size_t(loc)]) {
    Breakpoint *hit = breakpoint(number);
    if (hit == nullptr || !hit->enabled || (hit->only_thread && *hit->only_thread != index))
      continue;
    if (hit->conditional && !condition_holds(*hit, thread))
      continue;
    ++hit->hits;
    if (hit->ignore > 0) {
      --hit->ignore;
      continue;
    }
    if (hit->temporary)
      breakpoints_.erase(number);
    return number;
  }
  return 0;
}

bool Controller::statement(sim::ThreadContext &thread, int32_t loc) {
  if (killed_) {
    thread.status = 1; // returns at once (the lowering checks it after the hook)
    return false;
  }
  const size_t index = index_of(thread);
  if (interrupt_requested_.exchange(false)) {
    focus_ = index;
    pending_.push_back(StopEvent{StopReason::Interrupt, index, loc, 0, ""});
    return true;
  }
  if (launch_stop_) {
    launch_stop_ = false;
    focus_ = index;
    pending_.push_back(StopEvent{StopReason::Launch, index, loc, 0, ""});
    return true;
  }
  if (mode_ != Command::Continue && index == focus_) {
    const size_t depth = sim::call_stack(thread).size();
    const bool done = mode_ == Command::Step || (mode_ == Command::Next && depth <= step_depth_) ||
                      (mode_ == Command::Finish && depth < step_depth_);
    if (done) {
      pending_.push_back(StopEvent{StopReason::Step, index, loc, 0, std::move(barrier_note_)});
      barrier_note_.clear();
      return true;
    }
  }
  if (const int number = breakpoint_hit(thread, loc)) {
    focus_ = index;
    pending_.push_back(StopEvent{StopReason::Breakpoint, index, loc, number, ""});
    return true;
  }
  return false;
}

bool Controller::fault(sim::ThreadContext &thread, const sim::Fault &fault) {
  if (killed_)
    return false;
  const size_t index = index_of(thread);
  const auto stack = sim::call_stack(thread);
  focus_ = index;
  pending_.push_back(StopEvent{StopReason::Fault, index, stack.empty() ? -1 : stack.back().loc, 0,
                               fault.exception + ": " + fault.message});
  return true;
}

bool Controller::breakpoint_called(sim::ThreadContext &thread, int32_t loc) {
  if (killed_)
    return false;
  focus_ = index_of(thread);
  pending_.push_back(StopEvent{StopReason::Breakpoint, focus_, loc, 0, "breakpoint()"});
  return true;
}

void Controller::thread_exited(const sim::ThreadContext &thread) {
  if (mode_ != Command::Continue && !killed_ && index_of(thread) == focus_)
    pending_.push_back(StopEvent{StopReason::Exited, focus_, -1, 0, ""});
}

void Controller::handle_stops() {
  while (!pending_.empty()) {
    const StopEvent event = pending_.front();
    pending_.erase(pending_.begin());
    if (killed_)
      continue;
    at_prompt_.store(true);
    const Command command = callbacks_.stopped(event);
    at_prompt_.store(false);
    killed_ = command == Command::Kill;
    mode_ = killed_ ? Command::Continue : command;
    barrier_note_.clear();
    if (mode_ != Command::Continue && focus_ < threads_.size())
      step_depth_ = threads_[focus_].call_stack.size();
  }
}

size_t Controller::next(std::span<const sim::ThreadState> threads, size_t previous) {
  threads_ = threads;
  const bool stopped = !pending_.empty();
  handle_stops();
  if (mode_ == Command::Continue || focus_ >= threads_.size() ||
      threads_[focus_].phase == Phase::Finished) {
    // The thread that just stopped goes on first, where it stopped.
    if (stopped && previous != none && threads_[previous].phase == Phase::Stopped)
      return previous;
    return sim::round_robin_next(threads_, previous);
  }
  const sim::ThreadState &focus = threads_[focus_];
  // The focused thread alone steps, unless it waits for the others: at a barrier or warp
  // operation (they are brought to it), or spinning (they get their turn after it).
  if (sim::can_run(focus) && !(focus.phase == Phase::Yielded && previous == focus_))
    return focus_;
  if (focus.phase == Phase::Parked && barrier_note_.empty())
    barrier_note_ = "the other threads of the block ran to the barrier at line " +
                    std::to_string(kernel_->locations[size_t(focus.barrier_loc)].line) +
                    ", which released";
  size_t other = sim::round_robin_next(threads_, previous);
  if (other == focus_)
    other = sim::round_robin_next(threads_, other);
  return other;
}

} // namespace simt::debugger
