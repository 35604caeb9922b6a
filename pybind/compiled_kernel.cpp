#include "pybind/compiled_kernel.h"

#include "frontend/compile.h"
#include "pybind/marshal.h"
#include "sim/jit.h"

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

} // namespace

CompiledKernel::CompiledKernel(const FunctionSource &source, std::vector<Type> arg_types,
                               const CompileOptions &options)
    : arg_types_(std::move(arg_types)), module_(compile_kernel(source, arg_types_, options)) {
  py::gil_scoped_release release;
  code_ = sim::jit_compile(module_);
}

py::object CompiledKernel::launch(const std::array<int64_t, 3> &griddim,
                                  const std::array<int64_t, 3> &blockdim,
                                  int64_t dynamic_shared_bytes, const py::tuple &args) const {
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
    py::gil_scoped_release release;
    fault = sim::launch(code_, config, buffer.pointers());
    if (module_.props.uses_print)
      std::fflush(stdout);
  }
  if (!fault)
    return py::none();
  const sim::SourceLocation &where = fault->where;
  return py::make_tuple(fault->exception, fault->message, dim3_tuple(fault->tid),
                        dim3_tuple(fault->ctaid), where.file, where.line, where.col,
                        where.function);
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
  return sim::max_cooperative_blocks(code_, dim3_of(dims, "blockdim"),
                                     static_cast<uint64_t>(dynamic_shared_bytes));
}

std::string CompiledKernel::ir() const { return ir::dump(module_); }

std::string CompiledKernel::llvm_ir() const {
  py::gil_scoped_release release;
  return sim::host_llvm_ir(module_);
}

} // namespace simt::bindings
