// Hand-built IR kernels, compiled by the JIT and run on the simulator.
#include "sim/host_target.h"
#include "sim/jit.h"
#include "sim/launch.h"
#include "tests/unit/ir_builder.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

using namespace simt;
using namespace simt::irb;

namespace {

// Storage of one array argument in the layout sim/abi.h describes.
struct ArrayArg {
  std::vector<int64_t> header;

  ArrayArg(void *data, const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
    header.push_back(int64_t(reinterpret_cast<intptr_t>(data)));
    header.insert(header.end(), shape.begin(), shape.end());
    header.insert(header.end(), strides.begin(), strides.end());
  }
  template <typename T> static ArrayArg of(std::vector<T> &values) {
    return ArrayArg(values.data(), {int64_t(values.size())}, {int64_t(sizeof(T))});
  }
  void *ptr() { return header.data(); }
};

sim::LaunchConfig config(uint32_t grid, uint32_t block) {
  sim::LaunchConfig c;
  c.grid.x = grid;
  c.block.x = block;
  return c;
}

// Compiles `module` and launches it once.
std::optional<sim::Fault> run(const ir::Module &module, const sim::LaunchConfig &c,
                              std::vector<void *> args) {
  sim::KernelCode code = sim::jit_compile(module);
  return sim::launch(code, c, args.data());
}

// if i < size(arr): <body>, with i = cuda.grid(1) in slot `i`.
Stmt guarded(FunctionBuilder &k, int i, int arr, std::vector<Stmt> body) {
  return if_(compare(Op::Lt, k.get(i), size(k.get(arr))), std::move(body));
}

} // namespace

TEST_CASE("vector add over C-contiguous arrays, flat mode") {
  FunctionBuilder k("vadd", true);
  int a = k.param("a", array(Scalar::F32, 1));
  int b = k.param("b", array(Scalar::F32, 1));
  int c = k.param("c", array(Scalar::F32, 1));
  int i = k.var("i", i64());
  k.f.body =
      block(assign(i, grid_x()), guarded(k, i, c,
                                         block(store(k.get(c), list(k.get(i)),
                                                     binary(Op::Add, load(k.get(a), list(k.get(i))),
                                                            load(k.get(b), list(k.get(i))))))));
  ir::Module m = module_of(std::move(k.f));

  auto start = std::chrono::steady_clock::now();
  sim::KernelCode code = sim::jit_compile(m);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("JIT compile of vadd: " << ms << " ms");
  CHECK_FALSE(bool(code.thread_entry)); // flat kernels only get the block loop
  CHECK(bool(code.block_entry));

  const size_t n = 1000;
  std::vector<float> x(n), y(n), out(n, -1);
  for (size_t j = 0; j < n; ++j) {
    x[j] = float(j);
    y[j] = 0.5f * float(j);
  }
  ArrayArg ax = ArrayArg::of(x), ay = ArrayArg::of(y), aout = ArrayArg::of(out);
  std::vector<void *> args{ax.ptr(), ay.ptr(), aout.ptr()};
  CHECK_FALSE(sim::launch(code, config(8, 128), args.data()).has_value());
  for (size_t j = 0; j < n; ++j)
    REQUIRE(out[j] == 1.5f * float(j));
}

TEST_CASE("2-D indexing follows the strides of a non-contiguous view") {
  FunctionBuilder k("scale2d", true);
  int a = k.param("a", array(Scalar::F64, 2, 'A'));
  int out = k.param("out", array(Scalar::F64, 2, 'C'));
  int r = k.var("r", i64());
  int col = k.var("col", i64());
  k.f.body =
      block(assign(r, cast(special(Op::ThreadIdx, 1), i64())),
            assign(col, cast(special(Op::ThreadIdx, 0), i64())),
            store(k.get(out), list(k.get(r), k.get(col)),
                  binary(Op::Mul, load(k.get(a), list(k.get(r), k.get(col))), float_const(10))));
  // a = base[:, ::2] of a 4x6 float64 array: shape (4, 3), strides (48, 16).
  std::vector<double> base(24), result(12, 0);
  for (int j = 0; j < 24; ++j)
    base[j] = j;
  ArrayArg va(base.data(), {4, 3}, {48, 16}), vout(result.data(), {4, 3}, {24, 8});
  sim::LaunchConfig c;
  c.block.x = 3;
  c.block.y = 4;
  CHECK_FALSE(run(module_of(std::move(k.f)), c, {va.ptr(), vout.ptr()}).has_value());
  for (int row = 0; row < 4; ++row)
    for (int j = 0; j < 3; ++j)
      CHECK(result[row * 3 + j] == 10.0 * (row * 6 + 2 * j));
}

TEST_CASE("an out-of-bounds index faults with IndexError, the thread and the line") {
  FunctionBuilder k("oob", true);
  int a = k.param("a", array(Scalar::I32, 1));
  int i = k.var("i", i64());
  k.f.body = block(assign(i, grid_x()), store(k.get(a), list(k.get(i)), int_const(1, i32()), 7));
  std::vector<int32_t> values(10, 0);
  ArrayArg va = ArrayArg::of(values);
  auto fault = run(module_of(std::move(k.f)), config(1, 16), {va.ptr()});
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "IndexError");
  CHECK(fault->message == "index 10 is out of bounds for axis 0 with size 10");
  CHECK(fault->tid.x == 10);
  CHECK(fault->ctaid.x == 0);
  CHECK(fault->where.line == 7);
  CHECK(fault->where.file == "kernel.py");
  CHECK(fault->where.function == "oob");
}

TEST_CASE("negative indices wrap once") {
  FunctionBuilder k("wrap", true);
  int a = k.param("a", array(Scalar::I64, 1));
  k.f.body = block(store(k.get(a), list(int_const(-1)), int_const(5)),
                   store(k.get(a), list(int_const(-4)), int_const(9), 3));
  std::vector<int64_t> values(3, 0);
  ArrayArg va = ArrayArg::of(values);
  auto fault = run(module_of(std::move(k.f)), config(1, 1), {va.ptr()});
  CHECK(values[2] == 5);
  REQUIRE(fault.has_value());
  CHECK(fault->message == "index -4 is out of bounds for axis 0 with size 3");
}

TEST_CASE("floor division and modulo follow Python on ints and floats") {
  FunctionBuilder k("divmod", true);
  int xi = k.param("xi", array(Scalar::I64, 1));
  int yi = k.param("yi", array(Scalar::I64, 1));
  int xf = k.param("xf", array(Scalar::F64, 1));
  int yf = k.param("yf", array(Scalar::F64, 1));
  int out_i = k.param("out_i", array(Scalar::I64, 2));
  int out_f = k.param("out_f", array(Scalar::F64, 2));
  int i = k.var("i", i64());
  auto at_i = [&](int arr) { return load(k.get(arr), list(k.get(i))); };
  k.f.body =
      block(assign(i, grid_x()), guarded(k, i, xi,
                                         block(store(k.get(out_i), list(k.get(i), int_const(0)),
                                                     binary(Op::FloorDiv, at_i(xi), at_i(yi))),
                                               store(k.get(out_i), list(k.get(i), int_const(1)),
                                                     binary(Op::Mod, at_i(xi), at_i(yi))),
                                               store(k.get(out_f), list(k.get(i), int_const(0)),
                                                     binary(Op::FloorDiv, at_i(xf), at_i(yf))),
                                               store(k.get(out_f), list(k.get(i), int_const(1)),
                                                     binary(Op::Mod, at_i(xf), at_i(yf))))));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<int64_t> x_int{7, -7, 7, -7, 0, 6};
  std::vector<int64_t> y_int{2, 2, -2, -2, 3, -3};
  std::vector<double> x_float{7.5, -7.5, 7.5, -7.5, -5.0, 1.0};
  std::vector<double> y_float{2, 2, -2, -2, inf, 0.0};
  std::vector<int64_t> q_int(12);
  std::vector<double> q_float(12);
  ArrayArg a1 = ArrayArg::of(x_int), a2 = ArrayArg::of(y_int), a3 = ArrayArg::of(x_float),
           a4 = ArrayArg::of(y_float);
  ArrayArg a5(q_int.data(), {6, 2}, {16, 8}), a6(q_float.data(), {6, 2}, {16, 8});
  auto fault = run(module_of(std::move(k.f)), config(1, 32),
                   {a1.ptr(), a2.ptr(), a3.ptr(), a4.ptr(), a5.ptr(), a6.ptr()});
  CHECK_FALSE(fault.has_value());
  std::vector<int64_t> want_int{3, 1, -4, 1, -4, -1, 3, -1, 0, 0, -2, 0};
  CHECK(q_int == want_int);
  // Python: 7.5 // 2 == 3, 7.5 % 2 == 1.5; -7.5 // 2 == -4, % == 0.5; ... -5 // inf == -1,
  // -5 % inf == inf. A zero divisor follows Numba's CUDA error model: inf and nan, no error.
  std::vector<double> want_float{3, 1.5, -4, 0.5, -4, -0.5, 3, -1.5, -1, inf};
  for (size_t j = 0; j < want_float.size(); ++j)
    CHECK(q_float[j] == want_float[j]);
  CHECK(q_float[10] == inf);
  CHECK(std::isnan(q_float[11]));
}

TEST_CASE("integer modulo by zero raises in the Python error model and gives 0 in NumPy's") {
  for (bool python_error_model : {true, false}) {
    FunctionBuilder k("zerodiv", true);
    int a = k.param("a", array(Scalar::I64, 1));
    int d = k.param("d", i64());
    k.f.body = block(
        store(k.get(a), list(int_const(0)), at(binary(Op::Mod, int_const(5), k.get(d)), 4), 4));
    std::vector<int64_t> values(1, 7);
    int64_t zero = 0;
    ArrayArg va = ArrayArg::of(values);
    ir::Module module = module_of(std::move(k.f));
    module.options.python_error_model = python_error_model;
    auto fault = run(std::move(module), config(2, 4), {va.ptr(), &zero});
    if (!python_error_model) {
      CHECK_FALSE(fault.has_value());
      CHECK(values[0] == 0);
      continue;
    }
    REQUIRE(fault.has_value());
    CHECK(fault->exception == "ZeroDivisionError");
    CHECK(fault->message == "integer modulo by zero");
    CHECK(fault->where.line == 4);
  }
}

TEST_CASE("** on ints, casts truncate, bools and math") {
  FunctionBuilder k("pow", true);
  int base = k.param("base", array(Scalar::I64, 1));
  int exp = k.param("exp", array(Scalar::I64, 1));
  int out = k.param("out", array(Scalar::I64, 1));
  int f = k.param("f", array(Scalar::F64, 1));
  int t = k.param("t", array(Scalar::I32, 1));
  int i = k.var("i", i64());
  k.f.body = block(
      assign(i, grid_x()),
      guarded(k, i, base,
              block(store(k.get(out), list(k.get(i)),
                          binary(Op::Pow, load(k.get(base), list(k.get(i))),
                                 load(k.get(exp), list(k.get(i))))),
                    store(k.get(t), list(k.get(i)), cast(load(k.get(f), list(k.get(i))), i32())))));
  std::vector<int64_t> bases{3, 2, -2, 2, 1, -1, 7, -1};
  std::vector<int64_t> exps{4, 0, 3, -1, -5, -3, 1, 62};
  std::vector<int64_t> powers(8);
  std::vector<double> floats{-2.7, 2.7, -0.5, 3.999, 1e3, -1e3, 0, 7};
  std::vector<int32_t> truncated(8);
  ArrayArg a1 = ArrayArg::of(bases), a2 = ArrayArg::of(exps), a3 = ArrayArg::of(powers),
           a4 = ArrayArg::of(floats), a5 = ArrayArg::of(truncated);
  CHECK_FALSE(run(module_of(std::move(k.f)), config(1, 8),
                  {a1.ptr(), a2.ptr(), a3.ptr(), a4.ptr(), a5.ptr()})
                  .has_value());
  CHECK(powers == std::vector<int64_t>{81, 1, -8, 0, 1, -1, 7, 1});
  CHECK(truncated == std::vector<int32_t>{-2, 2, 0, 3, 1000, -1000, 0, 7});
}

TEST_CASE("atomics from many blocks") {
  FunctionBuilder k("atomics", true);
  int counts = k.param("counts", array(Scalar::I64, 1));
  int wrap = k.param("wrap", array(Scalar::U32, 1));
  int best = k.param("best", array(Scalar::F64, 1));
  int i = k.var("i", i64());
  k.f.body = block(
      assign(i, grid_x()),
      eval(atomic(Op::AtomicAdd, k.get(counts), list(int_const(0)), list(int_const(1)))),
      eval(atomic(Op::AtomicAdd, k.get(counts), list(int_const(1)), list(k.get(i)))),
      eval(atomic(Op::AtomicInc, k.get(wrap), list(int_const(0)), list(int_const(99, u32())))),
      eval(atomic(Op::AtomicMax, k.get(best), list(int_const(0)), list(cast(k.get(i), f64())))),
      eval(atomic(Op::AtomicMin, k.get(best), list(int_const(1)), list(cast(k.get(i), f64())))));
  std::vector<int64_t> c{0, 0};
  std::vector<uint32_t> w{0};
  std::vector<double> b{-1, 1e9};
  ArrayArg a1 = ArrayArg::of(c), a2 = ArrayArg::of(w), a3 = ArrayArg::of(b);
  const int64_t n = 64 * 128;
  CHECK_FALSE(
      run(module_of(std::move(k.f)), config(64, 128), {a1.ptr(), a2.ptr(), a3.ptr()}).has_value());
  CHECK(c[0] == n);
  CHECK(c[1] == n * (n - 1) / 2);
  CHECK(w[0] == n % 100);
  CHECK(b[0] == double(n - 1));
  CHECK(b[1] == 0.0);
}

TEST_CASE("a barrier kernel reduces a shared array per block, by loop fission and as fibers") {
  const int threads = 64;
  FunctionBuilder k("reduce", true);
  int x = k.param("x", array(Scalar::F64, 1));
  int out = k.param("out", array(Scalar::F64, 1));
  int tid = k.var("tid", i64());
  int s = k.var("s", i64());
  ir::SharedArrayDecl decl{Scalar::F64, {threads}, 0, false};
  auto sh = [&] { return shared_array(0, decl); };
  k.f.body = block(
      assign(tid, cast(special(Op::ThreadIdx), i64())),
      store(sh(), list(k.get(tid)), load(k.get(x), list(grid_x()))), syncthreads(3),
      assign(s, int_const(threads / 2)),
      while_(
          compare(Op::Gt, k.get(s), int_const(0)),
          block(if_(compare(Op::Lt, k.get(tid), k.get(s)),
                    block(store(sh(), list(k.get(tid)),
                                binary(Op::Add, load(sh(), list(k.get(tid))),
                                       load(sh(), list(binary(Op::Add, k.get(tid), k.get(s)))))))),
                syncthreads(6), assign(s, binary(Op::FloorDiv, k.get(s), int_const(2))))),
      if_(compare(Op::Eq, k.get(tid), int_const(0)),
          block(store(k.get(out), list(cast(special(Op::BlockIdx), i64())),
                      load(sh(), list(int_const(0)))))));
  k.f.props.uses_barrier = k.f.props.uses_shared = true;
  ir::Module m = module_of(std::move(k.f));
  m.shared_arrays.push_back(decl);
  m.static_shared_bytes = threads * 8;
  for (bool fission : {true, false}) {
    CAPTURE(fission);
    const sim::SimOptions options{.fission = fission};
    CHECK(sim::plan_kernel(m, options).strategy ==
          (fission ? sim::BlockStrategy::Fission : sim::BlockStrategy::Fibers));
    sim::KernelCode code = sim::jit_compile(m, sim::Tier::Full, nullptr, options);
    CHECK(bool(code.block_entry) == fission); // a fissioned kernel runs whole blocks
    CHECK(code.static_shared_bytes == threads * 8);
    const int blocks = 5;
    std::vector<double> values(blocks * threads), sums(blocks, 0);
    for (size_t j = 0; j < values.size(); ++j)
      values[j] = double(j);
    ArrayArg a1 = ArrayArg::of(values), a2 = ArrayArg::of(sums);
    std::vector<void *> args{a1.ptr(), a2.ptr()};
    CHECK_FALSE(sim::launch(code, config(blocks, threads), args.data()).has_value());
    for (int blk = 0; blk < blocks; ++blk) {
      double first = blk * threads, last = first + threads - 1;
      CHECK(sums[blk] == (first + last) * threads / 2);
    }
  }
}

TEST_CASE("the checkers' variant of a kernel whose threads may return before a barrier runs on "
          "fibers, so that synccheck sees which threads reach it") {
  FunctionBuilder k("early_exit", true);
  int x = k.param("x", array(Scalar::F64, 1));
  k.f.body = block(if_(compare(Op::Ge, grid_x(), int_const(4)), block(ret())), syncthreads(2),
                   store(k.get(x), list(grid_x()), float_const(1)));
  k.f.props.uses_barrier = true;
  ir::Module m = module_of(std::move(k.f));
  CHECK(sim::plan_kernel(m, {}).strategy == sim::BlockStrategy::Fission);
  m.options.instrumentation = Instrumentation::Check;
  CHECK(sim::plan_kernel(m, {}).strategy == sim::BlockStrategy::Fibers);
  m.functions.front().body.erase(m.functions.front().body.begin()); // no thread returns
  CHECK(sim::plan_kernel(m, {}).strategy == sim::BlockStrategy::Fission);
}

TEST_CASE("a device function returns a tuple; for range with a negative step") {
  FunctionBuilder dev("divmod_dev", false, Type::tuple_of({i64(), i64()}));
  int p = dev.param("p", i64());
  int q = dev.param("q", i64());
  dev.f.body = block(ret(tuple(list(binary(Op::FloorDiv, dev.get(p), dev.get(q)),
                                    binary(Op::Mod, dev.get(p), dev.get(q))))));
  FunctionBuilder k("caller", true);
  int out = k.param("out", array(Scalar::I64, 1));
  int t = k.var("t", Type::tuple_of({i64(), i64()}));
  int j = k.var("j", i64());
  int total = k.var("total", i64());
  k.f.body =
      block(assign(t, call(1, Type::tuple_of({i64(), i64()}), list(int_const(-17), int_const(5)))),
            store(k.get(out), list(int_const(0)), get(k.get(t), 0)),
            store(k.get(out), list(int_const(1)), get(k.get(t), 1)), assign(total, int_const(0)),
            for_range(j, int_const(10), int_const(0), int_const(-3),
                      block(assign(total, binary(Op::Add, k.get(total), k.get(j))))),
            store(k.get(out), list(int_const(2)), k.get(total)),
            store(k.get(out), list(int_const(3)), k.get(j)));
  std::vector<int64_t> values(4, 0);
  ArrayArg va = ArrayArg::of(values);
  CHECK_FALSE(
      run(module_of(std::move(k.f), std::move(dev.f)), config(1, 1), {va.ptr()}).has_value());
  // divmod(-17, 5) == (-4, 3); range(10, 0, -3) == 10, 7, 4, 1.
  CHECK(values == std::vector<int64_t>{-4, 3, 22, 1});
}

TEST_CASE("a fault in a device function stops the caller; range step 0 is a ValueError") {
  FunctionBuilder dev("div_dev", false, i64());
  int p = dev.param("p", i64());
  dev.f.body = block(ret(at(binary(Op::FloorDiv, int_const(1), dev.get(p)), 2)));
  FunctionBuilder k("caller", true);
  int out = k.param("out", array(Scalar::I64, 1));
  int step = k.param("step", i64());
  k.f.body = block(store(k.get(out), list(int_const(0)), call(1, i64(), list(k.get(step)))),
                   store(k.get(out), list(int_const(1)), int_const(5)));
  std::vector<int64_t> values(2, 0);
  ArrayArg va = ArrayArg::of(values);
  int64_t zero = 0;
  ir::Module module = module_of(std::move(k.f), std::move(dev.f));
  module.options.python_error_model = true; // integer // 0 raises (debug=True)
  auto fault = run(std::move(module), config(1, 1), {va.ptr(), &zero});
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "ZeroDivisionError");
  CHECK(fault->where.function == "div_dev");
  CHECK(values[1] == 0); // the caller returned at once

  FunctionBuilder k2("ranger", true);
  int s = k2.param("s", i64());
  int jj = k2.var("j", i64());
  k2.f.body = block(for_range(jj, int_const(0), int_const(5), k2.get(s), {}, 9));
  fault = run(module_of(std::move(k2.f)), config(1, 1), {&zero});
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "ValueError");
  CHECK(fault->message == "range() arg 3 must not be zero");
  CHECK(fault->where.line == 9);
}

TEST_CASE("print writes one line per call") {
  FunctionBuilder k("printer", true);
  k.f.body = block(print(
      list(text("tid"), cast(special(Op::ThreadIdx), i64()), float_const(2.5), bool_const(true))));
  k.f.props.uses_print = true;
  ir::Module m = module_of(std::move(k.f));
  sim::KernelCode code = sim::jit_compile(m);
  char path[] = "/tmp/simt_print_XXXXXX";
  int file = mkstemp(path);
  REQUIRE(file >= 0);
  fflush(stdout);
  int saved = dup(1);
  dup2(file, 1);
  std::vector<void *> no_args(1, nullptr);
  auto fault = sim::launch(code, config(1, 2), no_args.data());
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  CHECK_FALSE(fault.has_value());
  CHECK(text.str() == "tid 0 2.500000 True\ntid 1 2.500000 True\n");
}

TEST_CASE("host_llvm_ir shows the optimised entry point") {
  FunctionBuilder k("inspect", true);
  int a = k.param("a", array(Scalar::F32, 1));
  k.f.body = block(store(k.get(a), list(grid_x()), float_const(1, f32())));
  std::string ir = sim::host_llvm_ir(module_of(std::move(k.f)));
  // No barrier: only the block loop exists; the thread body is inlined into it.
  CHECK(ir.find(".thread(") == std::string::npos);
  CHECK(ir.find(".block(") != std::string::npos);
  CHECK(ir.find("@simt_rt_index_error") != std::string::npos);
}

TEST_CASE("a Quick compile and its Full recompile run the same kernel") {
  // A kernel of this process alone: the on-disk cache has no code for it yet.
  const int64_t offset = 3 + getpid();
  FunctionBuilder k("vadd_tiers", true);
  int a = k.param("a", array(Scalar::F64, 1));
  int c = k.param("c", array(Scalar::F64, 1));
  int i = k.var("i", i64());
  k.f.body = block(
      assign(i, grid_x()),
      guarded(k, i, c,
              block(store(k.get(c), list(k.get(i)),
                          binary(Op::TrueDiv, load(k.get(a), list(k.get(i))),
                                 cast(binary(Op::Add, k.get(i), int_const(offset)), f64()))))));
  ir::Module m = module_of(std::move(k.f));
  sim::UnoptimisedModule unoptimised;
  sim::KernelCode quick = sim::jit_compile(m, sim::Tier::Quick, &unoptimised);
  REQUIRE(quick.tier == sim::Tier::Quick);
  CHECK(unoptimised.entry_symbol.ends_with(".block"));
  sim::KernelCode full = quick;
  sim::FullCode recompiled_code = sim::jit_compile_full(unoptimised);
  full.block_entry = recompiled_code.entry;
  full.keep_alive = recompiled_code.keep_alive;
  const bool recompiled = full.block_entry != quick.block_entry;
  CHECK(recompiled);
  // Once this process has Full code, a Quick request gets it too.
  CHECK(sim::jit_compile(m, sim::Tier::Quick).tier == sim::Tier::Full);

  const size_t n = 777;
  std::vector<double> x(n), by_quick(n), by_full(n);
  for (size_t j = 0; j < n; ++j)
    x[j] = std::sin(double(j)) * 1e3;
  for (auto [code, out] : {std::pair{&quick, &by_quick}, std::pair{&full, &by_full}}) {
    ArrayArg ax = ArrayArg::of(x), aout = ArrayArg::of(*out);
    std::vector<void *> args{ax.ptr(), aout.ptr()};
    CHECK_FALSE(sim::launch(*code, config(7, 128), args.data()).has_value());
  }
  for (size_t j = 0; j < n; ++j)
    REQUIRE(by_quick[j] == by_full[j]);
  CHECK(by_full[5] == x[5] / double(5 + offset));
}

namespace {

// out[i] = value for every thread i (cuda.grid(1)); with a barrier first when `fibers`, so the
// kernel runs with one fiber per thread.
ir::Module fill_kernel(const std::string &name, double value, bool fibers) {
  FunctionBuilder k(name, true);
  int out = k.param("out", array(Scalar::F64, 1));
  int i = k.var("i", i64());
  std::vector<Stmt> body;
  body.push_back(assign(i, grid_x()));
  if (fibers)
    body.push_back(syncthreads());
  body.push_back(guarded(k, i, out, block(store(k.get(out), list(k.get(i)), float_const(value)))));
  k.f.body = std::move(body);
  k.f.props.uses_barrier = fibers;
  return module_of(std::move(k.f));
}

// Compiled as fibers where it waits at a barrier (not by loop fission).
sim::KernelCode compile_unfissioned(const ir::Module &m) {
  return sim::jit_compile(m, sim::Tier::Full, nullptr, sim::SimOptions{.fission = false});
}

// Hands out `better` from its `after`-th poll on.
struct CountingUpgrade final : sim::CodeUpgrade {
  sim::KernelEntry better;
  int after;
  std::atomic<int> polls{0};
  CountingUpgrade(sim::KernelEntry better, int after) : better(better), after(after) {}
  sim::KernelEntry poll(std::chrono::nanoseconds) override {
    return polls.fetch_add(1) + 1 >= after ? better : nullptr;
  }
};

} // namespace

TEST_CASE("a launch switches to better code between blocks once an upgrade has it") {
  for (const bool fibers : {false, true}) {
    CAPTURE(fibers);
    const std::string suffix = fibers ? "_fibers" : "_flat";
    sim::KernelCode first = compile_unfissioned(fill_kernel("fill_one" + suffix, 1, fibers));
    sim::KernelCode second = compile_unfissioned(fill_kernel("fill_two" + suffix, 2, fibers));
    sim::KernelEntry better = fibers ? second.thread_entry : second.block_entry;
    REQUIRE(bool(better));
    CountingUpgrade upgrade(better, 3);
    sim::LaunchHooks hooks;
    hooks.upgrade = &upgrade;
    std::vector<double> out(512 * 32, 0.0);
    ArrayArg aout = ArrayArg::of(out);
    std::vector<void *> args{aout.ptr()};
    CHECK_FALSE(sim::launch(first, config(512, 32), args.data(), hooks).has_value());
    const auto ones = std::count(out.begin(), out.end(), 1.0);
    const auto twos = std::count(out.begin(), out.end(), 2.0);
    CHECK(ones > 0);
    CHECK(twos > 0);
    CHECK(ones + twos == int64_t(out.size()));
    // Whole blocks run one code or the other.
    for (size_t b = 0; b < 512; ++b)
      CHECK(std::count(out.begin() + b * 32, out.begin() + (b + 1) * 32, out[b * 32]) == 32);
  }
}

namespace {

// The process's memory mappings (/proc/self/maps lines).
size_t memory_mappings() {
  std::ifstream maps("/proc/self/maps");
  size_t count = 0;
  for (std::string line; std::getline(maps, line);)
    ++count;
  return count;
}

} // namespace

TEST_CASE("a kernel's code is freed when the last KernelCode holding it goes") {
  const double value = 1000.0 + getpid();
  const size_t before = sim::jit_kernels_alive();
  {
    sim::KernelCode code = sim::jit_compile(fill_kernel("fill_freed", value, false));
    CHECK(sim::jit_kernels_alive() == before + 1);
    // An equal module gets the same code while it lives.
    sim::KernelCode again = sim::jit_compile(fill_kernel("fill_freed", value, false));
    CHECK(bool(again.block_entry == code.block_entry));
    CHECK(sim::jit_kernels_alive() == before + 1);
    code = sim::KernelCode{};
    CHECK(sim::jit_kernels_alive() == before + 1); // `again` holds it
    std::vector<double> out(64, 0.0);
    ArrayArg aout = ArrayArg::of(out);
    std::vector<void *> args{aout.ptr()};
    CHECK_FALSE(sim::launch(again, config(2, 32), args.data()).has_value());
    CHECK(out[63] == value);
  }
  CHECK(sim::jit_kernels_alive() == before);
}

TEST_CASE("a Quick kernel's code and its Full recompile's are freed apart") {
  const double value = 2000.0 + getpid();
  const size_t before = sim::jit_kernels_alive();
  sim::UnoptimisedModule unoptimised;
  sim::KernelCode quick = sim::jit_compile(fill_kernel("fill_tiers_freed", value, false),
                                           sim::Tier::Quick, &unoptimised);
  REQUIRE(quick.tier == sim::Tier::Quick);
  sim::FullCode full = sim::jit_compile_full(unoptimised);
  CHECK(sim::jit_kernels_alive() == before + 2);
  quick = sim::KernelCode{};
  CHECK(sim::jit_kernels_alive() == before + 1);
  full = sim::FullCode{};
  CHECK(sim::jit_kernels_alive() == before);
}

TEST_CASE("compiling and dropping many kernels keeps the memory mappings bounded") {
  const double base = 3000.0 + getpid();
  sim::KernelCode warm = sim::jit_compile(fill_kernel("fill_many", base, false));
  const size_t before = memory_mappings();
  for (int k = 1; k <= 300; ++k)
    sim::KernelCode code =
        sim::jit_compile(fill_kernel("fill_many", base + k, false), sim::Tier::Quick);
  // Each kept kernel would take two mappings.
  CHECK(memory_mappings() < before + 100);
}
