// Python kernel arguments -> the `void **args` buffer of codegen/backend.h, converted to the
// kernel's parameter types the way Numba's dispatcher converts them.
#pragma once

#include "ir/types.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

namespace simt::bindings {

class KernelArguments {
public:
  // Scalars convert from any Python or NumPy number as Numba's unboxing does (floats truncate for
  // integer parameters; NaN raises ValueError, infinities and integers outside the parameter
  // type's range OverflowError; float32 rounds beyond its range to infinity);
  // arrays (NumPy arrays, or objects holding one as `_host`: device arrays, cuda.In/Out) must
  // have the parameter's dtype and ndim, and be C/F-contiguous when it says so. Throws
  // pybind11::type_error naming the argument otherwise. The arrays must outlive the launch.
  // Tuples (of any of these) must have the parameter's length; records (NumPy record scalars)
  // the parameter's dtype, and are passed by address; a record of read-only memory (a read-only
  // memmap's, whose pages would fault) as the address of a private copy.
  KernelArguments(const std::vector<Type> &types, const pybind11::tuple &args);

  void **pointers() { return pointers_.data(); }

  // After the launch: raises ValueError when the kernel wrote to the private copy of a read-only
  // record, as Numba's copy back to read-only memory fails.
  void check_read_only_records() const;

private:
  void store(PyObject *object, const Type &type, size_t index, int64_t *slot);
  void store_record(PyObject *object, const Type &type, size_t index, int64_t *slot);

  struct ReadOnlyRecord {
    pybind11::object original, copy;
    size_t index;
    Type type;
  };
  std::vector<ReadOnlyRecord> read_only_records_;
  std::vector<int64_t> storage_;
  std::vector<pybind11::object> keep_alive_; // objects whose memory the arguments point into
  std::vector<void *> pointers_;
};

} // namespace simt::bindings
