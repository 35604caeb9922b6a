// simt::Resolver over a Python callable (simt/compiler/resolver.py) that describes what a name is.
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

private:
  pybind11::object describe_;
};

// A GlobalValue from one description tuple (see python/simt/compiler/resolver.py for the format).
GlobalValue global_value_from(pybind11::handle description);

} // namespace simt::bindings
