// simt-gpu-run against the fake driver: bundles written by hand in a temporary folder.
#include "fake_driver.h"

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

struct Run {
  int status = -1;
  std::string output; // stdout and stderr
};

// A bundle folder, removed at the end of the test.
struct Bundle {
  fs::path dir;
  Bundle() {
    std::string pattern = (fs::temp_directory_path() / "simt-bundle-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
  }
  ~Bundle() { fs::remove_all(dir); }

  void write(const std::string &name, const void *data, size_t bytes) const {
    std::ofstream out(dir / name, std::ios::binary);
    out.write(static_cast<const char *>(data), std::streamsize(bytes));
  }
  void text(const std::string &name, const std::string &content) const {
    write(name, content.data(), content.size());
  }
  template <class T> void array(const std::string &name, const std::vector<T> &values) const {
    write(name, values.data(), values.size() * sizeof(T));
  }

  Run run(const std::string &environment = "", const std::string &flags = "") const {
    std::string command =
        environment + " '" + SIMT_GPU_RUN + "' " + flags + " '" + dir.string() + "' 2>&1";
    Run r;
    FILE *pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      r.output.append(buffer, n);
    int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
};

bool has_line(const std::string &output, const std::string &line) {
  return ("\n" + output).find("\n" + line + "\n") != std::string::npos;
}

} // namespace

TEST_CASE(
    "runner: ok when the GPU's arrays match the simulator's, DIFF at the first that does not") {
  fake::library(); // SIMT_LIBCUDA names the fake for the runner too
  Bundle b;
  b.text("double.ptx", fake::ptx("double_it", fake::array_params(1)));
  b.array("x.bin", std::vector<float>{1, 2, 3, 4});
  b.array("twice.bin", std::vector<float>{2, 4, 6, 8});
  b.array("wrong.bin", std::vector<float>{2, 4, 7, 8});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "# doubles x\n"
                         "launch twice double.ptx double_it 1 4,1,1 0 0\n"
                         "array float32 1 4 4 x.bin twice.bin 1\n"
                         "\n"
                         "launch wrong double.ptx double_it 1,1,1 4 0 0\n"
                         "array float32 1 4 4 x.bin wrong.bin 1\n");
  Run r = b.run();
  CHECK(r.output.rfind("# device 0: Fake CUDA Device, sm_90, 132 SMs, driver 13.0, cooperative "
                       "launch\n",
                       0) == 0);
  CHECK(has_line(r.output, "ok twice"));
  CHECK(has_line(r.output, "DIFF wrong arg 0 index 2 gpu=6 sim=7 (1 of 4 elements differ)"));
  CHECK(
      has_line(r.output,
               "summary: 1 ok, 1 diff, 0 fault, 0 error, 0 hang, 0 simulator-only, of 2 launches"));
  CHECK(r.status == 1);

  // Only the matching launch: exit status 0.
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch twice double.ptx double_it 1 4,1,1 0 0\n"
                         "array float32 1 4 4 x.bin twice.bin 1\n");
  r = b.run();
  CHECK(
      has_line(r.output,
               "summary: 1 ok, 0 diff, 0 fault, 0 error, 0 hang, 0 simulator-only, of 1 launches"));
  CHECK(r.status == 0);
}

TEST_CASE("runner: order-free launches match the same elements elsewhere; undefined ones are "
          "not compared") {
  fake::library();
  Bundle b;
  b.text("nothing.ptx", fake::ptx("leave_it", fake::array_params(1))); // the fake runs nothing
  b.array("x.bin", std::vector<int32_t>{1, 2, 3, 4});
  b.array("shuffled.bin", std::vector<int32_t>{4, 2, 3, 1});
  b.array("other.bin", std::vector<int32_t>{4, 2, 3, 5});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch moved nothing.ptx leave_it 1 4 0 0\n"
                         "order-free atomics place the values\n"
                         "array int32 1 4 4 x.bin shuffled.bin 1\n"
                         "launch changed nothing.ptx leave_it 1 4 0 0\n"
                         "order-free atomics place the values\n"
                         "array int32 1 4 4 x.bin other.bin 1\n"
                         "launch guessed nothing.ptx leave_it 1 4 0 0\n"
                         "undefined shfl_down_sync read 8 lanes outside its mask\n"
                         "array int32 1 4 4 x.bin other.bin 1\n");
  Run r = b.run();
  CHECK(has_line(r.output, "ok moved (arg 0: the same elements in another order: atomics place "
                           "the values)"));
  CHECK(has_line(r.output, "DIFF changed arg 0 index 0 gpu=1 sim=4 (2 of 4 elements differ)"));
  CHECK(has_line(r.output, "ok guessed (results not compared: shfl_down_sync read 8 lanes "
                           "outside its mask)"));
  CHECK(r.status == 1);
}

TEST_CASE("runner: a kernel that allocates arrays has its free-arrays kernel run after it") {
  fake::library();
  Bundle b;
  b.text("alloc.ptx", fake::ptx("allocates", fake::array_params(1)) +
                          ".visible .entry allocates__simt_free_arrays()\n{\n\tret;\n}\n");
  b.array("x.bin", std::vector<int32_t>{1, 2});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch freed alloc.ptx allocates 1 2 0 0\n"
                         "free-arrays allocates__simt_free_arrays\n"
                         "array int32 1 2 4 x.bin x.bin 1\n"
                         "launch missing alloc.ptx allocates 1 2 0 0\n"
                         "free-arrays no_such_kernel\n"
                         "array int32 1 2 4 x.bin x.bin 1\n");
  Run r = b.run();
  CHECK(has_line(r.output, "ok freed"));
  CHECK(r.output.find("missing") != std::string::npos);
  CHECK(r.output.find("no_such_kernel") != std::string::npos);
  CHECK_FALSE(has_line(r.output, "ok missing"));
}

TEST_CASE("runner: an array aliasing an earlier one is a view of the same memory") {
  fake::library();
  Bundle b;
  std::vector<std::string> params = fake::array_params(1);
  for (const std::string &type : fake::array_params(1))
    params.push_back(type);
  b.text("first.ptx", fake::ptx("double_first", params));
  // x = buffer[0:4] (doubled by the kernel) and y = buffer[2:6] (its view), float64.
  b.array("x.bin", std::vector<double>{0, 1, 2, 3});
  b.array("y.bin", std::vector<double>{2, 3, 4, 5});
  b.array("x.out.bin", std::vector<double>{0, 2, 4, 6});
  b.array("y.out.bin", std::vector<double>{4, 6, 4, 5});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch aliased first.ptx double_first 1 1 0 0\n"
                         "array float64 1 4 8 x.bin x.out.bin 1\n"
                         "array float64 1 4 8 y.bin y.out.bin 1 alias 0 16\n"
                         "launch apart first.ptx double_first 1 1 0 0\n"
                         "array float64 1 4 8 x.bin x.out.bin 1\n"
                         "array float64 1 4 8 y.bin y.out.bin 1\n");
  Run r = b.run();
  CHECK(has_line(r.output, "ok aliased"));
  CHECK(has_line(r.output, "DIFF apart arg 1 index 0 gpu=2 sim=4 (2 of 4 elements differ)"));

  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch bad first.ptx double_first 1 1 0 0\n"
                         "array float64 1 4 8 x.bin x.out.bin 1 alias 0 16\n");
  r = b.run();
  CHECK(r.status == 2);
  CHECK(r.output.find("'alias <arg> <bytes>' names an earlier array argument") !=
        std::string::npos);
}

TEST_CASE("runner: datetime64 and timedelta64 arrays of any unit are 64-bit counts") {
  fake::library();
  Bundle b;
  b.text("first.ptx", fake::ptx("double_first", fake::array_params(1)));
  b.array("t.bin", std::vector<int64_t>{1, 2});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch days first.ptx double_first 1 1 0 0\n"
                         "array datetime64[D] 1 2 8 t.bin - 0\n"
                         "launch ns first.ptx double_first 1 1 0 0\n"
                         "array timedelta64[ns] 1 2 8 t.bin - 0\n");
  Run r = b.run();
  CHECK(has_line(r.output, "ok days"));
  CHECK(has_line(r.output, "ok ns"));
}

TEST_CASE("runner: strided arrays, tolerances, NaN, scalars and arrays that are not compared") {
  fake::library();
  Bundle b;
  b.text("double2.ptx", fake::ptx("double_it", fake::array_params(2)));
  b.text("probe.ptx", fake::ptx("probe", {".u8", ".u32", ".f64", ".f64", ".u64", ".u64", ".u64",
                                          ".u64", ".u64", ".u64", ".u64"}));
  // A 2x3 float64 array laid out with rows reversed and every other element of a row: the input
  // and expected files hold the elements in C order whatever the layout.
  b.array("m.bin", std::vector<double>{1, 2, 3, 4, 5, 6});
  b.array("m2.bin", std::vector<double>{2, 4, 6, 8, 10, 12});
  b.array("m2_off.bin", std::vector<double>{2, 4, 6, 8.0000001, 10, 12});
  b.array("m2_bad.bin", std::vector<double>{2, 4, 6, 9, 10, 12});
  b.array("nan.bin", std::vector<double>{NAN, 1});
  b.array("ints.bin", std::vector<int32_t>{1, -2, 3});
  b.text("manifest.txt",
         "simt-bundle 1\n"
         "launch exact double2.ptx double_it 1 1 0 0\n"
         "array float64 2 2 3 -48 16 m.bin m2.bin 1\n"
         "tolerance 0 0\n"
         "launch strict double2.ptx double_it 1 1 0 0\n"
         "array float64 2 2 3 -48 16 m.bin m2_off.bin 1\n"
         "tolerance 1e-6 0\n"
         "launch loose double2.ptx double_it 1 1 0 0\n"
         "array float64 2 2 3 -48 16 m.bin m2_off.bin 1\n"
         "launch bad double2.ptx double_it 1 1 0 0\n"
         "array float64 2 2 3 -48 16 m.bin m2_bad.bin 1\n"
         // NaN equals NaN (the fake doubles it to NaN); an int32 array is compared exactly and
         // is not changed by the fake; a bool, an int32 and a complex128 scalar.
         "launch scalars probe.ptx probe 2,2 32,2 1024 1\n"
         "scalar bool 01\n"
         "scalar int32 f9ffffff\n"
         "scalar complex128 0000000000000040000000000000f0bf\n"
         "array int32 1 3 4 ints.bin ints.bin 1\n"
         "launch nan double2.ptx double_it 1 1 0 0\n"
         "array float64 2 1 2 16 8 nan.bin - 0\n");
  Run r = b.run();
  INFO(r.output);
  CHECK(has_line(r.output, "ok exact"));
  CHECK(has_line(r.output,
                 "DIFF strict arg 0 index 1,0 gpu=8 sim=8.0000000999999994 (1 of 6 elements "
                 "differ)"));
  CHECK(has_line(r.output, "ok loose"));
  CHECK(has_line(r.output, "DIFF bad arg 0 index 1,0 gpu=8 sim=9 (1 of 6 elements differ)"));
  CHECK(has_line(r.output, "ok scalars"));
  CHECK(has_line(r.output, "ok nan"));
  CHECK(r.status == 1);

  b.array("nan2.bin", std::vector<double>{NAN, 2});
  b.array("nan3.bin", std::vector<double>{1, 2});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch nan double2.ptx double_it 1 1 0 0\n"
                         "array float64 2 1 2 16 8 nan.bin nan2.bin 1\n"
                         "launch nan_diff double2.ptx double_it 1 1 0 0\n"
                         "array float64 2 1 2 16 8 nan.bin nan3.bin 1\n"
                         "launch ints probe.ptx probe 1 1 0 0\n"
                         "scalar bool 00\n"
                         "scalar int32 00000000\n"
                         "scalar complex128 00000000000000000000000000000000\n"
                         "array int32 1 3 4 ints.bin nan3.bin 1\n");
  r = b.run();
  INFO(r.output);
  CHECK(has_line(r.output, "ok nan"));
  CHECK(has_line(r.output, "DIFF nan_diff arg 0 index 0,0 gpu=nan sim=1 (1 of 2 elements differ)"));
  // 12 bytes of ints against 16 of expected: the bundle is wrong, not the GPU.
  CHECK(has_line(r.output, "ERROR ints nan3.bin has 16 bytes, not the 12 of arg 3"));
  CHECK(
      has_line(r.output,
               "summary: 1 ok, 1 diff, 0 fault, 1 error, 0 hang, 0 simulator-only, of 3 launches"));
}

TEST_CASE("runner: faults are compared by kind, and a lost context does not stop the bundle") {
  fake::library();
  Bundle b;
  b.text("fault.ptx", fake::ptx("fault_it", fake::array_params(1)));
  b.text("trap.ptx", fake::ptx("trap_it", fake::array_params(1)));
  b.text("double.ptx", fake::ptx("double_it", fake::array_params(1)));
  b.array("x.bin", std::vector<float>{1, 2});
  b.array("x2.bin", std::vector<float>{2, 4});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch expected fault.ptx fault_it 2 4 0 0\n"
                         "fault IndexError\n"
                         "array float32 1 2 4 x.bin x.bin 1\n"
                         "launch unexpected fault.ptx fault_it 2 4 0 0\n"
                         "array float32 1 2 4 x.bin x2.bin 1\n"
                         "launch missing double.ptx double_it 1 1 0 0\n"
                         "fault exception\n"
                         "array float32 1 2 4 x.bin x2.bin 1\n"
                         "launch trap trap.ptx trap_it 1 1 0 0\n"
                         "array float32 1 2 4 x.bin x2.bin 1\n"
                         "launch after double.ptx double_it 1 1 0 0\n"
                         "array float32 1 2 4 x.bin x2.bin 1\n");
  Run r = b.run();
  INFO(r.output);
  CHECK(has_line(r.output, "ok expected"));
  CHECK(has_line(r.output, "FAULT unexpected gpu=IndexError at location 42, tid=[3, 0, 0] "
                           "ctaid=[1, 0, 0] sim=none"));
  CHECK(has_line(r.output, "FAULT missing gpu=none sim=exception"));
  CHECK(has_line(r.output, "FAULT trap cuda: simt: cuStreamQuery failed "
                           "(CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was "
                           "encountered)"));
  // Run by a fresh process (the fake's sticky error is gone with the old one).
  CHECK(has_line(r.output, "ok after"));
  CHECK(
      has_line(r.output,
               "summary: 2 ok, 0 diff, 3 fault, 0 error, 0 hang, 0 simulator-only, of 5 launches"));
  CHECK(r.status == 1);
}

TEST_CASE("runner: a hung launch is a HANG, the rest run in a new process; simulator-only "
          "launches are skipped") {
  fake::library();
  Bundle b;
  b.text("hang.ptx", fake::ptx("hang_it", fake::array_params(1)));
  b.text("double.ptx", fake::ptx("double_it", fake::array_params(1)));
  b.array("x.bin", std::vector<float>{1, 2});
  b.array("twice.bin", std::vector<float>{2, 4});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch stuck hang.ptx hang_it 1 1 0 0\n"
                         "array float32 1 2 4 x.bin - 0\n"
                         "launch spinning double.ptx double_it 1 1 0 0\n"
                         "simulator-only deadlock: no thread of block (0, 0, 0) can go on\n"
                         "array float32 1 2 4 x.bin twice.bin 1\n"
                         "launch after double.ptx double_it 1 1 0 0\n"
                         "array float32 1 2 4 x.bin twice.bin 1\n");
  Run r = b.run("", "--timeout 0.2");
  CHECK(has_line(r.output, "HANG stuck (not ended after 0.2 s)"));
  CHECK(has_line(
      r.output, "SKIP spinning simulator-only (deadlock: no thread of block (0, 0, 0) can go on)"));
  CHECK(has_line(r.output, "ok after"));
  CHECK(
      has_line(r.output,
               "summary: 1 ok, 0 diff, 0 fault, 0 error, 1 hang, 1 simulator-only, of 3 launches"));
  CHECK(r.status == 1);
}

TEST_CASE("runner: --dry-run checks every launch's files without a GPU") {
  fake::library();
  Bundle b;
  b.text("double.ptx", fake::ptx("double_it", fake::array_params(1)));
  b.array("x.bin", std::vector<float>{1, 2});
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch good double.ptx double_it 1 1 0 0\n"
                         "array float32 1 2 4 x.bin x.bin 1\n"
                         "launch skipped double.ptx double_it 1 1 0 0\n"
                         "simulator-only deadlock: for the test\n"
                         "array float32 1 2 4 missing.bin - 0\n");
  Run r = b.run("FAKE_CUDA_NO_DEVICE=1", "--dry-run");
  CHECK(has_line(r.output, "dry run: 2 of 2 launches valid"));
  CHECK(r.status == 0);
  b.text("manifest.txt", "simt-bundle 1\n"
                         "launch short double.ptx double_it 1 1 0 0\n"
                         "array float32 1 3 4 x.bin x.bin 1\n"
                         "launch noentry double.ptx other 1 1 0 0\n"
                         "array float32 1 2 4 x.bin x.bin 1\n");
  r = b.run("FAKE_CUDA_NO_DEVICE=1", "--dry-run");
  CHECK(has_line(r.output, "ERROR short x.bin has 8 bytes, not the 12 of arg 0"));
  CHECK(has_line(r.output, "ERROR noentry double.ptx has no .entry other"));
  CHECK(has_line(r.output, "dry run: 0 of 2 launches valid"));
  CHECK(r.status == 1);
}

TEST_CASE("runner: exit status 2 for a malformed bundle, 3 without a GPU") {
  fake::library();
  Bundle b;
  b.text("manifest.txt", "simt-bundle 1\nlaunch only-a-name\n");
  Run r = b.run();
  CHECK(r.status == 2);
  CHECK(r.output.find("manifest.txt:2: launch <name>") != std::string::npos);

  b.text("manifest.txt", "simt-bundle 2\n");
  r = b.run();
  CHECK(r.status == 2);
  CHECK(r.output.find("bundle format version 2") != std::string::npos);

  b.text("manifest.txt", "simt-bundle 1\nscalar int32 00000000\n");
  CHECK(b.run().status == 2);
  b.text("manifest.txt", "simt-bundle 1\nlaunch k a.ptx k 1 1 0 0\nscalar int32 0000\n");
  CHECK(b.run().status == 2);
  b.text("manifest.txt", "simt-bundle 1\nlaunch k a.ptx k 1 1 0 0\narray float32 1 4 x 1\n");
  CHECK(b.run().status == 2);

  b.text("manifest.txt", "simt-bundle 1\n");
  r = b.run("SIMT_LIBCUDA=/nonexistent/libcuda.so.1");
  CHECK(r.status == 3);
  CHECK(r.output.rfind("simt: no GPU: /nonexistent/libcuda.so.1 cannot be loaded (", 0) == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);

  r = b.run();
  CHECK(r.status == 0);
  CHECK(
      has_line(r.output,
               "summary: 0 ok, 0 diff, 0 fault, 0 error, 0 hang, 0 simulator-only, of 0 launches"));
}

TEST_CASE("runner: --selftest and --info") {
  fake::library();
  std::string command = std::string("'") + SIMT_GPU_RUN + "' --selftest 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  int status = pclose(pipe);
  INFO(output);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(has_line(output, "selftest ok (2 launches, one cooperative)"));

  command = std::string("'") + SIMT_GPU_RUN + "' --info 2>&1";
  pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  output.clear();
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  status = pclose(pipe);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(output ==
        "# device 0: Fake CUDA Device, sm_90, 132 SMs, driver 13.0, cooperative launch\n");
}
