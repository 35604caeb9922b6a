#include "pybind/py_resolver.h"

namespace py = pybind11;

namespace simt::bindings {

namespace {

GlobalValue global_value_from(py::handle value) {
  return value.is_none() ? GlobalValue{} : value.cast<GlobalValue>();
}

} // namespace

PyResolver::PyResolver(py::object describe) : describe_(std::move(describe)) {}

PyResolver::~PyResolver() {
  // The frontend may drop a resolver while the GIL is released; dropping a Python reference
  // needs the GIL.
  py::gil_scoped_acquire gil;
  describe_ = py::object();
}

GlobalValue PyResolver::resolve(const std::string &name) {
  py::gil_scoped_acquire gil;
  return global_value_from(describe_(name));
}

GlobalValue PyResolver::overload(const std::string &name, const std::vector<std::string> &args) {
  py::gil_scoped_acquire gil;
  py::list types;
  for (const std::string &arg : args)
    types.append(arg);
  return global_value_from(describe_(name, types));
}

FunctionSource function_source(std::string name, std::string source, std::string file,
                               int first_line, uint64_t identity, py::object describe) {
  FunctionSource function;
  function.name = std::move(name);
  function.source = std::move(source);
  function.file = std::move(file);
  function.first_line = first_line;
  function.identity = identity;
  function.resolver = std::make_shared<PyResolver>(std::move(describe));
  return function;
}

} // namespace simt::bindings
