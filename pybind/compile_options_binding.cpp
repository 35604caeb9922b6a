#include "pybind/compile_options_binding.h"

#include "ir/compile_options.h"
#include "sim/sim_options.h"

#include <pybind11/operators.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace py = pybind11;

namespace simt::bindings {

namespace {

// The options' enums by the names Python gives them (each value's name, once).
template <typename Enum> using Names = std::pair<Enum, const char *>;
constexpr Names<Instrumentation> kInstrumentations[] = {{Instrumentation::None, "none"},
                                                        {Instrumentation::Debug, "debug"},
                                                        {Instrumentation::Check, "check"}};
constexpr Names<DebugInfo> kDebugInfos[] = {
    {DebugInfo::None, "none"}, {DebugInfo::LineTables, "lines"}, {DebugInfo::Full, "full"}};
constexpr Names<BoundsCheck> kBoundsChecks[] = {{BoundsCheck::Raise, "raise"},
                                                {BoundsCheck::Warn, "warn"}};
constexpr Names<sim::CheckedFibers> kCheckedFibers[] = {{sim::CheckedFibers::None, "none"},
                                                        {sim::CheckedFibers::All, "all"}};

template <typename Enum, size_t N>
Enum named(const Names<Enum> (&names)[N], const std::string &name, const char *option) {
  std::string known; // "none, debug or check"
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i].second)
      return names[i].first;
    known += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i].second);
  }
  throw std::invalid_argument("simt: unknown " + std::string(option) + " '" + name + "' (" + known +
                              ")");
}

template <typename Enum, size_t N> std::string name_of(const Names<Enum> (&names)[N], Enum value) {
  for (const auto &[each, text] : names)
    if (each == value)
      return text;
  throw std::logic_error("simt: a compile option's value without a name");
}

CompileOptions make_options(bool python_error_model, const std::string &instrumentation,
                            int opt_level, const std::string &debug_info, bool fastmath,
                            const std::string &bounds_check) {
  if (opt_level < 0 || opt_level > 3)
    throw std::invalid_argument("simt: opt_level must be 0 to 3, not " + std::to_string(opt_level));
  CompileOptions options;
  options.python_error_model = python_error_model;
  options.instrumentation = named(kInstrumentations, instrumentation, "instrumentation");
  options.opt_level = opt_level;
  options.debug_info = named(kDebugInfos, debug_info, "debug_info");
  options.fastmath = fastmath;
  options.bounds_check = named(kBoundsChecks, bounds_check, "bounds_check");
  return options;
}

sim::SimOptions make_sim_options(bool fission, const std::string &checked_fibers) {
  return sim::SimOptions{fission, named(kCheckedFibers, checked_fibers, "checked_fibers")};
}

} // namespace

void bind_compile_options(py::module_ &m) {
  py::class_<CompileOptions>(m, "CompileOptions",
                             "What a kernel is compiled for beyond its source and argument types "
                             "(ir/compile_options.h): part of every cache key.")
      .def(py::init(&make_options), py::kw_only(), py::arg("python_error_model") = false,
           py::arg("instrumentation") = "none", py::arg("opt_level") = 3,
           py::arg("debug_info") = "none", py::arg("fastmath") = false,
           py::arg("bounds_check") = "raise",
           "`python_error_model`: Numba's error model of debug=True (float division by zero "
           "raises); `instrumentation` 'none' (release), 'debug' (the debugger's variant) or "
           "'check' (the checkers'); `opt_level` LLVM's, 0 to 3; `debug_info` 'none', 'lines' "
           "or 'full' (the GPU backend's); `bounds_check` 'raise' (an IndexError) or 'warn' "
           "(SIMT_BOUNDSCHECK=warn: reported, and the access goes on as on a GPU).")
      .def_readonly("python_error_model", &CompileOptions::python_error_model)
      .def_property_readonly(
          "instrumentation",
          [](const CompileOptions &o) { return name_of(kInstrumentations, o.instrumentation); })
      .def_readonly("opt_level", &CompileOptions::opt_level)
      .def_property_readonly(
          "debug_info", [](const CompileOptions &o) { return name_of(kDebugInfos, o.debug_info); })
      .def_readonly("fastmath", &CompileOptions::fastmath)
      .def_property_readonly(
          "bounds_check",
          [](const CompileOptions &o) { return name_of(kBoundsChecks, o.bounds_check); })
      .def("key", &CompileOptions::key, "A short text naming every option (\"np,release,O3\").")
      .def(py::self == py::self)
      .def("__hash__", [](const CompileOptions &o) { return py::hash(py::str(o.key())); })
      .def("__repr__",
           [](const CompileOptions &o) { return "<simt CompileOptions " + o.key() + ">"; });

  py::class_<sim::SimOptions>(m, "SimOptions",
                              "How the simulator runs a kernel's blocks (sim/sim_options.h): the "
                              "simulator backend's configuration, part of its cache keys.")
      .def(py::init(&make_sim_options), py::kw_only(), py::arg("fission") = true,
           py::arg("checked_fibers") = "none",
           "`fission` false runs kernels with barriers as fibers, never by loop fission; "
           "`checked_fibers` which threads of the check variant run on fibers: 'none' (those "
           "release code runs on fibers) or 'all' (for a schedule to order them).")
      .def_readonly("fission", &sim::SimOptions::fission)
      .def_property_readonly(
          "checked_fibers",
          [](const sim::SimOptions &o) { return name_of(kCheckedFibers, o.checked_fibers); })
      .def("key", &sim::SimOptions::key, "The options that differ from the defaults (\",fibers\").")
      .def(py::self == py::self)
      .def("__hash__", [](const sim::SimOptions &o) { return py::hash(py::str(o.key())); })
      .def("__repr__", [](const sim::SimOptions &o) { return "<simt SimOptions" + o.key() + ">"; });
}

} // namespace simt::bindings
