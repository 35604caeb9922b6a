// simt._simt: the compiler and the simulator as the Python package (python/simt) uses them.
#include "frontend/compile.h"
#include "frontend/conversion.h"
#include "gpu/gpu_backend.h"
#include "gpu/ptx.h"
#include "ir/bf16.h"
#include "ir/compile_interrupt.h"
#include "ir/libdevice.h"
#include "pybind/abort_log.h"
#include "pybind/cache_binding.h"
#include "pybind/checker_binding.h"
#include "pybind/compile_options_binding.h"
#include "pybind/compile_section.h"
#include "pybind/compiled_kernel.h"
#include "pybind/debugger_binding.h"
#include "pybind/describe_type.h"
#include "pybind/fatal_error.h"
#include "pybind/global_value_binding.h"
#include "pybind/own_stack.h"
#include "pybind/py_resolver.h"
#include "sim/host_backend.h"
#include "sim/launch.h"
#include "sim/launch_state.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <optional>

namespace py = pybind11;

namespace simt::bindings {

namespace {

py::tuple parse_signature_for_python(const std::string &text) {
  Type return_type;
  py::list args;
  for (const Type &arg : parse_signature(text, &return_type))
    args.append(describe_type(arg));
  return py::make_tuple(args, describe_type(return_type));
}

// sim::out_of_bounds_of_last_launch() taken once, each site as a launch's fault tuple
// (pybind/compiled_kernel.h) followed by what the access was.
py::list out_of_bounds_sites() {
  py::list sites;
  for (const sim::OutOfBounds &site : sim::take_out_of_bounds_of_last_launch())
    sites.append(fault_tuple(site.fault) + py::make_tuple(site.access));
  return sites;
}

// A kernel's or device function's PTX from the NVPTX backend (gpu/ptx.h), as a dict: ptx,
// entry, return_type (the typed IR's name of it), llvm_ir (when asked), and what the device-side
// exception record refers to: locations [(file, line, col, function)], raised [(class, message)].
py::dict compile_ptx(std::string name, std::string source, std::string file, int first_line,
                     uint64_t identity, py::object describe, const std::string &signature,
                     const CompileOptions &options, const std::string &cc, bool opt, bool device,
                     bool c_abi, const std::string &abi_name, bool llvm_ir,
                     const std::vector<int> &launch_bounds) {
  const FunctionSource function =
      function_source(std::move(name), std::move(source), std::move(file), first_line, identity,
                      std::move(describe));
  gpu::PtxOptions ptx_options;
  ptx_options.cc = cc;
  ptx_options.opt = opt;
  ptx_options.abi = gpu::EntryAbi{device, c_abi, abi_name};
  if (launch_bounds.size() > 3)
    throw std::invalid_argument("simt: launch_bounds has at most three values");
  int *bounds[] = {&ptx_options.abi.max_threads_per_block,
                   &ptx_options.abi.min_blocks_per_multiprocessor,
                   &ptx_options.abi.max_blocks_per_cluster};
  for (size_t i = 0; i < launch_bounds.size(); ++i)
    *bounds[i] = launch_bounds[i];
  ptx_options.llvm_ir = llvm_ir;
  gpu::CompiledPtx compiled;
  std::string return_type;
  const CompileScope scope;
  const CompileInProgress compiling;
  install_interrupt_handler();
  run_on_compile_stack([&] {
    const std::vector<Type> arg_types = parse_signature(signature);
    ir::Module module = device ? compile_device_function(function, arg_types, options)
                               : compile_kernel(function, arg_types, options);
    return_type = module.kernel().return_type.str();
    const CompileSection backend_part;
    compiled = gpu::compile_ptx(module, ptx_options);
  });
  py::list locations, raised;
  for (const codegen::CodeLocation &where : compiled.locations)
    locations.append(py::make_tuple(where.file, where.line, where.col, where.function));
  for (const gpu::RaiseSite &site : compiled.raised)
    raised.append(py::make_tuple(site.exception, site.message));
  py::dict result;
  result["ptx"] = compiled.ptx;
  result["entry"] = compiled.entry;
  result["free_arrays"] = compiled.free_arrays; // "" unless the kernel allocates arrays
  result["return_type"] = return_type;
  result["llvm_ir"] = compiled.llvm_ir;
  result["locations"] = locations;
  result["raised"] = raised;
  return result;
}

// The backend of a target's name (SIMT_TARGET): made at its first use, once per process (the
// simulator's once per set of its options). Called with the GIL held.
codegen::Backend &backend(const std::string &target, const sim::SimOptions &sim_options) {
  if (target == "sim") {
    static std::map<std::string, std::unique_ptr<sim::HostBackend>> hosts; // by options' key
    std::unique_ptr<sim::HostBackend> &host = hosts[sim_options.key()];
    if (host == nullptr)
      host = std::make_unique<sim::HostBackend>(sim_options);
    return *host;
  }
  if (target == "gpu") {
    static gpu::GpuBackend device; // GpuUnavailable (one line) when there is no GPU: retried
    return device;
  }
  throw std::invalid_argument("simt: unknown target '" + target + "' (sim or gpu)");
}

std::shared_ptr<CompiledKernel> compile(std::string name, std::string source, std::string file,
                                        int first_line, uint64_t identity, py::object describe,
                                        const std::string &signature, const CompileOptions &options,
                                        const std::string &target,
                                        const sim::SimOptions &sim_options,
                                        const std::vector<std::string> &link) {
  const FunctionSource kernel = function_source(std::move(name), std::move(source), std::move(file),
                                                first_line, identity, std::move(describe));
  return std::make_shared<CompiledKernel>(kernel, parse_signature(signature), options,
                                          backend(target, sim_options), link);
}

// The libdevice table (ir/libdevice.def) in Numba's terms: name -> (return type, [(param,
// type, is_output)]), types as Numba prints them ("none" for void).
py::dict libdevice_functions() {
  auto type_name = [](ir::LibdeviceType type) -> std::string {
    return type == ir::LibdeviceType::Void ? "none" : scalar_name(ir::libdevice_scalar(type));
  };
  py::dict table;
  for (int i = 0; i < ir::kLibdeviceCount; ++i) {
    const ir::LibdeviceInfo &info = ir::libdevice_info(ir::Libdevice(i));
    py::list params;
    for (const ir::LibdeviceParam &p : info)
      params.append(py::make_tuple(p.name, type_name(p.type), p.output));
    table[py::str(info.name)] = py::make_tuple(type_name(info.result), params);
  }
  return table;
}

// The numba.cuda.bf16 table (ir/bf16.def): name -> (alias, return type, parameter type,
// arity, math function), types as numba-cuda prints them; in the table's order.
py::dict bf16_functions() {
  py::dict table;
  for (int i = 0; i < ir::kBf16Count; ++i) {
    const ir::Bf16Info &info = ir::bf16_info(ir::Bf16Fn(i));
    table[py::str(info.name)] = py::make_tuple(info.alias, scalar_name(info.result),
                                               scalar_name(info.param), int(info.arity), info.math);
  }
  return table;
}

py::dict fp8_functions() {
  py::dict table;
  for (int i = 0; i < ir::kFp8Count; ++i) {
    const ir::Fp8Info &info = ir::fp8_info(ir::Fp8Fn(i));
    static constexpr const char *kTargets[] = {"fp8", "e8m0", "bf16raw"}; // by Fp8Target
    table[py::str(info.name)] =
        py::make_tuple(info.param_type().str(), info.result().str(), kTargets[int(info.target)]);
  }
  return table;
}

py::dict fp8_types() {
  static constexpr const char *kEncodings[] = {"E4M3", "E5M2", "E8M0"}; // by Fp8Encoding
  py::dict table;
  for (int i = 0; i < ir::kFp8TypeCount; ++i) {
    const ir::Fp8TypeInfo &info = ir::fp8_type_info(ir::Fp8Type(i));
    table[py::str(info.name)] = py::make_tuple(kEncodings[int(info.encoding)], info.lanes);
  }
  return table;
}

py::list fp8_formats() {
  py::list formats;
  for (int i = 0; i < ir::kFp8FormatCount; ++i)
    formats.append(ir::fp8_format(i).name);
  return formats;
}

// The host's casting rules by the Numba release that made them ("0.56", "0.59").
void set_casting_rules_for_python(const std::string &numba_release) {
  if (numba_release == "0.56")
    set_casting_rules(CastingRules::Numba056);
  else if (numba_release == "0.59")
    set_casting_rules(CastingRules::Numba059);
  else
    throw std::invalid_argument("simt: no casting rules of Numba " + numba_release);
}

// Conversion's kind between scalar types by name (0 exact ... 3 unsafe), None where there is no
// implicit one: what the dispatcher rates arguments by, from the compiler's own table.
std::optional<int> scalar_conversion(const std::string &from, const std::string &to) {
  Scalar a, b;
  if (!parse_numba_type_name(from, a) || !parse_numba_type_name(to, b))
    throw std::invalid_argument("simt: no scalar type '" +
                                (parse_numba_type_name(from, a) ? to : from) + "'");
  Conversion kind = conversion(a, b);
  return kind == Conversion::Never ? std::nullopt : std::optional<int>(int(kind));
}

// CompileError -> simt.errors.CompileError, with the parts as attributes.
void translate_compile_error(std::exception_ptr error) {
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const CompileError &e) {
    py::object cls = py::module_::import("simt.errors").attr("CompileError");
    py::object exc = cls(e.what(), e.file, e.line, e.col, e.message, e.source_line);
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (const CompileInterrupted &e) {
    // Python's handler runs now (the main thread's raises KeyboardInterrupt); elsewhere, or when
    // a handler returns, the compile still did not finish.
    if (PyErr_CheckSignals() == 0)
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
  }
}

// The compiler: casting rules, signatures, kernels for the simulator and PTX.
void bind_compiler(py::module_ &m) {
  m.def("set_casting_rules", &set_casting_rules_for_python, py::arg("numba_release"),
        "Numba's casting rules of a release ('0.56', or '0.59' and later), for this process.");
  m.def("scalar_conversion", &scalar_conversion, py::arg("from_type"), py::arg("to_type"),
        "The implicit conversion's kind between scalar types: 0 exact, 1 promote, 2 safe, 3 "
        "unsafe, None when there is none.");
  m.def("parse_signature", &parse_signature_for_python, py::arg("signature"),
        "Parses a Numba signature: ([argument types], return type), each type None, "
        "('scalar', name), ('array', dtype, ndim, layout, readonly), ('tuple', [types]) or "
        "('record', [(name, scalar, offset, shape)], size, aligned) (also an array's dtype).");
  m.def("compile", &compile, py::arg("name"), py::arg("source"), py::arg("file"),
        py::arg("first_line"), py::arg("identity"), py::arg("resolver"), py::arg("signature"),
        py::arg("options") = CompileOptions{}, py::arg("target") = "sim",
        py::arg("sim_options") = sim::SimOptions{}, py::arg("link") = std::vector<std::string>{},
        "Compiles a kernel from its source for the argument types of `signature` with `options` "
        "(a CompileOptions) for `target` ('sim' or 'gpu'; the simulator runs it as `sim_options`, "
        "a SimOptions, say); `resolver` describes its global and closure names "
        "(simt/compiler/resolver.py).");
  m.def("compile_ptx", &compile_ptx, py::arg("name"), py::arg("source"), py::arg("file"),
        py::arg("first_line"), py::arg("identity"), py::arg("resolver"), py::arg("signature"),
        py::arg("options"), py::arg("cc"), py::arg("opt"), py::arg("device"), py::arg("c_abi"),
        py::arg("abi_name"), py::arg("llvm_ir"), py::arg("launch_bounds") = std::vector<int>{},
        "PTX from LLVM's NVPTX backend for compute capability `cc` (\"sm_75\") with `options` (a "
        "CompileOptions: its error model, debug_info and fastmath): a dict of ptx, "
        "entry, return_type, llvm_ir, locations and raised.");
}

// The tables kernels' functions come from (libdevice, bf16, FP8), for simt's Python stubs.
void bind_tables(py::module_ &m) {
  m.def("libdevice_functions", &libdevice_functions,
        "The libdevice functions kernels may call (numba.cuda.libdevice), in the table's order: "
        "{name: (return type, [(parameter, type, is_output)])}, types named as Numba names them.");
  m.def("bf16_functions", &bf16_functions,
        "The numba.cuda.bf16 functions kernels may call, in the table's order: {name: (alias, "
        "return type, parameter type, arity, math function overloaded or '')}.");
  m.def("fp8_functions", &fp8_functions,
        "numba-cuda's FP8 conversion intrinsics kernels may call, in the table's order: {name: "
        "(value type, result type, 'fp8', 'e8m0' or 'bf16raw')}.");
  m.def("fp8_types", &fp8_types,
        "numba-cuda's FP8 value types, in the table's order: {name: (encoding, lanes)}.");
  m.def("fp8_formats", &fp8_formats, "fp8_interpretation_t's members by value: ['E4M3', 'E5M2'].");
  m.def(
      "bfloat16_bits",
      [](double value) { return simt::bfloat16_bits(simt::round_to_bfloat16(value)); },
      py::arg("value"),
      "The bit pattern of `value` rounded once to the nearest bfloat16 (ties to even).");
}

// The simulator's runtime: tier-ups, kernel allocations, workers, the last launch's findings.
void bind_runtime(py::module_ &m) {
  m.def(
      "finish_tier_ups",
      [] {
        py::gil_scoped_release release;
        simt::sim::finish_tier_ups();
      },
      "Waits until no kernel is being recompiled at its full level in the background.");
  m.def(
      "kernel_allocation_counts",
      [] {
        return py::make_tuple(simt::sim::KernelHeap::allocations.load(),
                              simt::sim::KernelHeap::frees.load());
      },
      "(allocated, freed): the arrays kernels allocated and the launches' ends freed so far.");
  m.def("worker_count", &simt::sim::worker_count,
        "Worker threads blocks are spread over (SIMT_THREADS, else one per core).");

  m.def("take_last_launch_out_of_bounds", &out_of_bounds_sites,
        "The out-of-bounds sites of this thread's last launch under SIMT_BOUNDSCHECK=warn, once "
        "(a second call gives none): each a fault tuple (as launch() gives) and the access.");
  m.def("last_launch_undefined_shuffles", &simt::sim::undefined_shuffles_of_last_launch,
        "How many shuffles of this thread's last launch read a lane CUDA leaves undefined.");
}

// A compiled kernel (simt/compiler/dispatcher.py launches it).
void bind_kernel(py::module_ &m) {
  py::class_<CompiledKernel, std::shared_ptr<CompiledKernel>>(m, "Kernel")
      .def_property_readonly("name", &CompiledKernel::name)
      .def_property_readonly("static_shared_bytes", &CompiledKernel::static_shared_bytes)
      .def_property_readonly("uses_barrier", &CompiledKernel::uses_barrier)
      .def_property_readonly("uses_atomics", &CompiledKernel::uses_atomics)
      .def_property_readonly("options", &CompiledKernel::options)
      .def_property_readonly("uses_breakpoint", &CompiledKernel::uses_breakpoint)
      .def_property_readonly("block_strategy", &CompiledKernel::block_strategy)
      .def_property_readonly("fission_obstacle", &CompiledKernel::fission_obstacle)
      .def_property_readonly("cooperative", &CompiledKernel::cooperative)
      .def_property_readonly("tier", &CompiledKernel::tier,
                             "'quick' or 'full': the code the next launch runs "
                             "(SIMT_OPT_TIER).")
      .def(
          "max_cooperative_grid_blocks",
          [](const CompiledKernel &kernel, const py::object &blockdim,
             const py::object &dynsmemsize) {
            // Checked as launches check them (simt/compiler/dispatcher.py): TypeError or
            // ValueError naming a value that is not an integer CUDA can take.
            py::module_ dispatcher = py::module_::import("simt.compiler.dispatcher");
            py::object dims = dispatcher.attr("_normalize_dim")(blockdim, "blockdim");
            py::object shared = dispatcher.attr("_check_launch_value")(dynsmemsize, "dynsmemsize");
            return kernel.max_cooperative_grid_blocks(dims, shared.cast<int64_t>());
          },
          py::arg("blockdim"), py::arg("dynsmemsize") = 0,
          "The most blocks of `blockdim` threads a cooperative launch may have.")
      .def_property_readonly("signature",
                             [](const CompiledKernel &k) {
                               std::string text = "void(";
                               for (size_t i = 0; i < k.arg_types().size(); ++i)
                                 text += (i ? ", " : "") + k.arg_types()[i].str();
                               return text + ")";
                             })
      .def("ir", &CompiledKernel::ir, "The typed IR dump.")
      .def("local_types", &CompiledKernel::local_types,
           "[(name, type)] of the kernel's Python variables (type as Numba spells it).")
      .def_property_readonly(
          "_type_annotation",
          [](py::object self) {
            return py::module_::import("simt.compiler.dispatcher").attr("TypeAnnotation")(self);
          },
          "Numba's type annotation of the kernel: its typemap of variables to Numba types.")
      .def("llvm_ir", &CompiledKernel::llvm_ir, "The optimised LLVM IR the simulator runs.")
      .def("launch", &CompiledKernel::launch, py::arg("griddim"), py::arg("blockdim"),
           py::arg("sharedmem"), py::arg("args"), py::arg("debugger") = nullptr,
           py::arg("checker") = nullptr,
           "Runs the kernel (under `debugger`, a Debugger, or `checker`, a Checker, when given); "
           "returns None or the first fault as (exception, message, tid, ctaid, file, line, col, "
           "function).");
}

} // namespace

} // namespace simt::bindings

PYBIND11_MODULE(_simt, m) {
  using namespace simt::bindings;
  m.doc() = "simt's compiler and simulator";
  install_abort_log();
  install_fatal_error_handler(m);
  py::register_exception_translator(translate_compile_error);
  // pybind11's NumPy API table is a function-local static whose initialiser imports NumPy, which
  // may release the GIL: a thread waiting on its guard with the GIL held would deadlock with the
  // importing one (four threads' first launches at once: numba-cuda's test_multithreads). Made
  // here, under the import's GIL, before any thread can race for it.
  py::detail::npy_api::get();
  // The host's casting rules, before anything is typed (python/simt/base/host.py tells which).
  set_casting_rules_for_python(
      py::str(py::module_::import("simt.base.host").attr("casting_rules_release")()));

  bind_compile_options(m);
  bind_global_value(m);
  bind_compiler(m);
  bind_tables(m);
  bind_runtime(m);
  bind_kernel(m);
  bind_debugger(m);
  bind_checker(m);
  bind_link_cache(m);
  // Launches still running at exit (on daemon threads) and a recompile in progress must end before
  // C++ static objects are destroyed: Python's atexit handlers run before them.
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    py::gil_scoped_release release;
    simt::sim::stop_launches_at_exit(std::chrono::seconds(10));
    simt::sim::stop_tier_ups();
    wait_for_compiles_at_exit(std::chrono::seconds(30));
  }));
}
