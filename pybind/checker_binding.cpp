#include "pybind/checker_binding.h"

#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;

namespace simt::bindings {

namespace {

checker::CheckOptions options_from(const std::vector<std::string> &tools,
                                   const std::string &schedule, uint64_t seed) {
  checker::CheckOptions options;
  options.race = options.init = options.sync = options.mem = false;
  for (const std::string &tool : tools) {
    if (tool == "racecheck")
      options.race = true;
    else if (tool == "initcheck")
      options.init = true;
    else if (tool == "synccheck")
      options.sync = true;
    else if (tool == "memcheck")
      options.mem = true;
    else
      throw std::invalid_argument("simt: unknown checker '" + tool +
                                  "' (racecheck, initcheck, synccheck or memcheck)");
  }
  if (schedule == "in-order")
    options.schedule = checker::ScheduleKind::InOrder;
  else if (schedule == "random")
    options.schedule = checker::ScheduleKind::Random;
  else if (schedule == "reverse")
    options.schedule = checker::ScheduleKind::Reverse;
  else
    throw std::invalid_argument("simt: unknown schedule '" + schedule +
                                "' (in-order, random or reverse)");
  options.seed = seed;
  return options;
}

Scalar scalar_named(const std::string &name) {
  Scalar scalar;
  if (!parse_scalar_name(name, scalar))
    return Scalar::U8; // records and other dtypes: byte poison
  return scalar;
}

py::tuple dim3(const sim::Dim3 &d) { return py::make_tuple(d.x, d.y, d.z); }

py::dict finding_dict(const checker::Finding &finding) {
  py::list sides;
  for (const checker::Side &side : finding.sides) {
    py::dict s;
    s["action"] = side.action;
    s["thread"] = dim3(side.tid);
    s["block"] = dim3(side.ctaid);
    s["file"] = side.where.file;
    s["line"] = side.where.line;
    s["col"] = side.where.col;
    s["function"] = side.where.function;
    s["value"] = side.value.empty() ? py::object(py::none()) : py::object(py::str(side.value));
    sides.append(s);
  }
  py::dict d;
  d["tool"] = checker::tool_name(finding.tool);
  d["severity"] = checker::severity_name(finding.severity);
  d["kind"] = finding.kind;
  d["subject"] = finding.subject;
  d["kernel"] = finding.kernel;
  d["count"] = finding.count;
  d["accesses"] = sides;
  return d;
}

} // namespace

void bind_checker(py::module_ &m) {
  py::class_<checker::Checker>(m, "Checker")
      .def(py::init([](const std::vector<std::string> &tools, const std::string &schedule,
                       uint64_t seed) {
             return std::make_unique<checker::Checker>(options_from(tools, schedule, seed));
           }),
           py::arg("tools"), py::arg("schedule") = "in-order", py::arg("seed") = 0,
           "Checkers for launches of kernels compiled with instrumentation 'check': `tools` "
           "among racecheck, initcheck, synccheck, memcheck; `schedule` in-order, random "
           "(seeded by `seed`) or reverse.")
      .def(
          "allocated",
          [](checker::Checker &c, uintptr_t address, uint64_t bytes, const std::string &dtype,
             uint64_t itemsize, bool host_scanned) {
            c.allocated(address, bytes, scalar_named(dtype), itemsize, host_scanned);
          },
          py::arg("address"), py::arg("bytes"), py::arg("dtype"), py::arg("itemsize"),
          py::arg("host_scanned") = false,
          "Device memory allocated for kernels (elements of NumPy dtype name `dtype`, `itemsize` "
          "bytes): poisoned, and its reads before writes reported. `host_scanned`: NumPy may "
          "write it (pinned, mapped memory), found at each launch by the poison gone.")
      .def("written", &checker::Checker::written, py::arg("address"), py::arg("bytes"),
           "The host wrote device memory (a copy to the device): initialised.")
      .def("freed", &checker::Checker::freed, py::arg("address"), py::arg("bytes"),
           "Device memory freed while its array lives: kernels' accesses to it are reported.")
      .def("forget", &checker::Checker::forget, py::arg("address"), py::arg("bytes"),
           "Device memory whose array is gone: no longer tracked.")
      .def_property_readonly("peak_shadow_bytes", &checker::Checker::peak_shadow_bytes,
                             "The most shadow memory racecheck has held at once.")
      .def(
          "findings",
          [](const checker::Checker &c, size_t first) {
            py::list out;
            const auto &all = c.findings().all();
            for (size_t i = first; i < all.size(); ++i)
              out.append(finding_dict(all[i]));
            return out;
          },
          py::arg("first") = 0,
          "The distinct findings so far, from the `first`-th: dicts of tool, severity, kind, "
          "subject, kernel, count (instances) and accesses (action, thread, block, file, line, "
          "col, function, value).")
      .def(
          "counts",
          [](const checker::Checker &c) {
            py::list out;
            for (const checker::Finding &f : c.findings().all())
              out.append(f.count);
            return out;
          },
          "Each finding's count of instances, in findings() order.");
}

} // namespace simt::bindings
