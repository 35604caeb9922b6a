// gpu/driver.h and gpu/launch_ptx.h against the fake driver (tests/unit/fake_libcuda.cpp): no
// GPU needed. What a missing or failing driver does is checked in child processes, since the
// process's driver is loaded once.
#include "gpu/driver.h"
#include "gpu/launch_ptx.h"
#include "gpu/runner/selftest_ptx.h"

#include "fake_driver.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

using namespace simt::gpu;

namespace {

// Runs `body` in a child process and returns what it returned.
std::string in_child(const std::function<std::string()> &body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception &e) {
      out = std::string("unexpected exception: ") + e.what();
    }
    ssize_t written = write(fds[1], out.data(), out.size());
    _exit(written == ssize_t(out.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    out.append(buffer, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return out;
}

// Driver::get()'s GpuUnavailable text (twice: the failure is remembered), or "no exception".
std::string get_failure() {
  std::string first, second;
  try {
    Driver::get();
    return "no exception";
  } catch (const GpuUnavailable &e) {
    first = e.what();
  }
  try {
    Driver::get();
  } catch (const GpuUnavailable &e) {
    second = e.what();
  }
  return first == second ? first : "a different second message: " + second;
}

template <class T> T param_value(const FakeLaunch &launch, size_t i) {
  REQUIRE(i < launch.params.size());
  REQUIRE(launch.params[i].size() == sizeof(T));
  T value;
  std::memcpy(&value, launch.params[i].data(), sizeof value);
  return value;
}

HostArray view(void *data, std::vector<int64_t> shape, std::vector<int64_t> strides,
               int64_t itemsize, bool copy_back = true) {
  HostArray a;
  a.data = data;
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  a.itemsize = itemsize;
  a.copy_back = copy_back;
  return a;
}

Driver &driver() {
  fake::library();
  return Driver::get();
}

} // namespace

TEST_CASE("unavailable: a driver library that cannot be loaded is GpuUnavailable, in one line") {
  try {
    Driver::open("/nonexistent/libcuda.so.1");
    FAIL("no exception");
  } catch (const GpuUnavailable &e) {
    std::string what = e.what();
    CHECK(what.rfind("simt: no GPU: /nonexistent/libcuda.so.1 cannot be loaded (", 0) == 0);
    CHECK(what.find("No such file") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  std::string what = in_child([] {
    setenv("SIMT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    return get_failure();
  });
  CHECK(what.rfind("simt: no GPU: /nonexistent/libcuda.so.1 cannot be loaded (", 0) == 0);
  CHECK(what.find('\n') == std::string::npos);
  // GpuUnavailable is a runtime_error, the one callers catch to fall back to the simulator.
  CHECK(std::is_base_of_v<std::runtime_error, GpuUnavailable>);
}

TEST_CASE("unavailable: cuInit failing is GpuUnavailable with the driver's words") {
  std::string what = in_child([] {
    setenv("SIMT_LIBCUDA", SIMT_FAKE_LIBCUDA, 1);
    setenv("FAKE_CUDA_NO_DEVICE", "1", 1);
    return get_failure();
  });
  CHECK(what ==
        "simt: no GPU: cuInit failed (CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)");
}

TEST_CASE("driver: the device's properties") {
  Driver &d = driver();
  CHECK(d.path() == SIMT_FAKE_LIBCUDA);
  CHECK(d.version() == 13000);
  CHECK(d.device_count() == 1);
  CHECK(d.device_name(0) == "Fake CUDA Device");
  CHECK(d.compute_capability(0) == std::pair<int, int>(9, 0));
  CHECK(d.multiprocessor_count(0) == 132);
  CHECK(d.cooperative_launch(0));
  CHECK(d.attribute(0, cu::CU_DEVICE_ATTRIBUTE_WARP_SIZE) == 32);
  CHECK(d.total_memory(0) == size_t(80) << 30);
  CHECK(d.make_current(0) != nullptr);
  CHECK(d.make_current(0) == d.make_current(0));
  CHECK_THROWS_WITH_AS(d.device_name(1),
                       "simt: cuDeviceGet failed (CUDA_ERROR_INVALID_VALUE: invalid argument)",
                       DriverError);
  d.synchronize();
}

TEST_CASE("driver: errors name the call and the driver's words") {
  Driver &d = driver();
  d.make_current(0);
  std::string what;
  // A thread without a current context.
  std::thread([&] {
    try {
      DeviceMemory memory(16);
    } catch (const DriverError &e) {
      what = e.what();
      CHECK(e.result() == 201);
      CHECK_FALSE(e.sticky());
    }
  }).join();
  CHECK(what == "simt: cuMemAlloc failed (CUDA_ERROR_INVALID_CONTEXT: invalid device context)");
  CHECK(d.error_text(12345) == "CUDA error 12345");
}

TEST_CASE("driver: device memory copies, memset and frees") {
  Driver &d = driver();
  d.make_current(0);
  long before = fake::live_allocations();
  {
    DeviceMemory memory(64);
    CHECK(memory.size() == 64);
    CHECK(fake::live_allocations() == before + 1);
    std::vector<uint8_t> in(64), out(64, 0);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = uint8_t(i);
    memory.copy_from_host(in.data(), in.size());
    memory.copy_to_host(out.data(), out.size());
    CHECK(out == in);
    memory.copy_to_host(out.data(), 8, 56);
    CHECK(out[0] == 56);
    CHECK_THROWS_AS(memory.copy_from_host(in.data(), 16, 56), std::out_of_range);
    memory.memset(0xab);
    memory.copy_to_host(out.data(), out.size());
    CHECK(out == std::vector<uint8_t>(64, 0xab));

    DeviceMemory moved(std::move(memory));
    CHECK(memory.address() == 0);
    CHECK(moved.size() == 64);
    DeviceMemory other(8);
    other = std::move(moved);
    CHECK(fake::live_allocations() == before + 1);
    DeviceMemory empty(0);
    CHECK(empty.address() == 0);
  }
  CHECK(fake::live_allocations() == before);
}

TEST_CASE("driver: modules, functions, globals and the JIT's logs") {
  Driver &d = driver();
  d.make_current(0);
  Module module(fake::ptx("double_it", fake::array_params(1)));
  CHECK(module.info_log() == "fake JIT: 1 entries");
  CHECK(module.function("double_it") != nullptr);
  CHECK_THROWS_WITH_AS(
      module.function("nope"),
      "simt: cuModuleGetFunction(\"nope\") failed (CUDA_ERROR_NOT_FOUND: named symbol not found)",
      DriverError);
  Module::Global record = module.global("simt_exception");
  CHECK(record.address != 0);
  CHECK(record.bytes == 32);
  CHECK(module.global("other").address == 0);
  CHECK(module.read_global("simt_exception") == std::vector<uint8_t>(32, 0));
  int32_t words[8] = {2, 7, 0, 0, 0, 0, 0, 0};
  module.write_global("simt_exception", words, sizeof words);
  CHECK(module.read_global("simt_exception")[0] == 2);
  CHECK_THROWS_AS(module.write_global("simt_exception", words, 64), std::runtime_error);
  CHECK_THROWS_AS(module.read_global("other"), std::runtime_error);

  try {
    Module bad(".version 8.5\nsyntax error\n");
    FAIL("no exception");
  } catch (const DriverError &e) {
    CHECK(e.result() == 218);
    CHECK(std::string(e.what()) ==
          "simt: cuModuleLoadDataEx failed (CUDA_ERROR_INVALID_PTX: a PTX JIT compilation "
          "failed)\nptxas application ptx input, line 3; error   : syntax error\n"
          "ptxas fatal   : Ptx assembly aborted due to errors");
  }
}

TEST_CASE("driver: streams and events") {
  Driver &d = driver();
  d.make_current(0);
  Stream stream;
  CHECK(stream.handle() != nullptr);
  stream.synchronize();
  Event start, end;
  start.record(stream.handle());
  end.record(stream.handle());
  end.synchronize();
  CHECK(end.elapsed_since(start) == doctest::Approx(0.25));
}

TEST_CASE("launch: byte spans and density of strided views") {
  auto span = byte_span({3, 4}, {32, 8}, 8);
  CHECK(span.begin == 0);
  CHECK(span.size == 96);
  span = byte_span({5}, {-2}, 2); // a reversed int16 view: data is the last element
  CHECK(span.begin == -8);
  CHECK(span.size == 10);
  span = byte_span({3, 2}, {-32, 16}, 8);
  CHECK(span.begin == -64);
  CHECK(span.size == 64 + 16 + 8);
  span = byte_span({4, 0}, {8, 8}, 8);
  CHECK(span.size == 0);
  span = byte_span({}, {}, 16); // 0-d
  CHECK(span.size == 16);
  span = byte_span({4, 3}, {0, 8}, 8); // broadcast
  CHECK(span.size == 24);
  CHECK_THROWS_AS(byte_span({4}, {}, 8), std::invalid_argument);

  CHECK(is_dense({3, 4}, {32, 8}, 8));
  CHECK(is_dense({3, 4}, {8, 24}, 8)); // Fortran order
  CHECK(is_dense({5}, {-2}, 2));
  CHECK(is_dense({3, 1, 4}, {32, 999, 8}, 8));
  CHECK_FALSE(is_dense({3, 2}, {32, 16}, 8));
  CHECK_FALSE(is_dense({4, 3}, {0, 8}, 8));
  CHECK(is_dense({0, 3}, {0, 8}, 8));
}

TEST_CASE("launch: the parameters follow Numba's kernel ABI") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  long before = fake::live_allocations();
  std::vector<std::string> types = fake::array_params(2);
  for (const char *t : {".u8", ".u32", ".f32", ".f64", ".f64"})
    types.push_back(t);
  for (const std::string &t : fake::array_params(1))
    types.push_back(t);
  std::string ptx = fake::ptx("abi_probe", types);

  std::vector<double> matrix(12);
  for (size_t i = 0; i < matrix.size(); ++i)
    matrix[i] = double(i);
  std::vector<int16_t> vector = {1, 2, 3, 4, 5};
  double complex_value[2] = {2.0, -3.0};
  std::vector<KernelArgument> args;
  args.push_back(KernelArgument::of(view(matrix.data(), {3, 4}, {32, 8}, 8)));
  args.push_back(KernelArgument::scalar(uint8_t(1)));
  args.push_back(KernelArgument::scalar(int32_t(-7)));
  args.push_back(KernelArgument::scalar(1.5f));
  args.push_back(KernelArgument::scalar(complex_value, sizeof complex_value, 2));
  // Reversed: element [0] is the last of the buffer.
  args.push_back(KernelArgument::of(view(&vector[4], {5}, {-2}, 2)));

  auto fault = launch_kernel(ptx, "abi_probe", Dim3{4, 2, 1}, Dim3{32, 1, 1}, 128, false, args);
  CHECK_FALSE(fault.has_value());
  const FakeLaunch *launch = fake::last_launch();
  REQUIRE(launch != nullptr);
  CHECK(launch->name == "abi_probe");
  CHECK(launch->grid[0] == 4);
  CHECK(launch->grid[1] == 2);
  CHECK(launch->grid[2] == 1);
  CHECK(launch->block[0] == 32);
  CHECK(launch->shared == 128);
  CHECK_FALSE(launch->cooperative);
  REQUIRE(launch->params.size() == 9 + 5 + 7);

  // The matrix: meminfo, parent, nitems, itemsize, data, shape, strides.
  CHECK(param_value<uint64_t>(*launch, 0) == 0);
  CHECK(param_value<uint64_t>(*launch, 1) == 0);
  CHECK(param_value<int64_t>(*launch, 2) == 12);
  CHECK(param_value<int64_t>(*launch, 3) == 8);
  CHECK(param_value<int64_t>(*launch, 5) == 3);
  CHECK(param_value<int64_t>(*launch, 6) == 4);
  CHECK(param_value<int64_t>(*launch, 7) == 32);
  CHECK(param_value<int64_t>(*launch, 8) == 8);
  // Scalars at their width; the complex number as real, imaginary.
  CHECK(param_value<uint8_t>(*launch, 9) == 1);
  CHECK(param_value<int32_t>(*launch, 10) == -7);
  CHECK(param_value<float>(*launch, 11) == 1.5f);
  CHECK(param_value<double>(*launch, 12) == 2.0);
  CHECK(param_value<double>(*launch, 13) == -3.0);
  // The reversed vector: data points 8 bytes into its 10-byte allocation.
  CHECK(param_value<uint64_t>(*launch, 14) == 0);
  CHECK(param_value<uint64_t>(*launch, 15) == 0);
  CHECK(param_value<int64_t>(*launch, 16) == 5);
  CHECK(param_value<int64_t>(*launch, 17) == 2);
  CHECK(param_value<int64_t>(*launch, 19) == 5);
  CHECK(param_value<int64_t>(*launch, 20) == -2);
  // Each data pointer lay in device memory while the kernel ran: the matrix at the start of its
  // 96 bytes, the reversed vector 8 bytes into its 10.
  CHECK(launch->allocation_offset[4] == 0);
  CHECK(launch->allocation_size[4] == 96);
  CHECK(launch->allocation_offset[18] == 8);
  CHECK(launch->allocation_size[18] == 10);
  CHECK(launch->allocation_size[2] == -1);
  CHECK(fake::live_allocations() == before);
  // The kernel did nothing: the host arrays are as they were.
  CHECK(vector == std::vector<int16_t>{1, 2, 3, 4, 5});
  CHECK(matrix[11] == 11.0);
}

TEST_CASE("launch: arrays are copied in, run on and copied back, strided ones element by element") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  long before = fake::live_allocations();
  std::string ptx1 = fake::ptx("double_it", fake::array_params(1));
  std::string ptx2 = fake::ptx("double_it", fake::array_params(2));

  std::vector<float> floats = {1, 2, 3, 4, 5, 6};
  std::vector<KernelArgument> args = {KernelArgument::of(view(floats.data(), {6}, {4}, 4))};
  CHECK_FALSE(launch_kernel(ptx1, "double_it", Dim3{1, 1, 1}, Dim3{6, 1, 1}, 0, false, args));
  CHECK(floats == std::vector<float>{2, 4, 6, 8, 10, 12});

  // Every other column of a 3x4 matrix, rows reversed: elements doubled, the gaps untouched.
  std::vector<double> matrix(12);
  for (size_t i = 0; i < matrix.size(); ++i)
    matrix[i] = double(i);
  args = {KernelArgument::of(view(&matrix[8], {3, 2}, {-32, 16}, 8))};
  CHECK_FALSE(launch_kernel(ptx2, "double_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args));
  CHECK(matrix == std::vector<double>{0, 1, 4, 3, 8, 5, 12, 7, 16, 9, 20, 11});

  // Reversed and contiguous: copied back whole.
  std::vector<double> reversed = {1, 2, 3};
  args = {KernelArgument::of(view(&reversed[2], {3}, {-8}, 8))};
  CHECK_FALSE(launch_kernel(ptx1, "double_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args));
  CHECK(reversed == std::vector<double>{2, 4, 6});

  // Not copied back when not asked.
  std::vector<double> input = {1, 2, 3};
  args = {KernelArgument::of(view(input.data(), {3}, {8}, 8, false))};
  CHECK_FALSE(launch_kernel(ptx1, "double_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args));
  CHECK(input == std::vector<double>{1, 2, 3});

  // An empty array is a null pointer, and nothing is allocated for it.
  args = {KernelArgument::of(view(nullptr, {0}, {8}, 8))};
  CHECK_FALSE(launch_kernel(ptx1, "double_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args));
  CHECK(param_value<uint64_t>(*fake::last_launch(), 4) == 0);
  CHECK(fake::live_allocations() == before);
}

TEST_CASE("launch: arguments whose host bytes overlap share one device allocation") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  long before = fake::live_allocations();
  std::vector<std::string> params = fake::array_params(1);
  for (const std::string &type : fake::array_params(1))
    params.push_back(type);
  for (const std::string &type : fake::array_params(1)) // a third array, apart from the others
    params.push_back(type);
  std::string ptx = fake::ptx("double_first", params);

  // buffer[0:6] and buffer[2:8], as cuda.reduce passes `partials` twice; `apart` elsewhere.
  std::vector<double> buffer = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<double> apart = {9};
  std::vector<KernelArgument> args = {KernelArgument::of(view(&buffer[0], {6}, {8}, 8)),
                                      KernelArgument::of(view(&buffer[2], {6}, {8}, 8)),
                                      KernelArgument::of(view(apart.data(), {1}, {8}, 8))};
  CHECK_FALSE(launch_kernel(ptx, "double_first", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args));
  const FakeLaunch &launch = *fake::last_launch();
  CHECK(launch.allocation_offset[4] == 0);
  CHECK(launch.allocation_offset[11] == 16);
  CHECK(launch.allocation_size[4] == 64);
  CHECK(launch.allocation_size[11] == 64);
  CHECK(launch.allocation_size[18] == 8);
  // The kernel doubled buffer[0:6] through the first view; the second view's copy back keeps it.
  CHECK(buffer == std::vector<double>{0, 2, 4, 6, 8, 10, 6, 7});
  CHECK(apart == std::vector<double>{9});
  CHECK(fake::live_allocations() == before);
}

TEST_CASE("launch: a kernel that does not end within the limit is a sticky LAUNCH_TIMEOUT") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  long before = fake::live_allocations();
  std::vector<double> x = {1, 2};
  std::vector<KernelArgument> args = {KernelArgument::of(view(x.data(), {2}, {8}, 8))};
  std::string ptx = fake::ptx("hang_it", fake::array_params(1));
  try {
    launch_kernel(ptx, "hang_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args, nullptr, 0,
                  std::chrono::milliseconds(50));
    FAIL("no timeout");
  } catch (const DriverError &e) {
    CHECK(e.result() == cu::CUDA_ERROR_LAUNCH_TIMEOUT);
    CHECK(e.sticky());
    CHECK(std::string(e.what()).find("did not end within 50 ms") != std::string::npos);
  }
  CHECK(fake::live_allocations() == before);
  fake::reset();
}

TEST_CASE("launch: the device-side exception record comes back, and so do the arrays") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  std::vector<float> floats = {1, 2};
  std::vector<KernelArgument> args = {KernelArgument::of(view(floats.data(), {2}, {4}, 4))};
  auto fault = launch_kernel(fake::ptx("fault_it", fake::array_params(1)), "fault_it",
                             Dim3{2, 1, 1}, Dim3{4, 1, 1}, 0, false, args);
  REQUIRE(fault.has_value());
  CHECK(fault->code == 1);
  CHECK(fault->location == 42);
  CHECK(fault->thread[0] == 3);
  CHECK(fault->block[0] == 1);
  CHECK(describe(*fault) == "IndexError at location 42, tid=[3, 0, 0] ctaid=[1, 0, 0]");
  CHECK(floats == std::vector<float>{2, 4});
  CHECK(fault->record.size() == 8); // the fake's record is 32 bytes; simt's has 16 words
  CHECK(fault_kind(2) == "exception");
  CHECK(fault_kind(9) == "exception"); // the tenth raise site
  CHECK(fault_kind(-3) == "code -3");

  // A module without the record (a kernel that cannot fault) reports none.
  fault = launch_kernel(fake::ptx("fault_it", fake::array_params(1), false), "fault_it",
                        Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args);
  CHECK_FALSE(fault.has_value());
  CHECK(floats == std::vector<float>{4, 8});
}

TEST_CASE("launch: cooperative launches, large dynamic shared memory and the kernel's time") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  std::vector<KernelArgument> args = {KernelArgument::scalar(int64_t(5))};
  std::string ptx = fake::ptx("probe", {".u64"});
  int value = 0;
  int opt_ins = fake::shared_opt_ins(&value);
  float ms = -1;
  CHECK_FALSE(
      launch_kernel(ptx, "probe", Dim3{8, 1, 1}, Dim3{64, 1, 1}, 64 * 1024, true, args, &ms));
  CHECK(ms == doctest::Approx(0.25));
  const FakeLaunch *launch = fake::last_launch();
  REQUIRE(launch != nullptr);
  CHECK(launch->cooperative);
  CHECK(launch->shared == 64 * 1024);
  CHECK(param_value<int64_t>(*launch, 0) == 5);
  CHECK(fake::shared_opt_ins(&value) == opt_ins + 1);
  CHECK(value == 64 * 1024);

  CHECK_THROWS_AS(
      launch_kernel(ptx, "probe", Dim3{1, 1, 1}, Dim3{1, 1, 1}, uint64_t(1) << 33, false, args),
      std::invalid_argument);
  CHECK_THROWS_AS(launch_kernel(ptx, "missing", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args),
                  DriverError);
  uint8_t three[3] = {1, 2, 3};
  CHECK_THROWS_AS(KernelArgument::scalar(three, 3, 2), std::invalid_argument);
}

TEST_CASE("launch: an illegal address is a sticky DriverError, and memory is still released") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  long before = fake::live_allocations();
  std::vector<float> floats = {1, 2};
  std::vector<KernelArgument> args = {KernelArgument::of(view(floats.data(), {2}, {4}, 4))};
  try {
    launch_kernel(fake::ptx("trap_it", fake::array_params(1)), "trap_it", Dim3{1, 1, 1},
                  Dim3{1, 1, 1}, 0, false, args);
    FAIL("no exception");
  } catch (const DriverError &e) {
    CHECK(e.sticky());
    CHECK(std::string(e.what()) == "simt: cuCtxSynchronize failed (CUDA_ERROR_ILLEGAL_ADDRESS: "
                                   "an illegal memory access was encountered)");
  }
  CHECK(fake::live_allocations() == before);
  fake::reset();
}

TEST_CASE("launch: a loaded module launched again, its exception record cleared in between") {
  Driver &d = driver();
  d.make_current(0);
  fake::reset();
  // One module, two kernels, one record.
  std::string ptx = fake::ptx("fault_it", fake::array_params(1));
  std::string second = fake::ptx("double_it", fake::array_params(1), false);
  ptx += second.substr(second.find(".visible .entry"));
  Module module(ptx);
  CHECK(module.info_log() == "fake JIT: 2 entries");
  std::vector<float> floats = {1, 2};
  std::vector<KernelArgument> args = {KernelArgument::of(view(floats.data(), {2}, {4}, 4))};
  auto fault = launch_kernel(module, "fault_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args);
  REQUIRE(fault.has_value());
  CHECK(fault->location == 42);
  fault = launch_kernel(module, "double_it", Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, args);
  CHECK_FALSE(fault.has_value());
  CHECK(floats == std::vector<float>{4, 8});
  CHECK(module.read_global("simt_exception") == std::vector<uint8_t>(32, 0));
}

TEST_CASE("the runner's self-test PTX assembles for sm_75 and sm_90 (where ptxas is installed)") {
  const char *home = std::getenv("CUDA_HOME");
  std::filesystem::path ptxas =
      std::filesystem::path(home != nullptr ? home : "/usr/local/cuda") / "bin" / "ptxas";
  if (!std::filesystem::exists(ptxas)) {
    MESSAGE("skipped: no ptxas at " << ptxas.string());
    return;
  }
  auto file = std::filesystem::temp_directory_path() /
              ("simt-selftest-" + std::to_string(getpid()) + ".ptx");
  std::ofstream(file) << selftest_ptx;
  for (const char *arch : {"sm_75", "sm_90"}) {
    std::string command =
        "'" + ptxas.string() + "' -arch=" + arch + " '" + file.string() + "' -o /dev/null 2>&1";
    CHECK_MESSAGE(std::system(command.c_str()) == 0, std::string(arch));
  }
  std::filesystem::remove(file);
}
