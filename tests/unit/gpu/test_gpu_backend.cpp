// The GPU backend (gpu/gpu_backend.h) against the fake driver (tests/unit/fake_libcuda.cpp): a
// hand-built kernel compiled to PTX, launched from the host argument buffer, its parameters as
// Numba's ABI lays them out; and the exception record read back as the simulator's fault.
#include "gpu/gpu_backend.h"
#include "tests/unit/driver/fake_driver.h"
#include "tests/unit/ir_builder.h"

#include <doctest/doctest.h>

#include <complex>
#include <cstring>

using namespace simt;
using namespace simt::irb;

namespace {

// kernel(x: float64[:, ::1], flag: bool, z: complex64, t: UniTuple(int32 x 2)):
//   x[0, 0] = 1.0
ir::Module kernel_module() {
  FunctionBuilder k("kernel", true);
  int x = k.param("x", array(Scalar::F64, 2));
  k.param("flag", boolean());
  k.param("z", scalar(Scalar::C64));
  k.param("t", Type::tuple_of({i32(), i32()}));
  k.f.body = block(store(k.get(x), list(int_const(0), int_const(0)), float_const(1.0)));
  return module_of(std::move(k.f));
}

template <class T> int64_t bits(const std::vector<uint8_t> &bytes) {
  T value{};
  std::memcpy(&value, bytes.data(), sizeof value);
  return int64_t(value);
}

} // namespace

TEST_CASE("gpu backend: arguments go to the device in Numba's kernel ABI") {
  fake::library();
  fake::reset();
  gpu::GpuBackend backend;
  CHECK(backend.cc() == "sm_90"); // the fake's device
  ir::Module module = kernel_module();
  std::unique_ptr<codegen::Executable> executable = backend.compile(module, {});

  double x[6] = {0, 0, 0, 0, 0, 0};
  int64_t array_slot[5] = {int64_t(reinterpret_cast<intptr_t>(x)), 2, 3, 24, 8};
  uint8_t flag = 1;
  std::complex<float> z(1.5f, -2.5f);
  int64_t tuple_slots[2] = {7, 9};
  void *args[] = {array_slot, &flag, &z, tuple_slots};
  codegen::LaunchConfig config;
  config.grid = {2, 1, 1};
  config.block = {32, 1, 1};
  CHECK_FALSE(executable->launch(config, args).has_value());

  const FakeLaunch *launch = fake::last_launch();
  REQUIRE(launch != nullptr);
  CHECK(launch->name == "kernel");
  CHECK(launch->grid[0] == 2);
  CHECK(launch->block[0] == 32);
  // x: meminfo, parent, nitems, itemsize, data, shape (2), strides (2); flag; z (2 floats); t.
  REQUIRE(launch->params.size() == 9 + 1 + 2 + 2);
  CHECK(bits<int64_t>(launch->params[0]) == 0);
  CHECK(bits<int64_t>(launch->params[2]) == 6);
  CHECK(bits<int64_t>(launch->params[3]) == 8);
  CHECK(launch->allocation_size[4] == 48); // data: device memory holding the 6 elements
  CHECK(bits<int64_t>(launch->params[5]) == 2);
  CHECK(bits<int64_t>(launch->params[6]) == 3);
  CHECK(bits<int64_t>(launch->params[7]) == 24);
  CHECK(bits<int64_t>(launch->params[8]) == 8);
  CHECK(launch->params[9] == std::vector<uint8_t>{1});
  float parts[2];
  std::memcpy(&parts[0], launch->params[10].data(), 4);
  std::memcpy(&parts[1], launch->params[11].data(), 4);
  CHECK(parts[0] == 1.5f);
  CHECK(parts[1] == -2.5f);
  CHECK(bits<int32_t>(launch->params[12]) == 7);
  CHECK(bits<int32_t>(launch->params[13]) == 9);
  CHECK(fake::live_allocations() == 0);
  // The fake's occupancy: two blocks per multiprocessor, 132 multiprocessors.
  CHECK(executable->max_cooperative_blocks({64, 1, 1}, 0) == 264);
}

TEST_CASE("gpu backend: the exception record is the simulator's fault") {
  gpu::CompiledPtx compiled;
  compiled.locations = {{"kernel.py", 3, 5, "kernel"}, {"kernel.py", 7, 9, "helper"}};
  compiled.raised = {{"ValueError", "bad value"}};
  std::vector<int32_t> record(gpu::exception_record_words, 0);
  record[0] = gpu::index_error_code;
  record[1] = 1;
  record[2] = 10;
  record[6] = 2;
  record[8] = 1;
  int64_t index = -12, extent = 5;
  std::memcpy(&record[10], &index, 8);
  std::memcpy(&record[12], &extent, 8);
  codegen::Fault fault = gpu::fault_of_record(record, compiled);
  CHECK(fault.exception == "IndexError");
  CHECK(fault.message == "index -12 is out of bounds for axis 1 with size 5");
  CHECK(fault.tid.x == 10);
  CHECK(fault.ctaid.y == 2);
  CHECK(fault.where.line == 7);
  CHECK(fault.where.function == "helper");

  record[0] = gpu::first_raise_code;
  fault = gpu::fault_of_record(record, compiled);
  CHECK(fault.exception == "ValueError");
  CHECK(fault.message == "bad value");
  record[0] = gpu::first_raise_code + 5;
  CHECK(gpu::fault_of_record(record, compiled).exception == "RuntimeError");
}
