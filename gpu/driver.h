// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") ($SIMT_LIBCUDA names another
// file): simt neither links libcuda nor includes the toolkit's cuda.h, so it builds and runs on
// machines without CUDA and finds out only when a GPU is asked for. The few driver types, enums
// and entry points it uses are declared here (namespace simt::gpu::cu), with the driver's ABI.
//
// Driver::get() loads the library and calls cuInit once per process; GpuUnavailable (one line)
// says why there is no GPU. Every other failing driver call throws DriverError, whose text names
// the call and cuGetErrorName/cuGetErrorString's words. Contexts are the devices' primary
// contexts (as Numba and the CUDA runtime use them), made current on the calling thread.
//
// This layer depends on nothing but the C++17 library and libdl, so the standalone runner
// (gpu/runner/) builds it on machines without LLVM.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace simt::gpu {

// The driver's own declarations (cuda.h's names, without the toolkit).
namespace cu {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUlinkState = struct CUlinkState_st *;
constexpr int CU_JIT_INPUT_PTX = 1;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;

constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;

constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;

// The entry points simt uses, resolved by dlsym (the `_v2` symbols where the driver has them).
struct Api {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **text);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned count,
                                 CUjit_option *options, void **values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuLinkCreate)(unsigned count, CUjit_option *options, void **values,
                           CUlinkState *state);
  CUresult (*cuLinkAddData)(CUlinkState state, int type, void *data, size_t bytes, const char *name,
                            unsigned count, CUjit_option *options, void **values);
  CUresult (*cuLinkComplete)(CUlinkState state, void **image, size_t *bytes);
  CUresult (*cuLinkDestroy)(CUlinkState state);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *pointer, size_t *bytes, CUmodule module,
                                const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *destination, CUdeviceptr source, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value, size_t count);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamQuery)(CUstream stream);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start, CUevent end);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                             unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                             CUstream stream, void **params, void **extra);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction function,
                                                          int block_size, size_t shared_bytes);
  CUresult (*cuLaunchCooperativeKernel)(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                                        unsigned bx, unsigned by, unsigned bz,
                                        unsigned shared_bytes, CUstream stream, void **params);
};
} // namespace cu

// No GPU can be used: the driver library is missing, or cuInit failed. what() is one line.
class GpuUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A failing driver call: "simt: cuMemAlloc failed (CUDA_ERROR_OUT_OF_MEMORY: out of memory)".
class DriverError : public std::runtime_error {
public:
  DriverError(const std::string &message, cu::CUresult result)
      : std::runtime_error(message), result_(result) {}
  cu::CUresult result() const { return result_; }
  // Whether the error leaves the context unusable (an illegal address, a trap, a launch failure):
  // every later call of this process on that context fails the same way.
  bool sticky() const;

private:
  cu::CUresult result_;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

class Driver {
public:
  // The process's driver, loaded from $SIMT_LIBCUDA or libcuda.so.1 and initialised on the first
  // call (thread-safe); a failure is remembered and thrown again, as GpuUnavailable.
  static Driver &get();
  // A driver loaded from `path` (tests; the process's one is get()). Throws GpuUnavailable.
  static std::unique_ptr<Driver> open(const std::string &path);
  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  const cu::Api &api() const { return api_; }
  const std::string &path() const { return path_; }
  // Throws DriverError naming `call` unless `result` is CUDA_SUCCESS.
  void check(cu::CUresult result, const char *call) const;
  // "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected".
  std::string error_text(cu::CUresult result) const;

  int version();      // cuDriverGetVersion: 12040 for CUDA 12.4
  int device_count(); // 0 when there is no device
  std::string device_name(int device);
  int attribute(int device, int attribute);
  std::pair<int, int> compute_capability(int device); // (major, minor)
  int multiprocessor_count(int device);
  // How many blocks of `block_size` threads and `shared_bytes` of dynamic shared memory of
  // `function` one multiprocessor holds at once.
  int max_active_blocks(cu::CUfunction function, int block_size, size_t shared_bytes);
  bool cooperative_launch(int device);
  size_t total_memory(int device);

  // The device's primary context (retained once, released when the driver is), made current on
  // the calling thread.
  cu::CUcontext make_current(int device = 0);
  // cuCtxSynchronize of the current context.
  void synchronize();
  // The same, but when the default stream's work has not ended within `limit` (a kernel that
  // hangs: a deadlock, a warp or barrier misused), a sticky DriverError
  // (CUDA_ERROR_LAUNCH_TIMEOUT): the context stays busy, and is lost for this process.
  void synchronize(std::chrono::milliseconds limit);

private:
  Driver() = default;
  void *library_ = nullptr;
  std::string path_;
  cu::Api api_{};
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

// A module from PTX text, JIT-compiled by the driver for the current context's device. The JIT's
// error log is part of the exception when loading fails; its info log stays readable.
class Module {
public:
  explicit Module(const std::string &ptx, Driver &driver = Driver::get());
  // Several PTX modules linked into one by the driver's linker (cuLink*): a kernel and the
  // external device functions it calls (link=).
  explicit Module(const std::vector<std::string> &ptx, Driver &driver = Driver::get());
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  cu::CUmodule handle() const { return module_; }
  Driver &driver() const { return driver_; }
  const std::string &info_log() const { return info_log_; }
  // The kernel named `name`; throws DriverError when there is none.
  cu::CUfunction function(const std::string &name) const;

  struct Global {
    cu::CUdeviceptr address = 0;
    size_t bytes = 0;
  };
  // A `.global` variable, or nullptr-address Global{} when the module has none of that name.
  Global global(const std::string &name) const;
  // Copies of a global's bytes (size() bytes from its start) from and to the device.
  std::vector<uint8_t> read_global(const std::string &name) const;
  void write_global(const std::string &name, const void *data, size_t bytes) const;

private:
  void load(const void *image); // cuModuleLoadDataEx, its error log in the exception
  Driver &driver_;
  cu::CUmodule module_ = nullptr;
  std::string info_log_;
};

// Device memory (cuMemAlloc); zero bytes is a null pointer and allocates nothing.
class DeviceMemory {
public:
  explicit DeviceMemory(size_t bytes, Driver &driver = Driver::get());
  ~DeviceMemory();
  DeviceMemory(DeviceMemory &&other) noexcept;
  DeviceMemory &operator=(DeviceMemory &&other) noexcept;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  cu::CUdeviceptr address() const { return address_; }
  size_t size() const { return bytes_; }
  // Copies `bytes` at byte `offset` of this allocation (synchronous).
  void copy_from_host(const void *source, size_t bytes, size_t offset = 0);
  void copy_to_host(void *destination, size_t bytes, size_t offset = 0) const;
  void memset(uint8_t value);

private:
  void release() noexcept;
  Driver *driver_;
  cu::CUdeviceptr address_ = 0;
  size_t bytes_ = 0;
};

class Stream {
public:
  explicit Stream(Driver &driver = Driver::get());
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cu::CUstream handle() const { return stream_; }
  void synchronize();

private:
  Driver &driver_;
  cu::CUstream stream_ = nullptr;
};

class Event {
public:
  explicit Event(Driver &driver = Driver::get());
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  cu::CUevent handle() const { return event_; }
  void record(cu::CUstream stream = nullptr);
  void synchronize();
  // Milliseconds from `start` to this event, both recorded and completed.
  float elapsed_since(const Event &start) const;

private:
  Driver &driver_;
  cu::CUevent event_ = nullptr;
};

// Launches `function` on `stream` (nullptr: the default stream) with `params` (the driver's
// kernelParams: one pointer to each parameter's value). Dynamic shared memory over 48 KiB is
// opted into first (cuFuncSetAttribute). `cooperative` uses cuLaunchCooperativeKernel.
void launch(cu::CUfunction function, Dim3 grid, Dim3 block, unsigned shared_bytes,
            cu::CUstream stream, void **params, bool cooperative = false,
            Driver &driver = Driver::get());

} // namespace simt::gpu
