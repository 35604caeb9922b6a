// simt::Resolver over a Python callable (simt/compiler/resolver.py) that tells what a name is: a
// simt._simt.GlobalValue (pybind/global_value_binding.h), or None for a name it does not know.
#pragma once

#include "frontend/resolver.h"

#include <pybind11/pybind11.h>

namespace simt::bindings {

class PyResolver : public Resolver {
public:
  explicit PyResolver(pybind11::object describe);
  ~PyResolver() override;
  GlobalValue resolve(const std::string &name) override;
  GlobalValue overload(const std::string &name, const std::vector<std::string> &args) override;
  const pybind11::object &describe() const { return describe_; }

private:
  pybind11::object describe_;
};

// The source of a Python function to compile, whose names `describe` resolves.
FunctionSource function_source(std::string name, std::string source, std::string file,
                               int first_line, uint64_t identity, pybind11::object describe);

} // namespace simt::bindings
