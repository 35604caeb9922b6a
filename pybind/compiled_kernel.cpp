#include "pybind/compiled_kernel.h"
#include "pybind/compile_section.h"

#include "analysis/fission.h"
#include "frontend/compile.h"
#include "ir/compile_interrupt.h"
#include "pybind/marshal.h"
#include "pybind/own_stack.h"
#include "sim/chained_signal.h"
#include "sim/host_backend.h"
#include "sim/host_target.h"
#include "sim/jit.h"
#include "sim/launch_state.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace py = pybind11;

namespace simt::bindings {

namespace {

sim::Dim3 dim3_of(const std::array<int64_t, 3> &dims, const char *what) {
  for (int64_t d : dims)
    if (d < 0 || d > std::numeric_limits<uint32_t>::max())
      throw std::invalid_argument(std::string("simt: invalid ") + what + " (" +
                                  std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
                                  std::to_string(dims[2]) + ")");
  return {static_cast<uint32_t>(dims[0]), static_cast<uint32_t>(dims[1]),
          static_cast<uint32_t>(dims[2])};
}

py::tuple dim3_tuple(const sim::Dim3 &d) { return py::make_tuple(d.x, d.y, d.z); }

// Ctrl-C during a launch. The launch runs with the GIL released, so Python's handler (which only
// flags the signal for the main thread's next bytecode) cannot stop it: simt's SIGINT handler
// stops every running launch (sim::interrupt_launches; none when none runs) and then calls the
// handler it replaced, so Python still sees the signal. Installed at the first launch and kept
// (again when signal.signal replaced it). Where Ctrl-C is ignored or left to kill the process
// (SIG_IGN, SIG_DFL), it stays so.
void on_interrupt(int signal, siginfo_t *info, void *context);
// Checked at most every 100 ms: sigaction is a system call every launch would pay for.
sim::ChainedSignalHandler interrupt_handler(SIGINT, on_interrupt, /*replace_default=*/false,
                                            std::chrono::milliseconds(100));

// The launch running under the debugger, if any: Ctrl-C while its threads run stops them at their
// next statement and returns to the prompt; at the prompt it is Python's (a fresh prompt).
std::atomic<debugger::Controller *> debugged_launch{nullptr};

void on_interrupt(int signal, siginfo_t *info, void *context) {
  debugger::Controller *controller = debugged_launch.load();
  if (controller != nullptr && !controller->at_prompt()) {
    controller->request_interrupt();
    return;
  }
  if (controller == nullptr) {
    sim::interrupt_launches();
    request_compile_interrupt();
  }
  interrupt_handler.call_replaced(signal, info, context);
}

// The launch stopped for Ctrl-C: Python's handlers run now (the main thread's raises
// KeyboardInterrupt); elsewhere, or when a handler returns, the launch still did not finish.
[[noreturn]] void raise_interrupt(const sim::Fault &fault) {
  if (PyErr_CheckSignals() != 0)
    throw py::error_already_set();
  std::string text = fault.message;
  if (fault.where.line > 0)
    text += " at " + sim::file_line(fault.where) + " (thread (" + std::to_string(fault.tid.x) +
            ", " + std::to_string(fault.tid.y) + ", " + std::to_string(fault.tid.z) +
            ") of block (" + std::to_string(fault.ctaid.x) + ", " + std::to_string(fault.ctaid.y) +
            ", " + std::to_string(fault.ctaid.z) + "))";
  PyErr_SetString(PyExc_KeyboardInterrupt, text.c_str());
  throw py::error_already_set();
}

} // namespace

void install_interrupt_handler() { interrupt_handler.ensure_installed(); }

CompiledKernel::CompiledKernel(const FunctionSource &source, std::vector<Type> arg_types,
                               const CompileOptions &options, codegen::Backend &backend,
                               const std::vector<std::string> &link)
    : arg_types_(std::move(arg_types)), target_(backend.name()) {
  if (const auto *host = dynamic_cast<const sim::HostBackend *>(&backend))
    sim_options_ = host->options();
  const CompileScope scope;
  const CompileInProgress compiling;
  install_interrupt_handler();
  run_on_compile_stack([&] {
    module_ = compile_kernel(source, arg_types_, options);
    const CompileSection backend_part;
    executable_ = backend.compile(module_, link);
  });
}

py::object CompiledKernel::launch(const std::array<int64_t, 3> &griddim,
                                  const std::array<int64_t, 3> &blockdim,
                                  int64_t dynamic_shared_bytes, const py::tuple &args,
                                  PyDebugger *debugger, checker::Checker *checker) const {
  if (args.size() != arg_types_.size())
    throw py::type_error("kernel " + module_.kernel().python_name + " takes " +
                         std::to_string(arg_types_.size()) + " arguments, " +
                         std::to_string(args.size()) + " given");
  if (dynamic_shared_bytes < 0)
    throw std::invalid_argument("simt: negative dynamic shared memory size");
  sim::LaunchConfig config{dim3_of(griddim, "griddim"), dim3_of(blockdim, "blockdim"),
                           static_cast<uint64_t>(dynamic_shared_bytes)};
  KernelArguments buffer(arg_types_, args);
  std::optional<sim::Fault> fault;
  {
    interrupt_handler.ensure_installed();
    py::gil_scoped_release release;
    if (debugger != nullptr)
      debugged_launch.store(&debugger->controller);
    try {
      if (debugger != nullptr)
        fault = host_executable().launch(config, buffer.pointers(), debugger->hooks());
      else if (checker != nullptr)
        fault = host_executable().launch(config, buffer.pointers(), checker->hooks());
      else
        fault = executable_->launch(config, buffer.pointers());
    } catch (...) {
      debugged_launch.store(nullptr);
      throw;
    }
    debugged_launch.store(nullptr);
    if (module_.props.uses_print)
      std::fflush(stdout);
    if (sim::exiting())
      sim::park_until_exit();
  }
  if (checker != nullptr) // a MemoryError naming the checker and the memory it needed
    checker->throw_if_out_of_memory(module_.kernel().python_name);
  if (debugger != nullptr && debugger->controller.killed())
    throw std::runtime_error("simt: kernel " + module_.kernel().python_name +
                             " killed in the debugger");
  if (!fault) {
    buffer.check_read_only_records();
    return py::none();
  }
  if (fault->exception == "KeyboardInterrupt")
    raise_interrupt(*fault);
  return fault_tuple(*fault);
}

py::tuple fault_tuple(const sim::Fault &fault) {
  const sim::SourceLocation &where = fault.where;
  return py::make_tuple(fault.exception, fault.message, dim3_tuple(fault.tid),
                        dim3_tuple(fault.ctaid), where.file, where.line, where.col, where.function,
                        codegen::fault_kind_name(fault.kind));
}

uint64_t CompiledKernel::max_cooperative_grid_blocks(const py::object &blockdim,
                                                     int64_t dynamic_shared_bytes) const {
  std::array<int64_t, 3> dims{1, 1, 1};
  if (py::isinstance<py::tuple>(blockdim) || py::isinstance<py::list>(blockdim)) {
    py::sequence items = blockdim;
    if (items.size() < 1 || items.size() > 3)
      throw std::invalid_argument("simt: blockdim must have 1, 2 or 3 dimensions");
    for (size_t i = 0; i < items.size(); ++i)
      dims[i] = items[i].cast<int64_t>();
  } else {
    dims[0] = blockdim.cast<int64_t>();
  }
  if (dynamic_shared_bytes < 0)
    throw std::invalid_argument("simt: negative dynamic shared memory size");
  return executable_->max_cooperative_blocks(dim3_of(dims, "blockdim"),
                                             static_cast<uint64_t>(dynamic_shared_bytes));
}

sim::HostExecutable &CompiledKernel::host_executable() const {
  auto *host = dynamic_cast<sim::HostExecutable *>(executable_.get());
  if (host == nullptr)
    throw std::runtime_error("simt: kernel " + name() + " is compiled for the " + target_ +
                             " target, and this needs the simulator's");
  return *host;
}

std::string CompiledKernel::block_strategy() const {
  if (target_ != "sim")
    return target_;
  switch (host_executable().code().strategy) {
  case sim::BlockStrategy::Flat:
    return "flat";
  case sim::BlockStrategy::Fission:
    return "fission";
  case sim::BlockStrategy::Fibers:
    break;
  }
  return "fibers";
}

std::string CompiledKernel::fission_obstacle() const {
  if (target_ != "sim")
    return "";
  return host_executable().code().fission_obstacle;
}

std::string CompiledKernel::tier() const {
  auto *host = dynamic_cast<sim::HostExecutable *>(executable_.get());
  return host != nullptr && host->code().tier == sim::Tier::Quick ? "quick" : "full";
}

std::string CompiledKernel::ir() const { return ir::dump(module_); }

std::vector<std::pair<std::string, std::string>> CompiledKernel::local_types() const {
  std::vector<std::pair<std::string, std::string>> types;
  for (const ir::Slot &slot : module_.kernel().slots)
    if (!slot.name.empty() && slot.name[0] != '$')
      types.emplace_back(slot.name, slot.type.str());
  return types;
}

std::string CompiledKernel::llvm_ir() const {
  const CompileScope scope;
  const CompileSection lowering;
  return sim::host_llvm_ir(module_, sim_options_);
}

} // namespace simt::bindings
