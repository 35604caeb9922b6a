// Reading a NumPy array's dtype descriptor (PyArray_Descr) whichever NumPy runs: the extension is
// built against NumPy 1.x headers but must also run under NumPy 2.x, whose descriptor widened
// `flags` to 64 bits and `elsize` to npy_intp (kind and byteorder keep their offsets).
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>

namespace simt::bindings {

struct ArrayDescr {
  char kind;
  char byteorder;
  int64_t elsize;
};

// The descriptor of `array`, a NumPy array (PyArray_Check holds).
ArrayDescr array_descr(PyObject *array);

} // namespace simt::bindings
