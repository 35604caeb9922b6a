// Typing of the CUDA intrinsics (cuda.popc, cuda.selp, cuda.syncthreads_count, ...), the math
// functions with tuple results, the thread block group and the grid group.
#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

using test::slot_type;

std::shared_ptr<test::NameTable> cuda_names() {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda").module("math", "math").module("numba", "numba");
  return names;
}

FunctionSource source_of(const std::string &text) {
  return test::kernel_source(text, cuda_names());
}

ir::Module compile(const std::string &text, const std::string &signature,
                   const CompileOptions &options = {}) {
  return test::compile_text(text, signature, cuda_names(), options);
}

// A kernel that may call the device function in `device` (by its name).
ir::Module compile_with_device(const std::string &text, const std::string &device,
                               const std::string &signature) {
  auto names = cuda_names();
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = std::make_shared<FunctionSource>(source_of(device));
  names->names[fn.function->name] = fn;
  return test::compile_text(text, signature, names);
}

// The type of `r = EXPR` in a kernel taking a, b and x.
std::string type_of(const std::string &expr, const std::string &a, const std::string &b) {
  std::string text = "def k(a, b, x):\n    r = " + expr + "\n";
  auto module = compile(text, "(" + a + ", " + b + ", float32[:])");
  return slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

} // namespace

TEST_CASE("cuda intrinsics type as Numba's cudadecl.py") {
  struct Case {
    const char *expr, *a, *b, *type;
  };
  const Case cases[] = {
      {"cuda.popc(a)", "int32", "int32", "int32"},
      {"cuda.popc(a)", "uint8", "int32", "uint8"},
      {"cuda.popc(5)", "int32", "int32", "int64"},
      {"cuda.clz(a)", "uint64", "int32", "uint64"},
      {"cuda.clz(a)", "int16", "int32", "int16"},
      {"cuda.ffs(a)", "int64", "int32", "uint32"},
      {"cuda.ffs(a)", "uint8", "int32", "uint32"},
      {"cuda.brev(a)", "uint32", "int32", "uint32"},
      {"cuda.brev(a)", "uint64", "int32", "uint64"},
      {"cuda.fma(a, b, a)", "float32", "float32", "float32"},
      {"cuda.fma(a, b, 1.0)", "float32", "float32", "float64"},
      {"cuda.fma(a, b, a)", "float64", "float64", "float64"},
      {"cuda.cbrt(a)", "float32", "int32", "float32"},
      {"cuda.cbrt(a)", "float64", "int32", "float64"},
      {"cuda.selp(a > 0, b, b)", "int32", "float32", "float32"},
      {"cuda.selp(a, b, b)", "int32", "uint16", "uint16"},
      {"cuda.selp(a, 1, 2)", "bool", "int32", "int64"},
      {"cuda.syncthreads_count(a)", "bool", "int32", "int32"},
      {"cuda.syncthreads_and(a > b)", "float32", "int32", "int32"},
      {"cuda.syncthreads_or(a)", "int64", "int32", "int32"},
      {"cuda.atomic.nanmax(x, a, b)", "int32", "float64", "float32"},
      {"cuda.atomic.nanmin(x, 0, b)", "int32", "float64", "float32"},
      {"math.frexp(a)", "float32", "int32", "Tuple(float32, int32)"},
      {"math.frexp(a)", "float64", "int32", "Tuple(float64, int32)"},
      {"math.modf(a)", "float32", "int32", "UniTuple(float32 x 2)"},
      {"math.modf(a)", "float64", "int32", "UniTuple(float64 x 2)"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.expr);
    CAPTURE(c.a);
    CHECK(type_of(c.expr, c.a, c.b) == c.type);
  }
}

TEST_CASE("syncthreads_count/and/or are barriers") {
  auto module = compile("def k(a):\n    a[0] = cuda.syncthreads_count(a[0])\n", "(int64[:],)");
  CHECK(module.props.uses_barrier);
  CHECK(ir::dump(module).find("@syncthreads_count(int32(a[0]))") != std::string::npos);
}

TEST_CASE("fences and nanosleep are statements without a value") {
  auto module = compile("def k(a):\n"
                        "    cuda.threadfence()\n"
                        "    cuda.threadfence_block()\n"
                        "    cuda.threadfence_system()\n"
                        "    cuda.nanosleep(a[0])\n",
                        "(int64[:],)");
  std::string dump = ir::dump(module);
  CHECK(dump.find("@threadfence()") != std::string::npos);
  CHECK(dump.find("@threadfence_block()") != std::string::npos);
  CHECK(dump.find("@threadfence_system()") != std::string::npos);
  CHECK(dump.find("@nanosleep(uint32(a[0]))") != std::string::npos);
  CHECK_FALSE(module.props.uses_barrier);
}

TEST_CASE("the thread block group: thread_rank, size, sync, passed to device functions") {
  auto module = compile("def k(a):\n"
                        "    g = cuda.cg.this_thread_block()\n"
                        "    r = g.thread_rank\n"
                        "    n = g.size\n"
                        "    g.sync()\n"
                        "    a[r] = n\n",
                        "(int32[:],)");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "g").str() == "ThreadBlock");
  CHECK(slot_type(k, "r").str() == "int32");
  CHECK(slot_type(k, "n").str() == "int32");
  CHECK(module.props.uses_barrier);
  std::string dump = ir::dump(module);
  CHECK(dump.find("@this_thread_block()") != std::string::npos);
  CHECK(dump.find("syncthreads") != std::string::npos);
}

TEST_CASE("the grid group: sync() is a grid barrier returning int32, reached through calls") {
  auto module = compile("def k(a):\n"
                        "    g = cuda.cg.this_grid()\n"
                        "    a[0] = 1\n"
                        "    r = g.sync()\n"
                        "    cuda.cg.this_grid().sync()\n"
                        "    a[1] = r\n",
                        "(int32[:],)");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "g").str() == "GridGroup");
  CHECK(slot_type(k, "r").str() == "int32");
  CHECK(module.props.uses_grid_sync);
  CHECK(module.props.uses_barrier); // its threads run as fibers
  std::string dump = ir::dump(module);
  CHECK(dump.find("@this_grid()") != std::string::npos);
  CHECK(dump.find("@grid_sync()") != std::string::npos);
  CHECK(dump.find("uses barrier grid_sync") != std::string::npos);

  // A device function that syncs the grid makes its caller cooperative.
  auto called = compile_with_device("def k(a):\n"
                                    "    step(cuda.cg.this_grid(), a)\n",
                                    "def step(g, a):\n"
                                    "    a[0] = 1\n"
                                    "    g.sync()\n",
                                    "(int32[:],)");
  CHECK(called.props.uses_grid_sync);
  CHECK_FALSE(compile("def k(a):\n    cuda.syncthreads()\n", "(int32[:],)").props.uses_grid_sync);
}

TEST_CASE("the error model travels into the module") {
  const char *text = "def k(a):\n    a[0] = a[0] / a[1]\n";
  CHECK_FALSE(compile(text, "(float64[:],)").options.python_error_model);
  CompileOptions debug;
  debug.python_error_model = true;
  ir::Module module = compile(text, "(float64[:],)", debug);
  CHECK(module.options.python_error_model);
  CHECK(ir::dump(module).find("error_model: python") != std::string::npos);
}

TEST_CASE("cuda intrinsic errors name the function and the problem") {
  CHECK(error_of("def k(a):\n    a[0] = cuda.selp(a[0] > 0, a[0], 1)\n", "(int32[:],)") ==
        "2:12: function cuda.selp expects two values of one type among float64, float32, int16, "
        "uint16, int32, uint32, int64 and uint64, got int32 and int64");
  CHECK(error_of("def k(a):\n    a[0] = cuda.selp(True, a, a)\n", "(int8[:],)") ==
        "2:12: function cuda.selp expects two values of one type among float64, float32, int16, "
        "uint16, int32, uint32, int64 and uint64, got array(int8, 1d, A) and array(int8, 1d, A)");
  CHECK(error_of("def k(a):\n    a[0] = cuda.popc(a[0], 1)\n", "(int32[:],)") ==
        "2:12: function cuda.popc expects 1 argument, got 2");
  CHECK(error_of("def k(a):\n    a[0] = cuda.popc(val=a[0])\n", "(int32[:],)") ==
        "2:12: function cuda.popc takes no keyword arguments");
  CHECK(error_of("def k(a):\n    a[0] = cuda.clz(a)\n", "(int32[:],)") ==
        "2:21: function cuda.clz does not accept array(int32, 1d, A)");
  CHECK(error_of("def k(a):\n    cuda.threadfence(1)\n", "(int32[:],)") ==
        "2:5: function cuda.threadfence expects 0 arguments, got 1");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_thread_block()\n    a[0] = g.rank\n",
                 "(int32[:],)") == "3:12: unknown attribute 'rank' of ThreadBlock");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_thread_block()\n    if g:\n        a[0] = 1\n",
                 "(int32[:],)") == "3:8: simt: the truth value of a ThreadBlock is not supported");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_thread_block()\n    g.sync(1)\n",
                 "(int32[:],)") == "3:5: function ThreadBlock.sync expects 0 arguments, got 1");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_grid()\n    a[0] = g.thread_rank\n",
                 "(int32[:],)") == "3:12: unknown attribute 'thread_rank' of GridGroup");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_grid()\n    g.sync(0)\n", "(int32[:],)") ==
        "3:5: function GridGroup.sync expects 0 arguments, got 1");
  CHECK(error_of("def k(a):\n    g = cuda.cg.this_grid(1)\n", "(int32[:],)") ==
        "2:9: function cuda.cg.this_grid expects 0 arguments, got 1");
  CHECK(error_of("def k(a):\n    if cuda.cg.this_grid():\n        a[0] = 1\n", "(int32[:],)") ==
        "2:8: simt: the truth value of a GridGroup is not supported");
  CHECK(error_of("def k(a):\n    cuda.atomic.nanmax(a, 0, 1)\n", "(int8[:],)") ==
        "2:5: cuda.atomic.nanmax does not support int8 arrays");
}

TEST_CASE("loops that may wait for other threads make the kernel spin") {
  const char *sig = "(int32[:], int64)";
  auto spins = [&](const std::string &body) {
    return compile("def k(flag, n):\n" + body, sig).props.may_spin;
  };
  CHECK(spins("    while flag[0] == 0:\n        pass\n"));
  CHECK(spins("    while cuda.atomic.add(flag, 0, 0) == 0:\n        pass\n"));
  CHECK(spins("    while True:\n        if flag[0] == 1:\n            break\n"));
  CHECK(spins("    done = False\n    while not done:\n        done = flag[0] != 0\n"));
  CHECK_FALSE(spins("    i = 0\n    while i < n:\n        x = flag[i]\n        i += 1\n"));
  CHECK_FALSE(spins("    while n > 0:\n        n -= 1\n"));
  CHECK_FALSE(spins("    while n > 0:\n        flag[n] = 1\n        n -= 1\n"));
  CHECK_FALSE(spins("    for i in range(n):\n        flag[i] = flag[0]\n"));
  // Through a chain of locals, through control (a flag set under a branch on memory), through a
  // break or return guarded by such a branch, through the thread's local arrays.
  CHECK(spins("    done = 0\n    while done == 0:\n        v = flag[0]\n        w = v + 1\n"
              "        done = w - 1\n"));
  CHECK(spins("    done = False\n    while not done:\n        if flag[0] == 1:\n"
              "            done = True\n"));
  CHECK(spins("    i = 0\n    while i < n:\n        if flag[0] == 1:\n            break\n"
              "        i = 0\n"));
  CHECK(spins("    while n > 0:\n        if flag[0] == 1:\n            return\n"));
  CHECK(spins("    buf = cuda.local.array(1, numba.int32)\n    buf[0] = 0\n"
              "    while buf[0] == 0:\n        buf[0] = flag[0]\n"));
  CHECK(spins("    while True:\n        for j in range(1):\n            if flag[0] == 1:\n"
              "                return\n"));
  // Memory read in the loop that decides nothing about its end; a break that leaves only a
  // nested loop; a while True whose end is fixed when it starts.
  CHECK_FALSE(spins("    s = 0\n    i = 0\n    while i < n:\n        s += flag[i]\n"
                    "        i += 1\n    flag[0] = s\n"));
  CHECK_FALSE(spins("    i = 0\n    while i < n:\n        for j in range(n):\n"
                    "            if flag[j] == 1:\n                break\n        i += 1\n"));
  CHECK_FALSE(spins("    i = 0\n    while True:\n        flag[i] = flag[i + 1]\n        i += 1\n"
                    "        if i >= n:\n            break\n"));
  // A device function's loop counts for its callers.
  CHECK(compile_with_device("def k(flag, n):\n    wait(flag)\n",
                            "def wait(f):\n    while f[0] == 0:\n        pass\n", sig)
            .props.may_spin);
}
