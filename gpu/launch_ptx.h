// Launching one compiled kernel (PTX text) on the GPU with Numba's kernel ABI: host arrays are
// copied to the device, the kernel runs, arrays are copied back, and the device-side exception
// record (`simt_exception`, see gpu/nvptx_target.h) is read back.
//
// The kernel's PTX entry takes, per Python parameter, in order:
//   array of ndim N: meminfo (u64, 0), parent (u64, 0), nitems (i64), itemsize (i64),
//                    data (u64 device pointer to element [0,...,0]), shape[N] (i64 each),
//                    strides[N] (i64 each, in bytes);
//   scalar: its value at its width (a bool is one byte); complex64/128: real, then imaginary.
#pragma once

#include "gpu/driver.h"
#include "gpu/exception_record.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simt::gpu {

// A NumPy-style view of host memory. `data` points at element [0, ..., 0]; strides are in bytes
// and may be negative or zero.
struct HostArray {
  void *data = nullptr;
  std::vector<int64_t> shape;   // ndim = shape.size()
  std::vector<int64_t> strides; // bytes, one per dimension
  int64_t itemsize = 0;
  bool copy_back = true; // copy the device's elements back into the view after the launch

  int64_t nitems() const;
};

// The bytes an array's elements cover, relative to its `data`: [begin, begin + size), begin <= 0
// (negative strides reach below element 0). size is 0 for an array without elements.
struct ByteSpan {
  int64_t begin = 0;
  int64_t size = 0;
};
ByteSpan byte_span(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                   int64_t itemsize);
// Whether the elements tile their span exactly (some order of the axes is contiguous), so the
// span can be copied back whole.
bool is_dense(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
              int64_t itemsize);

// One Python argument of a kernel: scalar bytes, or a host array.
struct KernelArgument {
  enum class Kind { Scalar, Array };
  Kind kind = Kind::Scalar;
  // Scalar: the value's bytes (little-endian), passed as `parts` parameters of equal size (2 for a
  // complex number: real, imaginary).
  std::vector<uint8_t> bytes;
  int parts = 1;
  HostArray array; // Array

  static KernelArgument scalar(const void *value, size_t size, int parts = 1);
  template <class T> static KernelArgument scalar(T value) { return scalar(&value, sizeof value); }
  static KernelArgument of(HostArray array);
};

// The kernel's parameter values in order, and the kernelParams array pointing at each.
class KernelParams {
public:
  void add(const void *value, size_t size);
  template <class T> void add(T value) { add(&value, sizeof value); }
  // meminfo, parent, nitems, itemsize, data, shape..., strides...
  void add_array(uint64_t device_data, const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &strides, int64_t itemsize);
  void add_scalar(const KernelArgument &scalar);

  size_t size() const { return values_.size(); }
  const std::vector<uint8_t> &value(size_t i) const { return values_[i]; }
  // Valid until the next add().
  void **pointers();

private:
  std::vector<std::vector<uint8_t>> values_;
  std::vector<void *> pointers_;
};

// The device-side exception record (gpu/exception_record.h) of a launch that faulted.
struct DeviceFault {
  int32_t code = 0;     // index_error_code, or first_raise_code + the `raise` site
  int32_t location = 0; // the source location id of the faulting statement
  int32_t thread[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  std::vector<int32_t> record; // every word of it
};
// "IndexError" (index_error_code), "exception" (a raise: first_raise_code and above), or
// "code <n>".
std::string fault_kind(int32_t code);
// "IndexError at location 3, tid=[1, 0, 0] ctaid=[2, 0, 0]".
std::string describe(const DeviceFault &fault);

// Loads `ptx`, allocates device memory for each array argument and copies it in, launches
// `entry` (cooperatively if asked), synchronises, copies back every array with copy_back (also
// after a fault, as Numba does), frees, and returns the fault the kernel recorded, if any.
// `kernel_ms` receives the kernel's time (events around the launch) when not null. Runs on the
// primary context of `device`. Throws GpuUnavailable, DriverError (a PTX the driver rejects, a
// failed launch, an illegal address, a kernel that has not ended after `limit` when that is
// not zero...) or std::invalid_argument for malformed arguments.
std::optional<DeviceFault> launch_kernel(const std::string &ptx, const std::string &entry,
                                         Dim3 grid, Dim3 block, uint64_t dynamic_shared,
                                         bool cooperative, std::vector<KernelArgument> &args,
                                         float *kernel_ms = nullptr, int device = 0,
                                         std::chrono::milliseconds limit = {});
// The same with a module already loaded (its context current on this thread), so that a kernel
// launched again is not JIT-compiled again: the module's simt_exception is cleared first.
std::optional<DeviceFault> launch_kernel(const Module &module, const std::string &entry, Dim3 grid,
                                         Dim3 block, uint64_t dynamic_shared, bool cooperative,
                                         std::vector<KernelArgument> &args,
                                         float *kernel_ms = nullptr,
                                         std::chrono::milliseconds limit = {});

} // namespace simt::gpu
