#include "pybind/numpy_descr.h"

#include <atomic>
#include <string>

namespace py = pybind11;

namespace simt::bindings {

namespace {

// NumPy 1.x's PyArray_Descr up to elsize (numpy/ndarraytypes.h of 1.x).
struct DescrV1 {
  PyObject_HEAD PyTypeObject *typeobj;
  char kind, type, byteorder, flags;
  int type_num;
  int elsize;
};

// NumPy 2.x's PyArray_Descr up to elsize (numpy/ndarraytypes.h of 2.x).
struct DescrV2 {
  PyObject_HEAD PyTypeObject *typeobj;
  char kind, type, byteorder, former_flags;
  int type_num;
  uint64_t flags;
  Py_ssize_t elsize;
};

// Which layout the running NumPy uses, decided at the first call. Not a function-local static:
// importing numpy may release the GIL, and another thread waiting on the static's guard while
// holding the GIL would deadlock; threads racing here compute the same answer.
std::atomic<int> numpy_major{0};

bool running_numpy2() {
  int major = numpy_major.load(std::memory_order_relaxed);
  if (major == 0) {
    std::string version = py::str(py::module_::import("numpy").attr("__version__"));
    major = std::stoi(version);
    numpy_major.store(major, std::memory_order_relaxed);
  }
  return major >= 2;
}

} // namespace

ArrayDescr array_descr(PyObject *array) {
  PyObject *descr = py::detail::array_proxy(array)->descr;
  if (running_numpy2()) {
    auto *v2 = reinterpret_cast<const DescrV2 *>(descr);
    return {v2->kind, v2->byteorder, static_cast<int64_t>(v2->elsize)};
  }
  auto *v1 = reinterpret_cast<const DescrV1 *>(descr);
  return {v1->kind, v1->byteorder, v1->elsize};
}

} // namespace simt::bindings
