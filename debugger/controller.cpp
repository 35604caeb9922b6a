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
  if (const Breakpoint *removed = breakpoint(number); removed && removed->in_source)
    deleted_calls_.emplace(removed->file, removed->line);
  return breakpoints_.erase(number) + watchpoints_.erase(number) > 0;
}

void Controller::clear_breakpoints() {
  for (const auto &[number, b] : breakpoints_)
    if (b.in_source)
      deleted_calls_.emplace(b.file, b.line);
  breakpoints_.clear();
  watchpoints_.clear();
}

Breakpoint *Controller::source_breakpoint(const sim::SourceLocation &where) {
  for (auto &[number, b] : breakpoints_)
    if (b.in_source && b.line == where.line && b.file == where.file)
      return &b;
  if (deleted_calls_.contains({where.file, where.line}))
    return nullptr;
  const int number = next_number_++;
  Breakpoint &added = breakpoints_[number];
  added.number = number;
  added.file = where.file;
  added.line = where.line;
  added.in_source = true;
  return &added;
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
    take_focus(thread);
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

bool Controller::set_conditional(int number, bool conditional) {
  Breakpoint *changed = breakpoint(number);
  if (changed == nullptr)
    return false;
  changed->conditional = conditional;
  changed->program.reset();
  return true;
}

int Controller::line_with_code(const sim::KernelCode &kernel, const std::string &file, int line) {
  int best = 0;
  for (const sim::SourceLocation &where : kernel.locations)
    if (where.line >= line && same_file(where.file, file) && (best == 0 || where.line < best))
      best = where.line;
  return best;
}

void Controller::resolve(const Breakpoint &added) {
  if (kernel_ == nullptr || added.in_source) // a breakpoint() call stops only at the call
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
  const int number = next_internal_number_--;
  Breakpoint &added = breakpoints_[number];
  added.number = number;
  added.file = std::move(file);
  added.line = line;
  added.temporary = true;
  added.internal = true;
  added.only_thread = focus_;
  resolve(added);
  mode_ = Command::Continue;
}

void Controller::launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                                void *const *) {
  kernel_ = &kernel;
  config_ = &config;
  killed_ = false;
  mode_ = Command::Continue;
  pending_.clear();
  focus_ = 0;
  focus_block_ = {0, 0, 0};
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

void Controller::take_focus(const sim::ThreadContext &thread) {
  focus_ = index_of(thread);
  focus_block_ = {thread.ctaid[0], thread.ctaid[1], thread.ctaid[2]};
}

bool Controller::in_focus_block(const sim::ThreadContext &thread) const {
  return focus_block_ == std::array<int32_t, 3>{thread.ctaid[0], thread.ctaid[1], thread.ctaid[2]};
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
  // One stop per line: `a[i] += 1` or `x = 1; y = 2` are several statements of one line.
  const auto stack = sim::call_stack(thread);
  if (!stack.empty() && stack.back().previous_loc >= 0 &&
      kernel_->locations[size_t(stack.back().previous_loc)].line ==
          kernel_->locations[size_t(loc)].line)
    return 0;
  const size_t index = index_of(thread);
  for (int number : at_loc_[size_t(loc)]) {
    Breakpoint *hit = breakpoint(number);
    if (hit == nullptr || !stops(*hit, thread, index))
      continue;
    if (hit->temporary)
      breakpoints_.erase(number);
    return number;
  }
  return 0;
}

bool Controller::stops(Breakpoint &b, sim::ThreadContext &thread, size_t index) {
  if (!b.enabled || (b.only_thread && *b.only_thread != index))
    return false;
  if (b.conditional && !condition_holds(b, thread))
    return false;
  ++b.hits;
  if (b.ignore > 0) {
    --b.ignore;
    return false;
  }
  return true;
}

bool Controller::statement(sim::ThreadContext &thread, int32_t loc) {
  if (killed_) {
    thread.status = 1; // returns at once (the lowering checks it after the hook)
    return false;
  }
  const size_t index = index_of(thread);
  if (interrupt_requested_.exchange(false)) {
    take_focus(thread);
    pending_.push_back(StopEvent{StopReason::Interrupt, index, loc, 0, ""});
    return true;
  }
  if (launch_stop_) {
    launch_stop_ = false;
    take_focus(thread);
    pending_.push_back(StopEvent{StopReason::Launch, index, loc, 0, ""});
    return true;
  }
  if (mode_ != Command::Continue && in_focus_block(thread) && stepping(index)) {
    if (unstarted_.erase(index) > 0)
      return false; // a thread not started when the step began starts at this statement
    const size_t depth = sim::call_stack(thread).size(), start = depth_[index];
    // An augmented store (`a[i] += 1`) is two statements of one line: a step leaves the line.
    const bool moved = depth != start || kernel_->locations[size_t(loc)].line != line_[index];
    const bool done = (mode_ == Command::Step && moved) ||
                      (mode_ == Command::Next && depth <= start && moved) ||
                      (mode_ == Command::Finish && depth < start);
    if (done) {
      std::erase(steppers_, index);
      stepped_.push_back(index);
      if (steppers_.empty() && index == focus_) {
        // A step that ends on a breakpoint reports it (and counts the hit), as gdb does: it
        // ends `next N` there.
        if (const int number = breakpoint_hit(thread, loc); number > 0) {
          pending_.push_back(StopEvent{StopReason::Breakpoint, index, loc, number, ""});
          barrier_note_.clear();
          return true;
        }
      }
      if (steppers_.empty()) {
        const auto &focus = threads_[focus_].call_stack;
        const int32_t at = focus_ == index || focus.empty() ? loc : focus.back().loc;
        pending_.push_back(StopEvent{StopReason::Step, focus_, at, 0, std::move(barrier_note_)});
        barrier_note_.clear();
      }
      return true;
    }
  }
  if (const int number = breakpoint_hit(thread, loc)) {
    take_focus(thread);
    // until's own breakpoint ends a step; the user's are breakpoints.
    pending_.push_back(number < 0 ? StopEvent{StopReason::Step, index, loc, 0, ""}
                                  : StopEvent{StopReason::Breakpoint, index, loc, number, ""});
    return true;
  }
  return false;
}

bool Controller::fault(sim::ThreadContext &thread, const sim::Fault &fault) {
  if (killed_)
    return false;
  const size_t index = index_of(thread);
  const auto stack = sim::call_stack(thread);
  take_focus(thread);
  pending_.push_back(StopEvent{StopReason::Fault, index, stack.empty() ? -1 : stack.back().loc, 0,
                               fault.exception + ": " + fault.message});
  return true;
}

bool Controller::breakpoint_called(sim::ThreadContext &thread, int32_t loc) {
  if (killed_)
    return false;
  int number = 0; // a call without a source line stops, unnumbered
  if (size_t(loc) < kernel_->locations.size()) {
    Breakpoint *call = source_breakpoint(kernel_->locations[size_t(loc)]);
    if (call == nullptr || !stops(*call, thread, index_of(thread)))
      return false;
    number = call->number;
  }
  take_focus(thread);
  pending_.push_back(StopEvent{StopReason::Breakpoint, focus_, loc, number, "breakpoint()"});
  return true;
}

void Controller::thread_exited(const sim::ThreadContext &thread) {
  const size_t index = index_of(thread);
  if (mode_ == Command::Continue || killed_ || !in_focus_block(thread) || !stepping(index))
    return;
  std::erase(steppers_, index);
  if (index == focus_ && stepped_.empty() && steppers_.empty())
    pending_.push_back(StopEvent{StopReason::Exited, focus_, -1, 0, ""});
  else if (steppers_.empty())
    pending_.push_back(StopEvent{StopReason::Step, focus_, -1, 0, std::move(barrier_note_)});
}

bool Controller::stepping(size_t index) const {
  return std::find(steppers_.begin(), steppers_.end(), index) != steppers_.end();
}

void Controller::start_step(const Resume &resume) {
  steppers_.clear();
  stepped_.clear();
  depth_.clear();
  line_.clear();
  barrier_note_.clear();
  if (mode_ == Command::Continue || focus_ >= threads_.size())
    return;
  const size_t first = resume.warp ? focus_ / 32 * 32 : focus_;
  const size_t last = resume.warp ? std::min(first + 32, threads_.size()) : focus_ + 1;
  unstarted_.clear();
  for (size_t i = first; i < last; ++i) {
    if (threads_[i].phase == Phase::Finished)
      continue;
    steppers_.push_back(i);
    const auto &stack = threads_[i].call_stack;
    depth_[i] = std::max<size_t>(stack.size(), 1);
    line_[i] = stack.empty() || stack.back().loc < 0
                   ? 0
                   : kernel_->locations[size_t(stack.back().loc)].line;
    if (threads_[i].phase == Phase::NotStarted)
      unstarted_.insert(i);
  }
}

void Controller::handle_stops() {
  while (!pending_.empty()) {
    const StopEvent event = pending_.front();
    pending_.erase(pending_.begin());
    if (killed_)
      continue;
    at_prompt_.store(true);
    const Resume resume = callbacks_.stopped(event);
    at_prompt_.store(false);
    killed_ = resume.command == Command::Kill;
    mode_ = killed_ ? Command::Continue : resume.command;
    start_step(resume);
  }
}

size_t Controller::next(std::span<const sim::ThreadState> threads, size_t previous) {
  if (!threads.empty() && !in_focus_block(*threads.front().context)) {
    // Another resident block (a cooperative launch): it runs on, as in continue.
    if (previous != none && threads[previous].phase == Phase::Stopped)
      return previous;
    return sim::round_robin_next(threads, previous);
  }
  threads_ = threads;
  const bool stopped = !pending_.empty();
  handle_stops();
  if (mode_ == Command::Continue || steppers_.empty()) {
    // The thread that just stopped goes on first, where it stopped.
    if (stopped && previous != none && threads_[previous].phase == Phase::Stopped)
      return previous;
    return sim::round_robin_next(threads_, previous);
  }
  return next_while_stepping(previous);
}

// The steppers alone run, each until its step is done, unless they wait for the others: at a
// barrier or warp operation (the others are brought to it), or spinning (the others get a turn
// after one of them yields). Threads whose step is done stay stopped.
size_t Controller::next_while_stepping(size_t previous) {
  const bool stepper_yielded =
      previous != none && threads_[previous].phase == Phase::Yielded && stepping(previous);
  if (!stepper_yielded)
    for (size_t i : steppers_)
      if (sim::can_run(threads_[i]))
        return i;
  for (size_t i : steppers_)
    if (threads_[i].phase == Phase::Parked && barrier_note_.empty())
      barrier_note_ = "the other threads of the block ran to the barrier at line " +
                      std::to_string(kernel_->locations[size_t(threads_[i].barrier_loc)].line) +
                      ", which released";
  size_t other = previous;
  do
    other = sim::round_robin_next(threads_, other);
  while (other != none &&
         (stepping(other) || std::find(stepped_.begin(), stepped_.end(), other) != stepped_.end()));
  if (other == none && previous == none) {
    // A whole round with nothing to run: steppers at a warp operation or barrier wait for lanes
    // whose step is done. The step ends there.
    steppers_.clear();
    const auto &focus = threads_[focus_].call_stack;
    pending_.push_back(StopEvent{StopReason::Step, focus_, focus.empty() ? -1 : focus.back().loc, 0,
                                 "lanes at a warp operation or barrier wait for the others"});
  }
  return other;
}

} // namespace simt::debugger
