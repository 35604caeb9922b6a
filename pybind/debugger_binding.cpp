#include "pybind/debugger_binding.h"

#include "pybind/describe_type.h"
#include "sim/thread_state.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>

namespace py = pybind11;

namespace simt::bindings {

namespace {

using debugger::Command;
using debugger::StopReason;

const char *reason_name(StopReason reason) {
  switch (reason) {
  case StopReason::Launch:
    return "launch";
  case StopReason::Breakpoint:
    return "breakpoint";
  case StopReason::Step:
    return "step";
  case StopReason::Exited:
    return "exited";
  case StopReason::Fault:
    return "fault";
  case StopReason::Barrier:
    return "barrier";
  case StopReason::Interrupt:
    return "interrupt";
  case StopReason::Watch:
    return "watch";
  }
  return "?";
}

debugger::Resume command_named(const std::string &name) {
  static const std::pair<const char *, debugger::Resume> commands[] = {
      {"continue", {Command::Continue, false}}, {"step", {Command::Step, false}},
      {"next", {Command::Next, false}},         {"finish", {Command::Finish, false}},
      {"kill", {Command::Kill, false}},         {"step warp", {Command::Step, true}},
      {"next warp", {Command::Next, true}}};
  for (const auto &[text, resume] : commands)
    if (name == text)
      return resume;
  throw std::invalid_argument("simt: unknown debugger command " + name);
}

const char *phase_name(sim::ThreadState::Phase phase) {
  using Phase = sim::ThreadState::Phase;
  switch (phase) {
  case Phase::NotStarted:
    return "not started";
  case Phase::Runnable:
  case Phase::Yielded:
    return "running";
  case Phase::Stopped:
    return "stopped";
  case Phase::Parked:
    return "at barrier";
  case Phase::WarpParked:
    return "at warp op";
  case Phase::Finished:
    return "exited";
  }
  return "?";
}

const char *access_name(codegen::AccessKind kind) {
  switch (kind) {
  case codegen::AccessKind::Load:
    return "load";
  case codegen::AccessKind::Store:
    return "store";
  case codegen::AccessKind::Atomic:
    return "atomic";
  case codegen::AccessKind::Fence:
    return "fence";
  case codegen::AccessKind::LocalArray:
    return "local array";
  }
  return "?";
}

// A condition program from the REPL: [(op, offset, scalar, special, axis, value)], op as
// ConditionStep::Op's names in lower case, value an int, a float or None.
std::vector<debugger::ConditionStep> condition_program(const py::list &steps) {
  using Op = debugger::ConditionStep::Op;
  static const std::pair<const char *, Op> ops[] = {{"local", Op::Local},
                                                    {"special", Op::Special},
                                                    {"const", Op::Const},
                                                    {"element", Op::Element},
                                                    {"call", Op::Call},
                                                    {"add", Op::Add},
                                                    {"sub", Op::Sub},
                                                    {"mul", Op::Mul},
                                                    {"mod", Op::Mod},
                                                    {"truediv", Op::TrueDiv},
                                                    {"floordiv", Op::FloorDiv},
                                                    {"eq", Op::Eq},
                                                    {"ne", Op::Ne},
                                                    {"lt", Op::Lt},
                                                    {"le", Op::Le},
                                                    {"gt", Op::Gt},
                                                    {"ge", Op::Ge},
                                                    {"and", Op::And},
                                                    {"or", Op::Or},
                                                    {"not", Op::Not},
                                                    {"neg", Op::Neg}};
  std::vector<debugger::ConditionStep> program;
  for (const py::handle item : steps) {
    const py::tuple t = item.cast<py::tuple>();
    debugger::ConditionStep step;
    const std::string name = t[0].cast<std::string>();
    auto found = std::find_if(std::begin(ops), std::end(ops),
                              [&](const auto &entry) { return name == entry.first; });
    if (found == std::end(ops))
      throw std::invalid_argument("simt: unknown condition step " + name);
    step.op = found->second;
    step.offset = t[1].cast<uint64_t>();
    step.scalar = t[2].cast<std::string>();
    step.special = t[3].cast<int>();
    step.axis = t[4].cast<int>();
    if (py::isinstance<py::float_>(t[5]))
      step.value = {true, 0, t[5].cast<double>()};
    else if (!t[5].is_none())
      step.value = {false, t[5].cast<int64_t>(), 0};
    program.push_back(std::move(step));
  }
  return program;
}

py::tuple ids(const int32_t (&v)[3]) { return py::make_tuple(v[0], v[1], v[2]); }

const debugger::Controller &running(const PyDebugger &self) {
  if (self.controller.kernel() == nullptr)
    throw std::runtime_error("simt: no kernel is running under the debugger");
  return self.controller;
}

} // namespace

PyDebugger::PyDebugger(py::object stopped, py::object condition)
    : controller(debugger::Controller::Callbacks{
          [this](const debugger::StopEvent &event) {
            py::gil_scoped_acquire gil;
            try {
              return command_named(stopped_(reason_name(event.reason), event.thread, event.loc,
                                            event.breakpoint, event.message,
                                            access_name(event.access), event.value)
                                       .cast<std::string>());
            } catch (const std::exception &) { // the REPL failed: the kernel ends
              return debugger::Resume{Command::Kill, false};
            }
          },
          [this](int number, const sim::ThreadContext &thread) {
            py::gil_scoped_acquire gil;
            // Nothing may unwind into the simulator: a failing callback stops the thread.
            try {
              const size_t index =
                  size_t(thread.tid[0]) +
                  size_t(thread.ntid[0]) *
                      (size_t(thread.tid[1]) + size_t(thread.ntid[1]) * size_t(thread.tid[2]));
              return condition_(number, index).cast<bool>();
            } catch (const py::error_already_set &error) {
              return true;
            }
          }}),
      observers_{&controller}, stopped_(std::move(stopped)), condition_(std::move(condition)) {}

sim::LaunchHooks PyDebugger::hooks() { return sim::LaunchHooks{observers_, &controller}; }

namespace {

using DebuggerClass = py::class_<PyDebugger>;

// Where launches stop: breakpoints (their conditions, hit counts, enabling) and watchpoints.
void bind_stops(DebuggerClass &cls) {
  cls.def_property(
         "break_on_launch", [](const PyDebugger &self) { return self.controller.break_on_launch; },
         [](PyDebugger &self, bool on) { self.controller.break_on_launch = on; })
      .def(
          "add_breakpoint",
          [](PyDebugger &self, std::string file, int line, bool temporary) {
            return self.controller.add_breakpoint(std::move(file), line, temporary);
          },
          py::arg("file"), py::arg("line"), py::arg("temporary") = false)
      .def("remove_breakpoint",
           [](PyDebugger &self, int number) { return self.controller.remove_breakpoint(number); })
      .def(
          "add_watchpoint",
          [](PyDebugger &self, uintptr_t address, uint32_t size, bool reads) {
            return self.controller.add_watchpoint(address, size, reads);
          },
          py::arg("address"), py::arg("size"), py::arg("reads") = false)
      .def("watchpoints",
           [](const PyDebugger &self) {
             py::list out;
             for (const auto &[number, w] : self.controller.watchpoints())
               out.append(py::make_tuple(number, w.address, w.size, w.reads));
             return out;
           })
      .def("clear_breakpoints", [](PyDebugger &self) { self.controller.clear_breakpoints(); })
      .def("breakpoints",
           [](const PyDebugger &self) {
             py::list out;
             for (const auto &[number, b] : self.controller.breakpoints())
               if (!b.internal)
                 out.append(py::dict(
                     py::arg("number") = number, py::arg("file") = b.file, py::arg("line") = b.line,
                     py::arg("enabled") = b.enabled, py::arg("temporary") = b.temporary,
                     py::arg("conditional") = b.conditional, py::arg("ignore") = b.ignore,
                     py::arg("hits") = b.hits, py::arg("in_source") = b.in_source));
             return out;
           })
      .def(
          "configure_breakpoint",
          [](PyDebugger &self, int number, std::optional<bool> enabled,
             std::optional<bool> conditional, std::optional<int> ignore) {
            debugger::Breakpoint *b = self.controller.breakpoint(number);
            if (b == nullptr)
              return false;
            b->enabled = enabled.value_or(b->enabled);
            b->ignore = ignore.value_or(b->ignore);
            if (conditional)
              self.controller.set_conditional(number, *conditional);
            return true;
          },
          py::arg("number"), py::arg("enabled") = py::none(), py::arg("conditional") = py::none(),
          py::arg("ignore") = py::none())
      .def("set_condition_program", [](PyDebugger &self, int number, const py::list &steps) {
        debugger::Breakpoint *b = self.controller.breakpoint(number);
        if (b != nullptr)
          b->program = condition_program(steps);
      });
}

// The kernel being debugged: its launch, code locations, frames' layouts, threads and calls.
void bind_running_kernel(DebuggerClass &cls) {
  cls.def("line_with_code",
          [](const PyDebugger &self, const std::string &file, int line) {
            return debugger::Controller::line_with_code(*running(self).kernel(), file, line);
          })
      .def_property_readonly(
          "running", [](const PyDebugger &self) { return self.controller.kernel() != nullptr; })
      .def_property_readonly("killed",
                             [](const PyDebugger &self) { return self.controller.killed(); })
      .def_property_readonly("focus",
                             [](const PyDebugger &self) { return self.controller.focus(); })
      .def("set_focus",
           [](PyDebugger &self, size_t index) { return self.controller.set_focus(index); })
      .def("run_until", [](PyDebugger &self, int line) { self.controller.run_until(line); })
      // Pause from another thread (a DAP client's): as Ctrl-C, the next thread to reach a
      // statement stops; a request between launches is dropped when the next one starts.
      .def("interrupt", [](PyDebugger &self) { self.controller.request_interrupt(); })
      .def("kernel_name", [](const PyDebugger &self) { return running(self).kernel()->name; })
      .def("cooperative",
           [](const PyDebugger &self) { return running(self).kernel()->cooperative; })
      .def("launch_config",
           [](const PyDebugger &self) {
             const sim::LaunchConfig &c = *running(self).config();
             return py::make_tuple(py::make_tuple(c.grid.x, c.grid.y, c.grid.z),
                                   py::make_tuple(c.block.x, c.block.y, c.block.z));
           })
      .def("locations",
           [](const PyDebugger &self) {
             py::list out;
             for (const sim::SourceLocation &where : running(self).kernel()->locations)
               out.append(py::make_tuple(where.file, where.line, where.col, where.function));
             return out;
           })
      .def("layouts",
           [](const PyDebugger &self) {
             py::list out;
             for (const codegen::FrameLayout &frame : running(self).kernel()->frames) {
               py::list slots;
               for (const codegen::FrameSlot &slot : frame.slots)
                 slots.append(py::make_tuple(slot.name, describe_type(slot.type, true), slot.offset,
                                             slot.first_line, slot.last_line));
               out.append(py::make_tuple(frame.function, frame.file, frame.first_line,
                                         frame.num_params, slots));
             }
             return out;
           })
      .def("threads",
           [](const PyDebugger &self) {
             // (index, tid, ctaid, state, loc of the innermost frame or -1)
             py::list out;
             const auto threads = running(self).threads();
             for (size_t i = 0; i < threads.size(); ++i) {
               const sim::ThreadState &t = threads[i];
               const int32_t loc = t.call_stack.empty() ? -1 : t.call_stack.back().loc;
               out.append(py::make_tuple(i, ids(t.context->tid), ids(t.context->ctaid),
                                         phase_name(t.phase), loc));
             }
             return out;
           })
      .def("frames", [](const PyDebugger &self, size_t index) {
        // The calls of thread `index`, outermost first: (function, locals address, loc).
        const auto threads = running(self).threads();
        if (index >= threads.size())
          throw std::out_of_range("simt: no thread " + std::to_string(index));
        py::list out;
        for (const sim::CallFrame &frame : threads[index].call_stack)
          out.append(
              py::make_tuple(frame.function, reinterpret_cast<uintptr_t>(frame.locals), frame.loc));
        return out;
      });
}

} // namespace

void bind_debugger(py::module_ &m) {
  DebuggerClass cls(m, "Debugger");
  cls.def(py::init<py::object, py::object>(), py::arg("stopped"), py::arg("condition"));
  bind_stops(cls);
  bind_running_kernel(cls);
  cls.def_property_readonly_static(
      "condition_functions", [](const py::object &) { return debugger::condition_functions(); },
      "The math functions the controller evaluates in a condition itself (math.NAME, abs).");
}

} // namespace simt::bindings
