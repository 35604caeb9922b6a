// The runtime's event interface (sim/observer.h) seen by a recording observer, and the scheduling
// loop's pluggable FiberChoice (sim/block_scheduler.h).
#include "sim/block_scheduler.h"
#include "sim/jit.h"
#include "sim/launch.h"
#include "sim/observer.h"
#include "sim/thread_state.h"
#include "tests/unit/ir_builder.h"

#include <doctest/doctest.h>

#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace simt;
using namespace simt::irb;

namespace {

struct ArrayArg {
  std::vector<int64_t> header;
  template <typename T> explicit ArrayArg(std::vector<T> &values) {
    header = {int64_t(reinterpret_cast<intptr_t>(values.data())), int64_t(values.size()),
              int64_t(sizeof(T))};
  }
  void *ptr() { return header.data(); }
};

// Every event as one line of text, with the thread's x id where there is a thread.
class Recorder : public sim::Observer {
public:
  std::vector<std::string> events;
  std::set<std::thread::id> workers;
  std::vector<int64_t> locals_seen; // slot `watched_slot` of the innermost frame at `watched_line`
  int watched_slot = -1, watched_line = -1;
  const sim::KernelCode *code = nullptr;
  int stop_thread = -1; // stops this thread at its first statement, and at its fault
  int stops = 0;

  void launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &,
                      void *const *) override {
    code = &kernel;
    add("launch");
  }
  void launch_finished(const std::optional<sim::Fault> &fault) override {
    add(fault ? "end " + fault->exception : "end");
  }
  void block_started(const sim::ThreadContext &b) override {
    workers.insert(std::this_thread::get_id());
    add("block " + std::to_string(b.ctaid[0]));
  }
  void block_finished(const sim::ThreadContext &b) override {
    add("block end " + std::to_string(b.ctaid[0]));
  }
  void thread_exited(const sim::ThreadContext &t) override { add("exit", &t); }
  bool statement(sim::ThreadContext &t, int32_t loc) override {
    add("line " + std::to_string(code->locations[size_t(loc)].line), &t);
    auto stack = sim::call_stack(t);
    if (code->locations[size_t(loc)].line == watched_line && !stack.empty() &&
        stack.back().loc == loc) {
      const codegen::FrameLayout &frame = code->frames[size_t(stack.back().function)];
      int64_t value = 0;
      std::memcpy(&value,
                  static_cast<char *>(stack.back().locals) + frame.slots[watched_slot].offset,
                  sizeof value);
      locals_seen.push_back(value);
    }
    return t.tid[0] == stop_thread && stops++ == 0;
  }
  void function_entered(sim::ThreadContext &t, const sim::CallFrame &frame) override {
    add("enter " + code->frames[size_t(frame.function)].function, &t);
  }
  void function_left(sim::ThreadContext &t) override { add("leave", &t); }
  bool memory_access(sim::ThreadContext &t, const sim::MemoryAccess &access) override {
    add(std::string(access.kind == codegen::AccessKind::Load ? "load " : "store ") +
            std::to_string(access.size),
        &t);
    return false;
  }
  void barrier_arrived(sim::ThreadContext &t, int32_t, bool) override { add("arrive", &t); }
  void barrier_released(const sim::ThreadContext &, int32_t, bool) override { add("release"); }
  bool fault(sim::ThreadContext &t, const sim::Fault &f) override {
    add("fault " + f.exception + " frames " + std::to_string(sim::call_stack(t).size()), &t);
    return t.tid[0] == stop_thread;
  }

  size_t count(const std::string &event) const {
    size_t n = 0;
    for (const std::string &e : events)
      n += e == event;
    return n;
  }

private:
  void add(std::string event, const sim::ThreadContext *t = nullptr) {
    if (t != nullptr)
      event += " @" + std::to_string(t->tid[0]);
    std::lock_guard lock(mutex_);
    events.push_back(std::move(event));
  }
  std::mutex mutex_;
};

sim::LaunchConfig config(uint32_t grid, uint32_t block) {
  sim::LaunchConfig c;
  c.grid.x = grid;
  c.block.x = block;
  return c;
}

// out[i] = a[i] * 2 (line 2, after i = cuda.grid(1) on line 1), instrumented for the debugger.
ir::Module doubling_kernel() {
  FunctionBuilder k("double", true);
  int a = k.param("a", array(Scalar::I64, 1));
  int out = k.param("out", array(Scalar::I64, 1));
  int i = k.var("i", i64());
  k.f.body = block(assign(i, grid_x(), 1),
                   store(k.get(out), list(k.get(i)),
                         binary(Op::Mul, load(k.get(a), list(k.get(i))), int_const(2)), 2));
  ir::Module m = module_of(std::move(k.f));
  m.options.instrumentation = Instrumentation::Debug;
  return m;
}

// Resumes the threads that can run from the last to the first.
class Reversed final : public sim::FiberChoice {
public:
  size_t next(std::span<const sim::ThreadState> threads, size_t previous) override {
    for (size_t i = previous == none ? threads.size() : previous; i-- > 0;)
      if (sim::can_run(threads[i]))
        return i;
    return none;
  }
};

} // namespace

TEST_CASE("an instrumented kernel reports its statements, calls and accesses, thread by thread") {
  sim::KernelCode code = sim::jit_compile(doubling_kernel());
  // The debugger's variant runs every thread on a fiber.
  REQUIRE(bool(code.thread_entry));
  REQUIRE_FALSE(bool(code.block_entry));
  REQUIRE(code.frames.size() == 1);
  std::vector<int64_t> a{1, 2, 3, 4}, out(4, 0);
  ArrayArg a1(a), a2(out);
  std::vector<void *> args{a1.ptr(), a2.ptr()};
  Recorder recorder;
  recorder.watched_slot = 2; // i
  recorder.watched_line = 2;
  sim::Observer *observers[] = {&recorder};
  CHECK_FALSE(sim::launch(code, config(1, 4), args.data(), {observers}).has_value());
  CHECK(out == std::vector<int64_t>{2, 4, 6, 8});
  const std::vector<std::string> thread_one{"enter double @1", "line 1 @1",  "line 2 @1",
                                            "load 8 @1",       "store 8 @1", "leave @1",
                                            "exit @1"};
  std::vector<std::string> seen;
  for (const std::string &e : recorder.events)
    if (e.ends_with("@1"))
      seen.push_back(e);
  CHECK(seen == thread_one);
  CHECK(recorder.events.front() == "launch");
  CHECK(recorder.events[1] == "block 0");
  CHECK(recorder.events[recorder.events.size() - 2] == "block end 0");
  CHECK(recorder.events.back() == "end");
  // At line 2, each thread's frame holds its i.
  CHECK(recorder.locals_seen == std::vector<int64_t>{0, 1, 2, 3});
}

TEST_CASE("a release kernel reports scheduler events only") {
  ir::Module m = doubling_kernel();
  m.options.instrumentation = Instrumentation::None;
  sim::KernelCode code = sim::jit_compile(m);
  CHECK(code.frames.empty());
  std::vector<int64_t> a(64, 1), out(64, 0);
  ArrayArg a1(a), a2(out);
  std::vector<void *> args{a1.ptr(), a2.ptr()};
  Recorder recorder;
  sim::Observer *observers[] = {&recorder};
  CHECK_FALSE(sim::launch(code, config(8, 8), args.data(), {observers}).has_value());
  CHECK(recorder.count("launch") == 1);
  for (int b = 0; b < 8; ++b)
    CHECK(recorder.count("block " + std::to_string(b)) == 1);
  CHECK(recorder.events.size() == 2 + 2 * 8); // no statements, accesses or calls
  // An observer that is not thread-safe sees every block from one worker.
  CHECK(recorder.workers.size() == 1);
}

TEST_CASE("a stopped thread waits for its fiber choice; the choice orders the threads") {
  sim::KernelCode code = sim::jit_compile(doubling_kernel());
  std::vector<int64_t> a{1, 2, 3, 4}, out(4, 0);
  ArrayArg a1(a), a2(out);
  std::vector<void *> args{a1.ptr(), a2.ptr()};
  Recorder recorder;
  recorder.stop_thread = 2;
  Reversed reversed;
  sim::Observer *observers[] = {&recorder};
  CHECK_FALSE(sim::launch(code, config(1, 4), args.data(), {observers, &reversed}).has_value());
  CHECK(out == std::vector<int64_t>{2, 4, 6, 8});
  std::vector<std::string> exits;
  for (const std::string &e : recorder.events)
    if (e.starts_with("exit"))
      exits.push_back(e);
  // Thread 2 stopped at its first statement: threads 1 and 0 finished before it went on.
  CHECK(exits == std::vector<std::string>{"exit @3", "exit @1", "exit @0", "exit @2"});
}

TEST_CASE("barrier events, and a fault that stops its thread with its frames intact") {
  FunctionBuilder k("fault_after_barrier", true);
  int out_slot = k.param("out", array(Scalar::I64, 1));
  int t = k.var("t", i64());
  k.f.body =
      block(assign(t, cast(special(Op::ThreadIdx), i64()), 1), syncthreads(2),
            store(k.get(out_slot), list(binary(Op::Mul, k.get(t), int_const(2))), k.get(t), 3));
  k.f.props.uses_barrier = true;
  ir::Module m = module_of(std::move(k.f));
  m.options.instrumentation = Instrumentation::Debug;
  sim::KernelCode code = sim::jit_compile(m);
  std::vector<int64_t> out(4, -1);
  ArrayArg a1(out);
  std::vector<void *> args{a1.ptr()};
  Recorder recorder;
  recorder.stop_thread = 2; // stops at its first statement, and at its fault
  sim::Observer *observers[] = {&recorder};
  std::optional<sim::Fault> fault = sim::launch(code, config(1, 4), args.data(), {observers});
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "IndexError");
  CHECK(fault->tid.x == 2);
  CHECK(recorder.count("arrive @0") == 1);
  CHECK(recorder.count("release") == 1);
  CHECK(recorder.count("fault IndexError frames 1 @2") == 1);
  CHECK(recorder.events.back() == "end IndexError");
  CHECK(out[0] == 0);
  CHECK(out[2] == 1);
  CHECK(out[3] == -1); // no thread stores after the fault
}
