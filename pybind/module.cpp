// simt._simt: the compiler and the simulator as the Python package (python/simt) uses them.
#include "frontend/compile.h"
#include "frontend/libdevice.h"
#include "gpu/ptx.h"
#include "pybind/compiled_kernel.h"
#include "pybind/debugger_binding.h"
#include "pybind/describe_type.h"
#include "pybind/own_stack.h"
#include "pybind/py_resolver.h"
#include "sim/launch.h"

#include <pybind11/stl.h>

#include <memory>

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

FunctionSource function_source(std::string name, std::string source, std::string file,
                               int first_line, uint64_t identity, py::object describe) {
  FunctionSource kernel;
  kernel.name = std::move(name);
  kernel.source = std::move(source);
  kernel.file = std::move(file);
  kernel.first_line = first_line;
  kernel.identity = identity;
  kernel.resolver = std::make_shared<PyResolver>(std::move(describe));
  return kernel;
}

// The kernel's PTX for compute capability `cc` ("sm_75") and its entry's name.
py::tuple compile_ptx(std::string name, std::string source, std::string file, int first_line,
                      uint64_t identity, py::object describe, const std::string &signature,
                      bool python_error_model, const std::string &cc, bool fastmath) {
  const FunctionSource kernel = function_source(std::move(name), std::move(source), std::move(file),
                                                first_line, identity, std::move(describe));
  CompileOptions options;
  options.python_error_model = python_error_model;
  std::string ptx, entry;
  run_on_compile_stack([&] {
    ir::Module module = compile_kernel(kernel, parse_signature(signature), options);
    py::gil_scoped_release release;
    ptx = gpu::compile_ptx(module, gpu::PtxOptions{cc, fastmath}, &entry);
  });
  return py::make_tuple(ptx, entry);
}

std::shared_ptr<CompiledKernel> compile(std::string name, std::string source, std::string file,
                                        int first_line, uint64_t identity, py::object describe,
                                        const std::string &signature, bool python_error_model,
                                        const std::string &instrumentation, int opt_level) {
  const FunctionSource kernel = function_source(std::move(name), std::move(source), std::move(file),
                                                first_line, identity, std::move(describe));
  CompileOptions options;
  options.python_error_model = python_error_model;
  if (instrumentation == "debug")
    options.instrumentation = Instrumentation::Debug;
  else if (instrumentation != "none")
    throw std::invalid_argument("simt: unknown instrumentation '" + instrumentation +
                                "' (none or debug)");
  if (opt_level < 0 || opt_level > 3)
    throw std::invalid_argument("simt: opt_level must be 0 to 3, not " + std::to_string(opt_level));
  options.opt_level = opt_level;
  return std::make_shared<CompiledKernel>(kernel, parse_signature(signature), options);
}

// The libdevice table (frontend/libdevice.def) in Numba's terms: name -> (return type, [(param,
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

// CompileError -> simt.errors.CompileError, with the parts as attributes.
void translate_compile_error(std::exception_ptr error) {
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const CompileError &e) {
    py::object cls = py::module_::import("simt.errors").attr("CompileError");
    py::object exc = cls(e.what(), e.file, e.line, e.col, e.message, e.source_line);
    PyErr_SetObject(cls.ptr(), exc.ptr());
  }
}

} // namespace

} // namespace simt::bindings

PYBIND11_MODULE(_simt, m) {
  using namespace simt::bindings;
  m.doc() = "simt's compiler and simulator";
  py::register_exception_translator(translate_compile_error);

  m.def("parse_signature", &parse_signature_for_python, py::arg("signature"),
        "Parses a Numba signature: ([argument types], return type), each type None, "
        "('scalar', name), ('array', dtype, ndim, layout, readonly), ('tuple', [types]) or "
        "('record', [(name, scalar, offset, shape)], size, aligned) (also an array's dtype).");
  m.def("compile", &compile, py::arg("name"), py::arg("source"), py::arg("file"),
        py::arg("first_line"), py::arg("identity"), py::arg("resolver"), py::arg("signature"),
        py::arg("python_error_model") = false, py::arg("instrumentation") = "none",
        py::arg("opt_level") = 3,
        "Compiles a kernel from its source for the argument types of `signature`; `resolver` "
        "describes its global and closure names (simt/resolver.py); `python_error_model` is "
        "Numba's error model of debug=True (float division by zero raises); `instrumentation` "
        "'none' (release) or 'debug' (the debugger's variant); `opt_level` LLVM's, 0 to 3.");
  m.def("compile_ptx", &compile_ptx, py::arg("name"), py::arg("source"), py::arg("file"),
        py::arg("first_line"), py::arg("identity"), py::arg("resolver"), py::arg("signature"),
        py::arg("python_error_model"), py::arg("cc"), py::arg("fastmath"),
        "The kernel's PTX from LLVM's NVPTX backend for compute capability `cc` (\"sm_75\"), "
        "and its entry's name: (ptx, entry).");
  m.def("libdevice_functions", &libdevice_functions,
        "The libdevice functions kernels may call (numba.cuda.libdevice), in the table's order: "
        "{name: (return type, [(parameter, type, is_output)])}, types named as Numba names them.");
  m.def("worker_count", &simt::sim::worker_count,
        "Worker threads blocks are spread over (SIMT_THREADS, else one per core).");

  py::class_<CompiledKernel, std::shared_ptr<CompiledKernel>>(m, "Kernel")
      .def_property_readonly("name", &CompiledKernel::name)
      .def_property_readonly("static_shared_bytes", &CompiledKernel::static_shared_bytes)
      .def_property_readonly("uses_barrier", &CompiledKernel::uses_barrier)
      .def_property_readonly("options", &CompiledKernel::options)
      .def_property_readonly("uses_breakpoint", &CompiledKernel::uses_breakpoint)
      .def_property_readonly("cooperative", &CompiledKernel::cooperative)
      .def(
          "max_cooperative_grid_blocks",
          [](const CompiledKernel &kernel, const py::object &blockdim,
             const py::object &dynsmemsize) {
            // Checked as launches check them (simt/dispatcher.py): TypeError or ValueError
            // naming a value that is not an integer CUDA can take.
            py::module_ dispatcher = py::module_::import("simt.dispatcher");
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
      .def("llvm_ir", &CompiledKernel::llvm_ir, "The optimised LLVM IR the simulator runs.")
      .def("launch", &CompiledKernel::launch, py::arg("griddim"), py::arg("blockdim"),
           py::arg("sharedmem"), py::arg("args"), py::arg("debugger") = nullptr,
           "Runs the kernel (under `debugger`, a Debugger, when given); returns None or the "
           "first fault as (exception, message, tid, ctaid, file, line, col, function).");
  bind_debugger(m);
}
