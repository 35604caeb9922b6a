#include "gpu/driver.h"

#include "config/settings.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <type_traits>

namespace simt::gpu {

using namespace cu;

namespace {

// The first of `names` the library exports (newest ABI first), or nullptr.
void *symbol(void *library, std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (void *address = dlsym(library, name))
      return address;
  return nullptr;
}

// One line: newlines of a dlerror() or driver message become spaces.
std::string one_line(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\r')
      c = ' ';
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return text;
}

} // namespace

bool DriverError::sticky() const {
  switch (result_) {
  case 700: // CUDA_ERROR_ILLEGAL_ADDRESS
  case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
  case 710: // CUDA_ERROR_ASSERT
  case 714: // CUDA_ERROR_HARDWARE_STACK_ERROR
  case 715: // CUDA_ERROR_ILLEGAL_INSTRUCTION
  case 716: // CUDA_ERROR_MISALIGNED_ADDRESS
  case 717: // CUDA_ERROR_INVALID_ADDRESS_SPACE
  case 718: // CUDA_ERROR_INVALID_PC
  case 719: // CUDA_ERROR_LAUNCH_FAILED
  case 999: // CUDA_ERROR_UNKNOWN
    return true;
  default:
    return false;
  }
}

struct Driver::Contexts {
  std::mutex mutex;
  std::vector<CUcontext> retained; // by device ordinal; nullptr until retained
};

std::unique_ptr<Driver> Driver::open(const std::string &path) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->path_ = path;
  driver->contexts_ = std::make_unique<Contexts>();
  dlerror();
  driver->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (driver->library_ == nullptr) {
    const char *why = dlerror();
    throw GpuUnavailable(one_line("simt: no GPU: " + path + " cannot be loaded (" +
                                  (why ? why : "unknown error") + ")"));
  }
  Api &api = driver->api_;
  void *lib = driver->library_;
  std::string missing;
  auto bind = [&](auto &slot, std::initializer_list<const char *> names) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol(lib, names));
    if (slot == nullptr)
      missing += (missing.empty() ? "" : ", ") + std::string(*names.begin());
  };
  bind(api.cuInit, {"cuInit"});
  bind(api.cuDriverGetVersion, {"cuDriverGetVersion"});
  bind(api.cuGetErrorName, {"cuGetErrorName"});
  bind(api.cuGetErrorString, {"cuGetErrorString"});
  bind(api.cuDeviceGetCount, {"cuDeviceGetCount"});
  bind(api.cuDeviceGet, {"cuDeviceGet"});
  bind(api.cuDeviceGetName, {"cuDeviceGetName"});
  bind(api.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  bind(api.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"});
  bind(api.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(api.cuDevicePrimaryCtxRelease,
       {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  bind(api.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  bind(api.cuCtxSynchronize, {"cuCtxSynchronize"});
  bind(api.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  bind(api.cuModuleUnload, {"cuModuleUnload"});
  bind(api.cuLinkCreate, {"cuLinkCreate_v2", "cuLinkCreate"});
  bind(api.cuLinkAddData, {"cuLinkAddData_v2", "cuLinkAddData"});
  bind(api.cuLinkComplete, {"cuLinkComplete"});
  bind(api.cuLinkDestroy, {"cuLinkDestroy"});
  bind(api.cuModuleGetFunction, {"cuModuleGetFunction"});
  bind(api.cuModuleGetGlobal, {"cuModuleGetGlobal_v2"});
  bind(api.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  bind(api.cuMemAlloc, {"cuMemAlloc_v2"});
  bind(api.cuMemFree, {"cuMemFree_v2"});
  bind(api.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
  bind(api.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
  bind(api.cuMemsetD8, {"cuMemsetD8_v2"});
  bind(api.cuStreamCreate, {"cuStreamCreate"});
  bind(api.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"});
  bind(api.cuStreamSynchronize, {"cuStreamSynchronize"});
  bind(api.cuStreamQuery, {"cuStreamQuery"});
  bind(api.cuEventCreate, {"cuEventCreate"});
  bind(api.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  bind(api.cuEventRecord, {"cuEventRecord"});
  bind(api.cuEventSynchronize, {"cuEventSynchronize"});
  bind(api.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  bind(api.cuLaunchKernel, {"cuLaunchKernel"});
  bind(api.cuLaunchCooperativeKernel, {"cuLaunchCooperativeKernel"});
  bind(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
       {"cuOccupancyMaxActiveBlocksPerMultiprocessor"});
  if (!missing.empty())
    throw GpuUnavailable("simt: no GPU: " + path + " lacks " + missing +
                         " (a CUDA driver older than 11.0?)");
  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS)
    throw GpuUnavailable(
        one_line("simt: no GPU: cuInit failed (" + driver->error_text(result) + ")"));
  return driver;
}

Driver &Driver::get() {
  static std::once_flag once;
  static Driver *driver = nullptr; // never destroyed: modules may outlive static destructors
  static std::string failure;
  std::call_once(once, [] {
    std::string path = config::text(config::Setting::SIMT_LIBCUDA);
    try {
      driver = open(path).release();
    } catch (const GpuUnavailable &e) {
      failure = e.what();
    }
  });
  if (driver == nullptr)
    throw GpuUnavailable(failure);
  return *driver;
}

Driver::~Driver() {
  if (contexts_ && api_.cuDevicePrimaryCtxRelease)
    for (size_t device = 0; device < contexts_->retained.size(); ++device)
      if (contexts_->retained[device] != nullptr)
        api_.cuDevicePrimaryCtxRelease(CUdevice(device));
  if (library_ != nullptr)
    dlclose(library_);
}

std::string Driver::error_text(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api_.cuGetErrorName == nullptr || api_.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (api_.cuGetErrorString == nullptr || api_.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(": ") + text;
  return one_line(out);
}

void Driver::check(CUresult result, const char *call) const {
  if (result != CUDA_SUCCESS)
    throw DriverError("simt: " + std::string(call) + " failed (" + error_text(result) + ")",
                      result);
}

int Driver::version() {
  int version = 0;
  check(api_.cuDriverGetVersion(&version), "cuDriverGetVersion");
  return version;
}

int Driver::device_count() {
  int count = 0;
  CUresult result = api_.cuDeviceGetCount(&count);
  if (result == CUDA_ERROR_NO_DEVICE)
    return 0;
  check(result, "cuDeviceGetCount");
  return count;
}

std::string Driver::device_name(int device) {
  CUdevice handle = 0;
  check(api_.cuDeviceGet(&handle, device), "cuDeviceGet");
  char name[256] = {};
  check(api_.cuDeviceGetName(name, int(sizeof name) - 1, handle), "cuDeviceGetName");
  return name;
}

int Driver::attribute(int device, int attribute) {
  CUdevice handle = 0;
  check(api_.cuDeviceGet(&handle, device), "cuDeviceGet");
  int value = 0;
  check(api_.cuDeviceGetAttribute(&value, attribute, handle), "cuDeviceGetAttribute");
  return value;
}

std::pair<int, int> Driver::compute_capability(int device) {
  return {attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
          attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

int Driver::max_active_blocks(CUfunction function, int block_size, size_t shared_bytes) {
  int blocks = 0;
  check(
      api_.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, block_size, shared_bytes),
      "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

int Driver::multiprocessor_count(int device) {
  return attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

bool Driver::cooperative_launch(int device) {
  return attribute(device, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
}

size_t Driver::total_memory(int device) {
  CUdevice handle = 0;
  check(api_.cuDeviceGet(&handle, device), "cuDeviceGet");
  size_t bytes = 0;
  check(api_.cuDeviceTotalMem(&bytes, handle), "cuDeviceTotalMem");
  return bytes;
}

CUcontext Driver::make_current(int device) {
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(contexts_->mutex);
    if (device < 0)
      throw std::runtime_error("simt: no CUDA device " + std::to_string(device));
    if (contexts_->retained.size() <= size_t(device))
      contexts_->retained.resize(size_t(device) + 1, nullptr);
    context = contexts_->retained[size_t(device)];
    if (context == nullptr) {
      CUdevice handle = 0;
      check(api_.cuDeviceGet(&handle, device), "cuDeviceGet");
      check(api_.cuDevicePrimaryCtxRetain(&context, handle), "cuDevicePrimaryCtxRetain");
      contexts_->retained[size_t(device)] = context;
    }
  }
  check(api_.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return context;
}

void Driver::synchronize() { check(api_.cuCtxSynchronize(), "cuCtxSynchronize"); }

void Driver::synchronize(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const cu::CUresult result = api_.cuStreamQuery(nullptr);
    if (result != cu::CUDA_ERROR_NOT_READY) {
      check(result, "cuStreamQuery");
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw DriverError("simt: the kernel did not end within " + std::to_string(limit.count()) +
                            " ms (it hangs: a deadlock, a warp or barrier misused?); its context "
                            "is lost to this process",
                        cu::CUDA_ERROR_LAUNCH_TIMEOUT);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
  synchronize();
}

// --- Module ---

Module::Module(const std::string &ptx, Driver &driver) : driver_(driver) { load(ptx.c_str()); }

Module::Module(const std::vector<std::string> &ptx, Driver &driver) : driver_(driver) {
  if (ptx.size() == 1) {
    load(ptx[0].c_str());
    return;
  }
  std::vector<char> error_log(16384, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log.data(), reinterpret_cast<void *>(uintptr_t(error_log.size() - 1))};
  CUlinkState state = nullptr;
  driver_.check(driver_.api().cuLinkCreate(2, options, values, &state), "cuLinkCreate");
  struct Destroy {
    const Api &api;
    CUlinkState state;
    ~Destroy() { api.cuLinkDestroy(state); }
  } destroy{driver_.api(), state};
  auto fail = [&](CUresult result, const char *call) {
    std::string log(error_log.data());
    while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
      log.pop_back();
    throw DriverError(std::string("simt: ") + call + " failed (" + driver_.error_text(result) +
                          ")" + (log.empty() ? "" : "\n" + log),
                      result);
  };
  for (size_t i = 0; i < ptx.size(); ++i) {
    std::string name = "module" + std::to_string(i) + ".ptx";
    CUresult result =
        driver_.api().cuLinkAddData(state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx[i].c_str()),
                                    ptx[i].size() + 1, name.c_str(), 0, nullptr, nullptr);
    if (result != CUDA_SUCCESS)
      fail(result, "cuLinkAddData");
  }
  void *image = nullptr;
  size_t bytes = 0;
  if (CUresult result = driver_.api().cuLinkComplete(state, &image, &bytes); result != CUDA_SUCCESS)
    fail(result, "cuLinkComplete");
  load(image); // before cuLinkDestroy frees the image
}

void Module::load(const void *image) {
  std::vector<char> error_log(16384, '\0');
  std::vector<char> info_log(16384, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE};
  void *values[] = {error_log.data(), reinterpret_cast<void *>(uintptr_t(error_log.size() - 1)),
                    info_log.data(), reinterpret_cast<void *>(uintptr_t(info_log.size() - 1)),
                    reinterpret_cast<void *>(uintptr_t(1))};
  CUresult result = driver_.api().cuModuleLoadDataEx(
      &module_, image, unsigned(sizeof options / sizeof options[0]), options, values);
  info_log_ = std::string(info_log.data());
  if (result != CUDA_SUCCESS) {
    module_ = nullptr;
    std::string log(error_log.data());
    while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
      log.pop_back();
    std::string message = "simt: cuModuleLoadDataEx failed (" + driver_.error_text(result) + ")";
    if (!log.empty())
      message += "\n" + log;
    throw DriverError(message, result);
  }
}

Module::~Module() {
  if (module_ != nullptr)
    driver_.api().cuModuleUnload(module_);
}

CUfunction Module::function(const std::string &name) const {
  CUfunction function = nullptr;
  CUresult result = driver_.api().cuModuleGetFunction(&function, module_, name.c_str());
  if (result != CUDA_SUCCESS)
    throw DriverError("simt: cuModuleGetFunction(\"" + name + "\") failed (" +
                          driver_.error_text(result) + ")",
                      result);
  return function;
}

Module::Global Module::global(const std::string &name) const {
  Global global;
  CUresult result =
      driver_.api().cuModuleGetGlobal(&global.address, &global.bytes, module_, name.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    return Global{};
  driver_.check(result, "cuModuleGetGlobal");
  return global;
}

std::vector<uint8_t> Module::read_global(const std::string &name) const {
  Global g = global(name);
  if (g.address == 0)
    throw std::runtime_error("simt: the module has no global '" + name + "'");
  std::vector<uint8_t> bytes(g.bytes);
  if (g.bytes != 0)
    driver_.check(driver_.api().cuMemcpyDtoH(bytes.data(), g.address, g.bytes), "cuMemcpyDtoH");
  return bytes;
}

void Module::write_global(const std::string &name, const void *data, size_t bytes) const {
  Global g = global(name);
  if (g.address == 0)
    throw std::runtime_error("simt: the module has no global '" + name + "'");
  if (bytes > g.bytes)
    throw std::runtime_error("simt: " + std::to_string(bytes) + " bytes do not fit global '" +
                             name + "' of " + std::to_string(g.bytes));
  if (bytes != 0)
    driver_.check(driver_.api().cuMemcpyHtoD(g.address, data, bytes), "cuMemcpyHtoD");
}

// --- DeviceMemory ---

DeviceMemory::DeviceMemory(size_t bytes, Driver &driver) : driver_(&driver), bytes_(bytes) {
  if (bytes != 0)
    driver.check(driver.api().cuMemAlloc(&address_, bytes), "cuMemAlloc");
}

DeviceMemory::~DeviceMemory() { release(); }

void DeviceMemory::release() noexcept {
  if (address_ != 0)
    driver_->api().cuMemFree(address_); // a sticky error fails it too; nothing more to do
  address_ = 0;
  bytes_ = 0;
}

DeviceMemory::DeviceMemory(DeviceMemory &&other) noexcept
    : driver_(other.driver_), address_(other.address_), bytes_(other.bytes_) {
  other.address_ = 0;
  other.bytes_ = 0;
}

DeviceMemory &DeviceMemory::operator=(DeviceMemory &&other) noexcept {
  if (this != &other) {
    release();
    driver_ = other.driver_;
    address_ = other.address_;
    bytes_ = other.bytes_;
    other.address_ = 0;
    other.bytes_ = 0;
  }
  return *this;
}

namespace {
void check_range(size_t offset, size_t bytes, size_t size) {
  if (offset > size || bytes > size - offset)
    throw std::out_of_range("simt: a copy of " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " overruns a device allocation of " +
                            std::to_string(size) + " bytes");
}
} // namespace

void DeviceMemory::copy_from_host(const void *source, size_t bytes, size_t offset) {
  check_range(offset, bytes, bytes_);
  if (bytes != 0)
    driver_->check(driver_->api().cuMemcpyHtoD(address_ + offset, source, bytes), "cuMemcpyHtoD");
}

void DeviceMemory::copy_to_host(void *destination, size_t bytes, size_t offset) const {
  check_range(offset, bytes, bytes_);
  if (bytes != 0)
    driver_->check(driver_->api().cuMemcpyDtoH(destination, address_ + offset, bytes),
                   "cuMemcpyDtoH");
}

void DeviceMemory::memset(uint8_t value) {
  if (bytes_ != 0)
    driver_->check(driver_->api().cuMemsetD8(address_, value, bytes_), "cuMemsetD8");
}

// --- Stream, Event ---

Stream::Stream(Driver &driver) : driver_(driver) {
  driver_.check(driver_.api().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

Stream::~Stream() {
  if (stream_ != nullptr)
    driver_.api().cuStreamDestroy(stream_);
}

void Stream::synchronize() {
  driver_.check(driver_.api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Event::Event(Driver &driver) : driver_(driver) {
  driver_.check(driver_.api().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate");
}

Event::~Event() {
  if (event_ != nullptr)
    driver_.api().cuEventDestroy(event_);
}

void Event::record(CUstream stream) {
  driver_.check(driver_.api().cuEventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() {
  driver_.check(driver_.api().cuEventSynchronize(event_), "cuEventSynchronize");
}

float Event::elapsed_since(const Event &start) const {
  float ms = 0;
  driver_.check(driver_.api().cuEventElapsedTime(&ms, start.event_, event_), "cuEventElapsedTime");
  return ms;
}

// --- launches ---

void launch(CUfunction function, Dim3 grid, Dim3 block, unsigned shared_bytes, CUstream stream,
            void **params, bool cooperative, Driver &driver) {
  if (shared_bytes > 48 * 1024)
    driver.check(driver.api().cuFuncSetAttribute(
                     function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shared_bytes)),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  if (cooperative)
    driver.check(driver.api().cuLaunchCooperativeKernel(function, grid.x, grid.y, grid.z, block.x,
                                                        block.y, block.z, shared_bytes, stream,
                                                        params),
                 "cuLaunchCooperativeKernel");
  else
    driver.check(driver.api().cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y,
                                             block.z, shared_bytes, stream, params, nullptr),
                 "cuLaunchKernel");
}

} // namespace simt::gpu
