#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

using test::slot_type;

class TestResolver : public test::NameTable {
public:
  TestResolver() {
    module("cuda", "numba.cuda");
    module("math", "math");
    module("np", "numpy");
    module("numba", "numba");
    GlobalValue f32;
    f32.kind = GlobalValue::Kind::Dtype;
    f32.scalar = Scalar::F32;
    names["float32"] = f32;
    GlobalValue n;
    n.kind = GlobalValue::Kind::Int;
    n.int_value = 16;
    names["N"] = n;
  }
};

FunctionSource source_of(const std::string &text, std::shared_ptr<TestResolver> resolver = {}) {
  return test::kernel_source(text, resolver ? resolver : std::make_shared<TestResolver>());
}

ir::Module compile(const std::string &text, const std::string &signature,
                   std::shared_ptr<TestResolver> resolver = {}) {
  return compile_kernel(source_of(text, resolver), parse_signature(signature));
}

// The type of `r = EXPR` in a kernel taking a and b.
std::string type_of(const std::string &expr, const std::string &a, const std::string &b) {
  std::string text = "def k(a, b, x, m):\n    r = " + expr + "\n";
  auto module = compile(text, "(" + a + ", " + b + ", float32[:], int32[:, :])");
  return slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

} // namespace

TEST_CASE("expression types follow Numba") {
  struct Case {
    const char *expr, *a, *b, *type;
  };
  // each checked against numba 0.56 (CPU and CUDA typing contexts)
  const Case cases[] = {
      {"a + b", "float32", "float32", "float32"},
      {"a + b", "float32", "complex64", "complex64"},
      {"a * b", "float64", "complex64", "complex128"},
      {"a - b", "int32", "complex64", "complex128"},
      {"a / b", "complex64", "complex64", "complex64"},
      {"a ** b", "complex64", "int64", "complex128"},
      {"a ** 2", "complex64", "int64", "complex128"},
      {"a + 1j", "complex64", "int32", "complex128"},
      {"a == b", "complex64", "float64", "bool"},
      {"-a", "complex64", "int32", "complex64"},
      {"abs(a)", "complex64", "int32", "float32"},
      {"a.real", "complex128", "int32", "float64"},
      {"a.imag", "int32", "int32", "int32"},
      {"a.conjugate()", "complex64", "int32", "complex64"},
      {"complex(a, b)", "float32", "float32", "complex64"},
      {"complex(a, b)", "float32", "int32", "complex128"},
      {"complex(a)", "float32", "int32", "complex64"},
      {"complex()", "float32", "int32", "complex128"},
      {"a + 1", "float32", "int32", "float64"},
      {"a + 1.0", "float32", "int32", "float64"},
      {"a * b", "float32", "int16", "float32"},
      {"a * b", "float32", "int32", "float64"},
      {"a + b", "int32", "int32", "int64"},
      {"a + b", "uint32", "uint8", "uint64"},
      {"a + b", "int64", "uint64", "int64"},
      {"a < b", "int64", "uint64", "bool"},
      {"a // b", "int32", "int64", "int64"},
      {"a // b", "float32", "float32", "float32"},
      {"a % b", "float64", "int64", "float64"},
      {"a / b", "int32", "int32", "float64"},
      {"a / b", "float32", "float32", "float32"},
      {"a ** b", "int64", "int64", "int64"},
      {"a ** 2", "float32", "int64", "float32"},
      {"a ** b", "float32", "float64", "float64"},
      {"a << b", "int32", "int32", "int64"},
      {"a & b", "bool", "bool", "bool"},
      {"a > b", "float32", "int64", "bool"},
      {"-a", "bool", "int32", "int64"},
      {"-a", "uint8", "int32", "uint64"},
      {"~a", "int32", "int32", "int64"},
      {"not a", "float32", "int32", "bool"},
      {"a and b", "int64", "float64", "float64"},
      {"a if b else 2.5", "int64", "bool", "float64"},
      {"math.sin(a)", "float32", "int32", "float32"},
      {"math.sin(a)", "int32", "int32", "float64"},
      {"math.floor(a)", "float32", "int32", "float32"},
      {"math.pow(a, b)", "float32", "int32", "float32"},
      {"math.isnan(a)", "float64", "int32", "bool"},
      {"math.atan2(a, b)", "int64", "int64", "float64"},
      {"math.pi", "int64", "int64", "float64"},
      {"np.sqrt(a)", "float32", "int32", "float32"},
      {"abs(a)", "int32", "int32", "int32"},
      {"abs(a)", "float32", "int32", "float32"},
      {"min(a, b)", "int32", "float32", "float64"},
      {"max(a, b, 1)", "int32", "int32", "int64"},
      {"round(a)", "float32", "int32", "int64"},
      {"round(a, 2)", "float32", "int32", "float32"},
      {"int(a)", "float32", "int32", "int64"},
      {"float(a)", "int32", "int32", "float64"},
      {"bool(a)", "int32", "int32", "bool"},
      {"np.float32(a)", "int64", "int32", "float32"},
      {"numba.int32(a)", "float64", "int32", "int32"},
      {"float32(a)", "float64", "int32", "float32"},
      {"len(x)", "int32", "int32", "int64"},
      {"x.shape", "int32", "int32", "UniTuple(int64 x 1)"},
      {"m.shape[1]", "int32", "int32", "int64"},
      {"m.size", "int32", "int32", "int64"},
      {"m.ndim", "int32", "int32", "int64"},
      {"x[a]", "int32", "int32", "float32"},
      {"m[a, b]", "int32", "uint64", "int32"},
      {"cuda.grid(1)", "int32", "int32", "int32"},
      {"cuda.grid(2)", "int32", "int32", "UniTuple(int32 x 2)"},
      {"cuda.gridsize(3)", "int32", "int32", "UniTuple(int32 x 3)"},
      {"cuda.threadIdx.y", "int32", "int32", "int32"},
      {"cuda.laneid", "int32", "int32", "int32"},
      {"(a, b)", "int32", "float64", "Tuple(int32, float64)"},
      {"cuda.atomic.add(x, a, 1)", "int32", "int32", "float32"},
      {"N * 2", "int32", "int32", "int64"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.expr);
    CAPTURE(c.a);
    CAPTURE(c.b);
    CHECK(type_of(c.expr, c.a, c.b) == c.type);
  }
}

TEST_CASE("locals unify over all their assignments") {
  auto module = compile("def k(a, n):\n"
                        "    s = 0\n"
                        "    for i in range(n):\n"
                        "        s += a[i]\n"
                        "    t = 1\n"
                        "    if n > 2:\n"
                        "        t = 2.5\n"
                        "    a[0] = s + t\n",
                        "(float64[:], int32)");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "s").str() == "float64");
  CHECK(slot_type(k, "t").str() == "float64");
  CHECK(slot_type(k, "i").str() == "int64");
  CHECK(k.num_params == 2);
}

TEST_CASE("a local read before its assignment in a loop is typed by a later round") {
  auto module = compile("def k(a, n):\n"
                        "    x = 0\n"
                        "    for i in range(n):\n"
                        "        if i > 0:\n"
                        "            y = z + 1\n"
                        "        z = x * 0.5\n"
                        "    a[0] = z\n",
                        "(float64[:], int32)");
  CHECK(slot_type(module.kernel(), "y").str() == "float64");
}

TEST_CASE("complex typing errors") {
  const char *sig = "(complex64[:], float32[:])";
  CHECK(error_of("def k(a, b):\n    b[0] = a[0]\n", sig) ==
        "2:12: cannot convert complex64 to float32");
  CHECK(error_of("def k(a, b):\n    b[0] = a[0] < a[1]\n", sig) ==
        "2:12: '<' is not supported between complex64 and complex64");
  CHECK(error_of("def k(a, b):\n    a[0] = a[0] // a[1]\n", sig) ==
        "2:12: unsupported operand types for //: complex64 and complex64");
  CHECK(error_of("def k(a, b):\n    print(a[0])\n", sig) ==
        "2:11: simt: print() of complex numbers is not supported (Numba's CUDA target cannot "
        "print them)");
  CHECK(error_of("def k(a, b):\n    b[0] = math.sqrt(a[0])\n", sig)
            .find("function math.sqrt does not accept complex64") != std::string::npos);
  CHECK(error_of("def k(a, b):\n    a[0] = max(a[0], a[1])\n", sig) ==
        "2:16: simt: max() of complex numbers is not supported");
  CHECK(error_of("def k(a, b):\n    a[0] = complex(True)\n", sig) ==
        "2:20: complex() only support for numbers");
  CHECK(error_of("def k(a, b):\n    b[0] = int(a[0])\n", sig) ==
        "2:16: cannot convert complex64 to int64");
}

TEST_CASE("typer errors carry the location and a clear message") {
  CHECK(error_of("def k(a):\n    a[0] = foo(1)\n", "(float32[:],)") == "2:12: unknown name 'foo'");
  CHECK(error_of("def k(a):\n    a[0] = cuda.foo\n", "(float32[:],)") ==
        "2:12: unknown attribute 'cuda.foo'");
  // Numba's names that simt lacks are not unknown: they are not supported yet.
  CHECK(error_of("def k(a):\n    a[0] = cuda.declare_device\n", "(int32[:],)") ==
        "2:12: simt: cuda.declare_device is not supported yet");
  CHECK(error_of("def k(a, b):\n    b[0] = a[0, 1]\n", "(float32[:], float32[:])") ==
        "2:12: wrong number of indices: 2 for a 1-dimensional array");
  CHECK(error_of("def k(a, b):\n    b[0] = a[0]\n", "(float32[:, :], float32[:])") ==
        "2:12: cannot store array(float32, 1d, A) into an element of array(float32, 1d, A)");
  CHECK(error_of("def k(a, f):\n    a[0] = f[0]\n", "(float32[:], float64)") ==
        "2:12: cannot index float64");
  CHECK(error_of("def k(a):\n    a[0] = math.sin(1.0, 2.0)\n", "(float32[:],)") ==
        "2:12: function math.sin expects 1 argument, got 2");
  CHECK(error_of("def k(a):\n    for v in a.shape[0]:\n        pass\n", "(float32[:],)") ==
        "2:14: 'int64' object is not iterable");
  CHECK(error_of("def k(a):\n    return 1\n", "(float32[:],)") ==
        "2:5: a kernel cannot return a value");
  CHECK(error_of("def k(a):\n    x, y = cuda.grid(3)\n", "(float32[:],)") ==
        "2:5: cannot unpack 3 values into 2 targets");
}

TEST_CASE("storing into a constant array is an error") {
  auto resolver = std::make_shared<TestResolver>();
  GlobalValue table;
  table.kind = GlobalValue::Kind::Array;
  table.scalar = Scalar::F64;
  table.shape = {2};
  table.data.resize(16);
  resolver->names["TABLE"] = table;
  auto module = compile("def k(a):\n    a[0] = TABLE[1]\n", "(float64[:],)", resolver);
  REQUIRE(module.const_arrays.size() == 1);
  CHECK(module.const_arrays[0].shape == std::vector<int64_t>{2});
  try {
    compile("def k(a):\n    TABLE[0] = a[0]\n", "(float64[:],)", resolver);
    FAIL("expected an error");
  } catch (const CompileError &e) {
    CHECK(e.message == "cannot store to a read-only constant array");
    CHECK(e.line == 2);
    CHECK(e.col == 5);
  }
}

TEST_CASE("ir::dump of a small kernel") {
  auto module = compile("def add(a, b, out):\n"
                        "    i = cuda.grid(1)\n"
                        "    if i < out.size:\n"
                        "        out[i] = a[i] + b[i]\n",
                        "(float32[::1], float32[::1], float32[::1])");
  std::string expected = "static_shared_bytes: 0\n"
                         "\n"
                         "kernel add(a: array(float32, 1d, C), b: array(float32, 1d, C), out: "
                         "array(float32, 1d, C)) -> none  # k.py:1\n"
                         "  local i: int32\n"
                         "   2:  i: int32 = add(threadIdx.x, mul(blockIdx.x, blockDim.x))\n"
                         "   3:  if lt(int64(i), out.size):\n"
                         "   4:    out[int64(i)] = add(a[int64(i)], b[int64(i)])\n";
  CHECK(ir::dump(module) == expected);
}

TEST_CASE("device functions are specialised per argument types") {
  auto resolver = std::make_shared<TestResolver>();
  auto twice =
      std::make_shared<FunctionSource>(source_of("def twice(v):\n    return v * 2\n", resolver));
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = twice;
  resolver->names["twice"] = fn;
  auto module = compile("def k(a, n):\n"
                        "    a[0] = twice(n)\n"
                        "    a[1] = twice(a[1])\n"
                        "    a[2] = twice(n + 1)\n",
                        "(float32[:], int64)", resolver);
  REQUIRE(module.functions.size() == 3);
  CHECK(module.functions[1].return_type.str() == "int64");
  CHECK(module.functions[2].return_type.str() == "float64");
  CHECK(module.functions[1].name != module.functions[2].name);
  CHECK(module.functions[1].slots[0].type.str() == "int64");
  CHECK(module.functions[2].slots[0].type.str() == "float32");
}

TEST_CASE("runaway recursion is reported, recursion with a base case typed") {
  auto resolver = std::make_shared<TestResolver>();
  auto f =
      std::make_shared<FunctionSource>(source_of("def f(v):\n    return f(v - 1)\n", resolver));
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = f;
  resolver->names["f"] = fn;
  try {
    compile("def k(a):\n    a[0] = f(1)\n", "(float32[:],)", resolver);
    FAIL("expected an error");
  } catch (const CompileError &e) {
    CHECK(e.message == "cannot type infer runaway recursion: no return of 'f' has a type that "
                       "does not depend on this call");
  }
  // with a base case: typed from it, one specialisation calling itself
  f->source = "def f(v):\n    if v < 1:\n        return 0.5\n    return f(v - 1) + 1\n";
  ir::Module module = compile("def k(a):\n    a[0] = f(3)\n", "(float32[:],)", resolver);
  REQUIRE(module.functions.size() == 2);
  CHECK(module.functions[1].return_type.str() == "float64");
  CHECK(module.functions[1].recursive);
  CHECK(!module.functions[0].recursive);
}

TEST_CASE("shared arrays are laid out 16-byte aligned and set the properties") {
  auto module = compile("def k(a):\n"
                        "    s = cuda.shared.array(3, dtype=np.float32)\n"
                        "    t = cuda.shared.array((N, 2), 'int64')\n"
                        "    d = cuda.shared.array(0, float32)\n"
                        "    s[0] = 1\n"
                        "    cuda.syncthreads()\n"
                        "    a[0] = s[0] + t[1, 1] + d[5]\n",
                        "(float32[:],)");
  REQUIRE(module.shared_arrays.size() == 3);
  CHECK(module.shared_arrays[0].offset == 0);
  CHECK(module.shared_arrays[1].offset == 16);
  CHECK(module.shared_arrays[1].shape == std::vector<int64_t>{16, 2});
  CHECK(module.shared_arrays[2].dynamic);
  CHECK(module.static_shared_bytes == 16 + 256);
  CHECK(module.shared_arrays[2].offset == module.static_shared_bytes);
  CHECK(module.props.uses_shared);
  CHECK(module.props.uses_barrier);
  CHECK_FALSE(module.props.uses_atomics);
  CHECK(slot_type(module.kernel(), "t").str() == "array(int64, 2d, C)");
}

TEST_CASE("atomics, asserts, raises and prints") {
  auto module = compile("def k(a, c):\n"
                        "    old = cuda.atomic.compare_and_swap(c, 0, 1)\n"
                        "    cuda.atomic.max(a, (0, 1), 2.5)\n"
                        "    assert old >= 0, 'negative'\n"
                        "    if old > 5:\n"
                        "        raise ValueError('too big')\n"
                        "    print('old', old)\n",
                        "(float64[:, :], int32[:])");
  CHECK(module.props.uses_atomics);
  CHECK(module.props.uses_print);
  std::string dump = ir::dump(module);
  CHECK(dump.find("old: int32 = atomic.cas(c, 0, int32(0), int32(1))") != std::string::npos);
  CHECK(dump.find("atomic.max(a, 0, 1, 2.5)") != std::string::npos);
  CHECK(dump.find("raise ValueError(\"too big\")") != std::string::npos);
  CHECK(dump.find("assert ge(int64(old), 0), \"negative\"") != std::string::npos);
}

TEST_CASE("tuple unpacking evaluates every value first") {
  auto module = compile("def k(a):\n"
                        "    x, y = cuda.grid(2)\n"
                        "    p, q = 1, 2.5\n"
                        "    p, q = q, p\n"
                        "    a[x, y] = p\n",
                        "(float64[:, :],)");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "x").str() == "int32");
  // each web of p is a variable of its own, as Numba's SSA versions: p = 1, then p.2 = q
  CHECK(slot_type(k, "p").str() == "int64");
  CHECK(slot_type(k, "p.2").str() == "float64");
  std::string dump = ir::dump(module);
  CHECK(dump.find("$1: float64 = q") != std::string::npos);
}
