// A fake CUDA driver (a shared library with libcuda's entry points) for the tests of gpu/driver.h,
// gpu/launch_ptx.h and simt-gpu-run on machines without a GPU. Device memory is host memory
// (cuMemAlloc is malloc, copies are memcpy, checked against the live allocations); a module is
// its PTX text, whose `.entry` parameter lists give each parameter's size; a module whose text
// names `simt_exception` has that global (32 zeroed bytes). cuLaunchKernel records its parameters
// and runs what a few kernels "do":
//   double_it   all its parameters are one array (Numba's ABI); doubles every float32/float64
//   double_first  its first parameters are a 1-d array, which it doubles as double_it does
//   fault_it    as double_it, then records an IndexError at location 42 by thread (3,0,0) of
//               block (1,0,0) in simt_exception
//   trap_it     an illegal address: cuCtxSynchronize and every later call fail (sticky)
//   hang_it     never ends: cuStreamQuery says not ready (until fake_cuda_reset)
//   simt_selftest  what simt-gpu-run --selftest's PTX does on a GPU
// The linker (cuLink*) concatenates the PTX it is given.
// A module whose text contains "syntax error" fails to load with a JIT error log. With
// FAKE_CUDA_NO_DEVICE set, cuInit fails with CUDA_ERROR_NO_DEVICE.
#include "fake_libcuda.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace {

using CUresult = int;
constexpr CUresult SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NO_DEVICE = 100,
                   INVALID_CONTEXT = 201, INVALID_PTX = 218, INVALID_HANDLE = 400, NOT_FOUND = 500,
                   NOT_READY = 600, ILLEGAL_ADDRESS = 700;

struct FakeModule;

struct FakeFunction {
  FakeModule *module;
  std::string name;
  std::vector<size_t> params;
};

struct FakeModule {
  std::string ptx;
  std::map<std::string, std::vector<size_t>> entries; // parameter sizes
  std::unique_ptr<int32_t[]> exception;               // simt_exception, when the PTX names it
  std::map<std::string, std::unique_ptr<FakeFunction>> functions; // looked up, owned
};

std::mutex mutex;
bool initialised = false;
bool sticky = false;
bool hung = false;   // a hang_it launch runs on forever (cuStreamQuery: not ready)
int context_tag = 0; // the primary context is its address
thread_local void *current = nullptr;
std::map<uintptr_t, size_t> allocations; // cuMemAlloc'd and module globals: base -> bytes
long live_allocations = 0;
FakeLaunch last_launch;
bool launched = false;

// The allocation holding [address, address + bytes), if any.
bool inside(uintptr_t address, size_t bytes) {
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

size_t type_size(const std::string &type) {
  // .b8 .u16 .s32 .f64 ...
  size_t bits = std::strtoul(type.c_str() + 2, nullptr, 10);
  return bits / 8;
}

// The `.entry` parameter lists of a PTX text.
std::map<std::string, std::vector<size_t>> parse_entries(const std::string &ptx) {
  std::map<std::string, std::vector<size_t>> entries;
  size_t at = 0;
  while ((at = ptx.find(".entry", at)) != std::string::npos) {
    at += 6;
    size_t open = ptx.find('(', at);
    if (open == std::string::npos)
      break;
    std::string name;
    for (char c : ptx.substr(at, open - at))
      if (c != ' ' && c != '\t' && c != '\n')
        name += c;
    size_t close = ptx.find(')', open);
    std::string list = ptx.substr(open + 1, close - open - 1);
    std::vector<size_t> sizes;
    std::stringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
      std::stringstream tokens(item);
      std::string token, type;
      size_t count = 1;
      while (tokens >> token) {
        if (token == ".param" || token == ".align") {
          if (token == ".align")
            tokens >> token;
          continue;
        }
        if (token[0] == '.' && type.empty())
          type = token;
        else if (size_t bracket = token.find('['); bracket != std::string::npos)
          count = std::strtoul(token.c_str() + bracket + 1, nullptr, 10);
      }
      if (!type.empty())
        sizes.push_back(type_size(type) * count);
    }
    entries[name] = sizes;
    at = close;
  }
  return entries;
}

template <class T> T param(const FakeLaunch &launch, size_t i) {
  T value{};
  std::memcpy(&value, launch.params[i].data(), sizeof value);
  return value;
}

// Doubles every element of the array that the launch's parameters are; false for an element
// outside device memory.
bool double_array(const FakeLaunch &launch, size_t ndim) {
  auto itemsize = param<int64_t>(launch, 3);
  auto data = param<uint64_t>(launch, 4);
  std::vector<int64_t> shape(ndim), strides(ndim), index(ndim, 0);
  for (size_t d = 0; d < ndim; ++d) {
    shape[d] = param<int64_t>(launch, 5 + d);
    strides[d] = param<int64_t>(launch, 5 + ndim + d);
    if (shape[d] == 0)
      return true;
  }
  for (;;) {
    int64_t offset = 0;
    for (size_t d = 0; d < ndim; ++d)
      offset += index[d] * strides[d];
    uintptr_t address = uintptr_t(data + uint64_t(offset));
    if (!inside(address, size_t(itemsize)))
      return false;
    if (itemsize == 4)
      *reinterpret_cast<float *>(address) *= 2;
    else if (itemsize == 8)
      *reinterpret_cast<double *>(address) *= 2;
    size_t d = ndim;
    for (;;) {
      if (d == 0)
        return true;
      --d;
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

// simt-gpu-run --selftest's kernel: x[i] *= factor for i < shape[0]; thread shape[0] records an
// IndexError at location 7.
void selftest(const FakeLaunch &launch, FakeModule &module) {
  auto data = param<uint64_t>(launch, 4);
  auto extent = param<int64_t>(launch, 5);
  auto stride = param<int64_t>(launch, 6);
  auto factor = param<float>(launch, 7);
  int64_t threads = int64_t(launch.grid[0]) * launch.block[0];
  for (int64_t i = 0; i < extent && i < threads; ++i)
    *reinterpret_cast<float *>(uintptr_t(data + uint64_t(i * stride))) *= factor;
  if (extent < threads && module.exception && module.exception[0] == 0) {
    int32_t record[8] = {
        1, 7, int32_t(extent % launch.block[0]), 0, 0, int32_t(extent / launch.block[0]), 0, 0};
    std::memcpy(module.exception.get(), record, sizeof record);
  }
}

// What a driver call returns before doing its work: not initialised, no context, sticky error.
CUresult gate(bool needs_context = true) {
  if (!initialised)
    return NOT_INITIALIZED;
  if (sticky)
    return ILLEGAL_ADDRESS;
  if (needs_context && current == nullptr)
    return INVALID_CONTEXT;
  return SUCCESS;
}

CUresult do_launch(FakeFunction *f, const unsigned grid[3], const unsigned block[3],
                   unsigned shared, void **params, bool cooperative) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (f == nullptr || (params == nullptr && !f->params.empty()))
    return INVALID_VALUE;
  FakeLaunch launch;
  launch.name = f->name;
  for (int i = 0; i < 3; ++i) {
    launch.grid[i] = grid[i];
    launch.block[i] = block[i];
  }
  launch.shared = shared;
  launch.cooperative = cooperative;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const auto *bytes = static_cast<const uint8_t *>(params[i]);
    launch.params.emplace_back(bytes, bytes + f->params[i]);
    int64_t offset = -1, size = -1;
    if (f->params[i] == 8) {
      uint64_t address;
      std::memcpy(&address, bytes, 8);
      auto it = allocations.upper_bound(uintptr_t(address));
      if (address != 0 && it != allocations.begin()) {
        --it;
        if (address < it->first + it->second) {
          offset = int64_t(address - it->first);
          size = int64_t(it->second);
        }
      }
    }
    launch.allocation_offset.push_back(offset);
    launch.allocation_size.push_back(size);
  }
  last_launch = launch;
  launched = true;
  const size_t n = launch.params.size();
  if ((f->name == "double_it" || f->name == "fault_it") && n >= 5 && (n - 5) % 2 == 0) {
    if (!double_array(launch, (n - 5) / 2))
      sticky = true;
  }
  if (f->name == "double_first" && n >= 7 && !double_array(launch, 1))
    sticky = true;
  if (f->name == "fault_it" && f->module->exception) {
    int32_t record[8] = {1, 42, 3, 0, 0, 1, 0, 0};
    std::memcpy(f->module->exception.get(), record, sizeof record);
  }
  if (f->name == "trap_it")
    sticky = true;
  if (f->name == "hang_it")
    hung = true;
  if (f->name == "simt_selftest" && launch.params.size() == 8) // what its PTX does on a GPU
    selftest(launch, *f->module);
  return SUCCESS;
}

const char *error_name(CUresult r) {
  switch (r) {
  case SUCCESS:
    return "CUDA_SUCCESS";
  case INVALID_VALUE:
    return "CUDA_ERROR_INVALID_VALUE";
  case NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case INVALID_CONTEXT:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case INVALID_PTX:
    return "CUDA_ERROR_INVALID_PTX";
  case INVALID_HANDLE:
    return "CUDA_ERROR_INVALID_HANDLE";
  case NOT_FOUND:
    return "CUDA_ERROR_NOT_FOUND";
  case ILLEGAL_ADDRESS:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  default:
    return nullptr;
  }
}

const char *error_string(CUresult r) {
  switch (r) {
  case SUCCESS:
    return "no error";
  case INVALID_VALUE:
    return "invalid argument";
  case NOT_INITIALIZED:
    return "initialization error";
  case NO_DEVICE:
    return "no CUDA-capable device is detected";
  case INVALID_CONTEXT:
    return "invalid device context";
  case INVALID_PTX:
    return "a PTX JIT compilation failed";
  case INVALID_HANDLE:
    return "invalid resource handle";
  case NOT_FOUND:
    return "named symbol not found";
  case ILLEGAL_ADDRESS:
    return "an illegal memory access was encountered";
  default:
    return nullptr;
  }
}

} // namespace

#define FAKE_API extern "C" __attribute__((visibility("default")))

FAKE_API const FakeLaunch *fake_cuda_last_launch() {
  std::lock_guard<std::mutex> lock(mutex);
  return launched ? &last_launch : nullptr;
}

FAKE_API long fake_cuda_live_allocations() {
  std::lock_guard<std::mutex> lock(mutex);
  return live_allocations;
}

FAKE_API bool fake_cuda_allocation_of(uint64_t address, uint64_t *base, uint64_t *size) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(uintptr_t(address));
  if (it == allocations.begin())
    return false;
  --it;
  if (address >= it->first + it->second)
    return false;
  *base = it->first;
  *size = it->second;
  return true;
}

namespace {
int shared_opt_ins = 0, shared_opt_in_value = 0;
}

FAKE_API int fake_cuda_shared_opt_in(int *last_value) {
  std::lock_guard<std::mutex> lock(mutex);
  *last_value = shared_opt_in_value;
  return shared_opt_ins;
}

FAKE_API void fake_cuda_reset() {
  std::lock_guard<std::mutex> lock(mutex);
  sticky = false;
  hung = false;
  launched = false;
  last_launch = FakeLaunch{};
}

FAKE_API CUresult cuInit(unsigned flags) {
  std::lock_guard<std::mutex> lock(mutex);
  if (flags != 0)
    return INVALID_VALUE;
  if (std::getenv("FAKE_CUDA_NO_DEVICE") != nullptr)
    return NO_DEVICE;
  initialised = true;
  return SUCCESS;
}

FAKE_API CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return SUCCESS;
}

FAKE_API CUresult cuGetErrorName(CUresult error, const char **text) {
  *text = error_name(error);
  return *text ? SUCCESS : INVALID_VALUE;
}

FAKE_API CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error_string(error);
  return *text ? SUCCESS : INVALID_VALUE;
}

FAKE_API CUresult cuDeviceGetCount(int *count) {
  if (CUresult r = gate(false))
    return r;
  *count = 1;
  return SUCCESS;
}

FAKE_API CUresult cuDeviceGet(int *device, int ordinal) {
  if (CUresult r = gate(false))
    return r;
  if (ordinal != 0)
    return INVALID_VALUE;
  *device = 0;
  return SUCCESS;
}

FAKE_API CUresult cuDeviceGetName(char *name, int length, int device) {
  if (device != 0 || length < 1)
    return INVALID_VALUE;
  std::strncpy(name, "Fake CUDA Device", size_t(length));
  name[length - 1] = '\0';
  return SUCCESS;
}

// Two blocks per multiprocessor of up to 1024 threads, none of more.
FAKE_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, FakeFunction *function,
                                                              int block_size, size_t) {
  if (CUresult r = gate())
    return r;
  if (function == nullptr || blocks == nullptr)
    return INVALID_VALUE;
  *blocks = block_size <= 1024 ? 2 : 0;
  return SUCCESS;
}

FAKE_API CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  if (CUresult r = gate(false))
    return r;
  if (device != 0)
    return INVALID_VALUE;
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    *value = 1024;
    break;
  case 10: // WARP_SIZE
    *value = 32;
    break;
  case 16: // MULTIPROCESSOR_COUNT
    *value = 132;
    break;
  case 75: // COMPUTE_CAPABILITY_MAJOR
    *value = 9;
    break;
  case 76: // COMPUTE_CAPABILITY_MINOR
    *value = 0;
    break;
  case 95: // COOPERATIVE_LAUNCH
    *value = 1;
    break;
  default:
    *value = 0;
  }
  return SUCCESS;
}

FAKE_API CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  if (device != 0)
    return INVALID_VALUE;
  *bytes = size_t(80) << 30;
  return SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  if (CUresult r = gate(false))
    return r;
  if (device != 0)
    return INVALID_VALUE;
  *context = &context_tag;
  return SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  return device == 0 ? SUCCESS : INVALID_VALUE;
}

FAKE_API CUresult cuCtxSetCurrent(void *context) {
  if (context != nullptr && context != &context_tag)
    return INVALID_CONTEXT;
  current = context;
  return SUCCESS;
}

FAKE_API CUresult cuCtxSynchronize() {
  std::lock_guard<std::mutex> lock(mutex);
  return gate();
}

// The linker concatenates its PTX inputs: a module of several links to one whose text has
// every input's entries.
struct FakeLink {
  std::string image;
};

FAKE_API CUresult cuLinkCreate_v2(unsigned, int *, void **, FakeLink **state) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  *state = new FakeLink;
  return SUCCESS;
}

FAKE_API CUresult cuLinkAddData_v2(FakeLink *state, int type, void *data, size_t bytes,
                                   const char *, unsigned, int *, void **) {
  if (state == nullptr || type != 1 || data == nullptr)
    return INVALID_VALUE;
  state->image.append(static_cast<const char *>(data), strnlen(static_cast<char *>(data), bytes));
  state->image += "\n";
  return SUCCESS;
}

FAKE_API CUresult cuLinkComplete(FakeLink *state, void **image, size_t *bytes) {
  if (state == nullptr)
    return INVALID_VALUE;
  *image = state->image.data();
  *bytes = state->image.size() + 1;
  return SUCCESS;
}

FAKE_API CUresult cuLinkDestroy(FakeLink *state) {
  delete state;
  return SUCCESS;
}

FAKE_API CUresult cuModuleLoadDataEx(FakeModule **module, const void *image, unsigned count,
                                     int *options, void **values) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  std::string ptx(static_cast<const char *>(image));
  char *error_log = nullptr, *info_log = nullptr;
  size_t error_size = 0, info_size = 0;
  for (unsigned i = 0; i < count; ++i) {
    switch (options[i]) {
    case 3:
      info_log = static_cast<char *>(values[i]);
      break;
    case 4:
      info_size = size_t(reinterpret_cast<uintptr_t>(values[i]));
      break;
    case 5:
      error_log = static_cast<char *>(values[i]);
      break;
    case 6:
      error_size = size_t(reinterpret_cast<uintptr_t>(values[i]));
      break;
    default:
      break;
    }
  }
  if (ptx.find("syntax error") != std::string::npos) {
    if (error_log != nullptr && error_size > 0)
      std::snprintf(error_log, error_size, "%s",
                    "ptxas application ptx input, line 3; error   : syntax error\n"
                    "ptxas fatal   : Ptx assembly aborted due to errors\n");
    return INVALID_PTX;
  }
  auto *m = new FakeModule{ptx, parse_entries(ptx), nullptr, {}};
  if (ptx.find("simt_exception") != std::string::npos) {
    m->exception.reset(new int32_t[8]());
    allocations[uintptr_t(m->exception.get())] = 8 * sizeof(int32_t);
  }
  if (info_log != nullptr && info_size > 0)
    std::snprintf(info_log, info_size, "fake JIT: %zu entries", m->entries.size());
  *module = m;
  return SUCCESS;
}

FAKE_API CUresult cuModuleUnload(FakeModule *module) {
  std::lock_guard<std::mutex> lock(mutex);
  if (module == nullptr)
    return INVALID_HANDLE;
  if (module->exception)
    allocations.erase(uintptr_t(module->exception.get()));
  delete module;
  return SUCCESS;
}

FAKE_API CUresult cuModuleGetFunction(FakeFunction **function, FakeModule *module,
                                      const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  auto it = module->entries.find(name);
  if (it == module->entries.end())
    return NOT_FOUND;
  // A function lives as long as its module, as with a real driver.
  auto &owned = module->functions[name];
  if (!owned)
    owned.reset(new FakeFunction{module, name, it->second});
  *function = owned.get();
  return SUCCESS;
}

FAKE_API CUresult cuModuleGetGlobal_v2(unsigned long long *pointer, size_t *bytes,
                                       FakeModule *module, const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (std::strcmp(name, "simt_exception") != 0 || !module->exception)
    return NOT_FOUND;
  if (pointer)
    *pointer = uintptr_t(module->exception.get());
  if (bytes)
    *bytes = 8 * sizeof(int32_t);
  return SUCCESS;
}

FAKE_API CUresult cuFuncSetAttribute(FakeFunction *function, int attribute, int value) {
  std::lock_guard<std::mutex> lock(mutex);
  if (function == nullptr)
    return INVALID_HANDLE;
  if (attribute == 8) { // MAX_DYNAMIC_SHARED_SIZE_BYTES
    if (value > 227 * 1024)
      return INVALID_VALUE;
    ++shared_opt_ins;
    shared_opt_in_value = value;
  }
  return SUCCESS;
}

FAKE_API CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (bytes == 0)
    return INVALID_VALUE;
  void *memory = std::malloc(bytes);
  allocations[uintptr_t(memory)] = bytes;
  ++live_allocations;
  *pointer = uintptr_t(memory);
  return SUCCESS;
}

FAKE_API CUresult cuMemFree_v2(unsigned long long pointer) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(uintptr_t(pointer));
  if (it == allocations.end())
    return INVALID_VALUE;
  allocations.erase(it);
  --live_allocations;
  std::free(reinterpret_cast<void *>(uintptr_t(pointer)));
  return sticky ? ILLEGAL_ADDRESS : SUCCESS;
}

FAKE_API CUresult cuMemcpyHtoD_v2(unsigned long long destination, const void *source,
                                  size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (!inside(uintptr_t(destination), bytes))
    return INVALID_VALUE;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(destination)), source, bytes);
  return SUCCESS;
}

FAKE_API CUresult cuMemcpyDtoH_v2(void *destination, unsigned long long source, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (!inside(uintptr_t(source), bytes))
    return INVALID_VALUE;
  std::memcpy(destination, reinterpret_cast<const void *>(uintptr_t(source)), bytes);
  return SUCCESS;
}

FAKE_API CUresult cuMemsetD8_v2(unsigned long long destination, unsigned char value, size_t count) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  if (!inside(uintptr_t(destination), count))
    return INVALID_VALUE;
  std::memset(reinterpret_cast<void *>(uintptr_t(destination)), value, count);
  return SUCCESS;
}

namespace {
int stream_tag;
}

FAKE_API CUresult cuStreamCreate(void **stream, unsigned) {
  if (CUresult r = gate())
    return r;
  *stream = &stream_tag;
  return SUCCESS;
}

FAKE_API CUresult cuStreamDestroy_v2(void *stream) {
  return stream == &stream_tag ? SUCCESS : INVALID_HANDLE;
}

FAKE_API CUresult cuStreamSynchronize(void *) {
  std::lock_guard<std::mutex> lock(mutex);
  return gate();
}

FAKE_API CUresult cuStreamQuery(void *) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  return hung ? NOT_READY : SUCCESS;
}

FAKE_API CUresult cuEventCreate(float **event, unsigned) {
  if (CUresult r = gate())
    return r;
  *event = new float(0);
  return SUCCESS;
}

FAKE_API CUresult cuEventDestroy_v2(float *event) {
  delete event;
  return SUCCESS;
}

namespace {
float event_clock = 0;
}

FAKE_API CUresult cuEventRecord(float *event, void *) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  event_clock += 0.25f;
  *event = event_clock;
  return SUCCESS;
}

FAKE_API CUresult cuEventSynchronize(float *) {
  std::lock_guard<std::mutex> lock(mutex);
  return gate();
}

// Only the old name: the driver layer falls back to it when there is no _v2.
FAKE_API CUresult cuEventElapsedTime(float *milliseconds, float *start, float *end) {
  std::lock_guard<std::mutex> lock(mutex);
  if (CUresult r = gate())
    return r;
  *milliseconds = *end - *start;
  return SUCCESS;
}

FAKE_API CUresult cuLaunchKernel(FakeFunction *function, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared, void *,
                                 void **params, void **extra) {
  if (extra != nullptr)
    return INVALID_VALUE;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return do_launch(function, grid, block, shared, params, false);
}

FAKE_API CUresult cuLaunchCooperativeKernel(FakeFunction *function, unsigned gx, unsigned gy,
                                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                            unsigned shared, void *, void **params) {
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return do_launch(function, grid, block, shared, params, true);
}
