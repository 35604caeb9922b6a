#include "gpu/gpu_backend.h"

#include "config/settings.h"
#include "gpu/driver.h"
#include "gpu/launch_ptx.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace simt::gpu {

namespace {

// The driver's Dim3 (gpu/driver.h builds without LLVM, so it has its own).
Dim3 device_dims(const codegen::Dim3 &d) { return Dim3{d.x, d.y, d.z}; }

// Reads the argument of `type` at `slot` of the host argument buffer (codegen/backend.h) into
// `out`; returns the number of 8-byte slots it took (tuples' elements).
size_t gather_argument(const Type &type, const int64_t *slot, std::vector<KernelArgument> &out) {
  if (type.is_array()) {
    auto *header = reinterpret_cast<const codegen::ArrayHeader *>(slot);
    HostArray array;
    array.data = header->data;
    array.shape.assign(header->dims, header->dims + type.ndim);
    array.strides.assign(header->dims + type.ndim, header->dims + 2 * type.ndim);
    array.itemsize = type.is_record_array() ? type.record->size : byte_size(type.scalar);
    array.copy_back = !type.readonly;
    out.push_back(KernelArgument::of(std::move(array)));
    return size_t(1 + 2 * type.ndim);
  }
  if (type.is_scalar()) {
    const size_t bytes = size_t(byte_size(type.scalar));
    out.push_back(KernelArgument::scalar(slot, bytes, is_complex(type.scalar) ? 2 : 1));
    return (bytes + 7) / 8;
  }
  if (type.is_tuple()) {
    size_t used = 0;
    for (const Type &element : type.elems)
      used += gather_argument(element, slot + used, out);
    return used;
  }
  throw std::runtime_error("simt: a kernel argument of type " + type.str() +
                           " is not supported by the GPU target yet");
}

// SIMT_GPU_TIMEOUT: seconds a launch may run before it is taken for a hang (default 60; 0: no
// limit). A hung kernel's launch raises, rather than hang the user's process; the context is lost.
std::chrono::milliseconds launch_limit() {
  const double seconds = config::leading_number(config::Setting::SIMT_GPU_TIMEOUT);
  return std::chrono::milliseconds(seconds > 0 ? std::max<int64_t>(1, int64_t(seconds * 1000)) : 0);
}

} // namespace

codegen::Fault fault_of_record(const std::vector<int32_t> &record, const CompiledPtx &compiled) {
  codegen::Fault fault;
  const int32_t code = record.at(0);
  const auto location = size_t(record.at(1));
  if (location < compiled.locations.size())
    fault.where = compiled.locations[location];
  fault.tid = {uint32_t(record.at(2)), uint32_t(record.at(3)), uint32_t(record.at(4))};
  fault.ctaid = {uint32_t(record.at(5)), uint32_t(record.at(6)), uint32_t(record.at(7))};
  if (code == index_error_code) {
    int64_t index = 0, size = 0;
    if (record.size() >= size_t(exception_record_words)) {
      std::memcpy(&index, &record[10], sizeof index);
      std::memcpy(&size, &record[12], sizeof size);
    }
    fault.exception = "IndexError";
    fault.message = codegen::index_error_message(index, record.size() > 8 ? record[8] : 0, size);
  } else if (code >= first_raise_code && size_t(code - first_raise_code) < compiled.raised.size()) {
    const RaiseSite &site = compiled.raised[size_t(code - first_raise_code)];
    fault.exception = site.exception;
    fault.message = site.message;
  } else {
    fault.exception = "RuntimeError";
    fault.message = "simt: the GPU recorded an unknown exception code " + std::to_string(code);
  }
  return fault;
}

GpuExecutable::GpuExecutable(CompiledPtx compiled, std::vector<std::string> link,
                             const ir::Module &module)
    : compiled_(std::move(compiled)), link_(std::move(link)),
      cooperative_(module.props.uses_grid_sync) {
  const ir::Function &kernel = module.kernel();
  for (int i = 0; i < kernel.num_params; ++i)
    param_types_.push_back(kernel.slots[size_t(i)].type);
}

GpuExecutable::~GpuExecutable() = default;

std::optional<codegen::Fault> GpuExecutable::launch(const codegen::LaunchConfig &config,
                                                    void **args) {
  std::vector<KernelArgument> arguments;
  for (size_t i = 0; i < param_types_.size(); ++i)
    gather_argument(param_types_[i], static_cast<const int64_t *>(args[i]), arguments);
  std::lock_guard<std::mutex> lock(mutex_);
  Module &module = loaded();
  // The static shared arrays are the module's globals: the launch gives the dynamic bytes.
  std::optional<DeviceFault> fault =
      launch_kernel(module, compiled_.entry, device_dims(config.grid), device_dims(config.block),
                    config.dynamic_shared_bytes, cooperative_, arguments, nullptr, launch_limit());
  if (!compiled_.free_arrays.empty()) { // the arrays the kernel allocated, as the launch ends
    std::vector<KernelArgument> none;
    launch_kernel(module, compiled_.free_arrays, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, none,
                  nullptr, launch_limit());
  }
  if (!fault)
    return std::nullopt;
  return fault_of_record(fault->record, compiled_);
}

uint64_t GpuExecutable::max_cooperative_blocks(const codegen::Dim3 &block,
                                               uint64_t dynamic_shared_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  Module &module = loaded();
  const uint64_t per_multiprocessor = module.driver().max_active_blocks(
      module.function(compiled_.entry), int(block.count()),
      size_t(dynamic_shared_bytes)); // the static arrays count as the function's own
  return per_multiprocessor * uint64_t(module.driver().multiprocessor_count(0));
}

Module &GpuExecutable::loaded() {
  Driver &driver = Driver::get();
  driver.make_current(0);
  if (loaded_ == nullptr) { // the driver JIT-compiles (and links) the PTX once
    std::vector<std::string> modules{compiled_.ptx};
    modules.insert(modules.end(), link_.begin(), link_.end());
    loaded_ = std::make_unique<Module>(modules, driver);
  }
  return *loaded_;
}

GpuBackend::GpuBackend() {
  Driver &driver = Driver::get();
  if (driver.device_count() == 0)
    throw GpuUnavailable("simt: no GPU: the CUDA driver reports no device");
  auto [major, minor] = driver.compute_capability(0);
  cc_ = "sm_" + std::to_string(major) + std::to_string(minor);
}

std::unique_ptr<codegen::Executable> GpuBackend::compile(const ir::Module &module,
                                                         const std::vector<std::string> &link) {
  PtxOptions options;
  options.cc = cc_;
  return std::make_unique<GpuExecutable>(compile_ptx(module, options), link, module);
}

} // namespace simt::gpu
