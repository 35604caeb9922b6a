// Typing of array views, loops over iterables, tuple indexing and device-function arguments.
#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

using ViewResolver = test::NameTable;

std::shared_ptr<ViewResolver> with_device_function(const std::string &name,
                                                   const std::string &text) {
  auto resolver = std::make_shared<ViewResolver>();
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = std::make_shared<FunctionSource>(test::kernel_source(text, resolver));
  resolver->names[name] = fn;
  GlobalValue scale;
  scale.kind = GlobalValue::Kind::Float;
  scale.scalar = Scalar::F64;
  scale.float_value = 3.0;
  resolver->names["SCALE"] = scale;
  return resolver;
}

ir::Module compile(const std::string &text, const std::string &signature,
                   std::shared_ptr<ViewResolver> resolver = {}) {
  return test::compile_text(text, signature,
                            resolver ? resolver : std::make_shared<ViewResolver>());
}

std::string slot_type(const ir::Function &fn, const std::string &name) {
  return test::slot_type(fn, name).str();
}

// The type of `r = EXPR` in a kernel taking an array `a` of type `array`.
std::string type_of(const std::string &expr, const std::string &array) {
  auto module = compile("def k(a):\n    r = " + expr + "\n", "(" + array + ",)");
  return slot_type(module.kernel(), "r");
}

std::string error_of(const std::string &text, const std::string &signature,
                     std::shared_ptr<ViewResolver> resolver = {}) {
  return test::error_text([&] { compile(text, signature, resolver); });
}

} // namespace

TEST_CASE("array views are typed with Numba's layout rules") {
  struct Case {
    const char *expr, *array, *type;
  };
  // each checked against numba 0.56 (typemap of `r = expr` under njit)
  const Case cases[] = {
      {"a[1]", "float64[:, ::1]", "array(float64, 1d, C)"},
      {"a[1, :]", "float64[:, ::1]", "array(float64, 1d, C)"},
      {"a[:, 1]", "float64[:, ::1]", "array(float64, 1d, A)"},
      {"a[1:3]", "float64[:, ::1]", "array(float64, 2d, C)"},
      {"a[::2]", "float64[:, ::1]", "array(float64, 2d, A)"},
      {"a[1:]", "float64[::1]", "array(float64, 1d, C)"},
      {"a[::-1]", "float64[::1]", "array(float64, 1d, A)"},
      {"a[:, 1:2]", "float64[:, ::1]", "array(float64, 2d, A)"},
      {"a[1, 1:3]", "float64[:, ::1]", "array(float64, 1d, C)"},
      {"a[1, ::1]", "float64[:, ::1]", "array(float64, 1d, A)"},
      {"a[1]", "float64[:, :]", "array(float64, 1d, A)"},
      {"a[1]", "float64[::1, :]", "array(float64, 1d, A)"},
      {"a[:, 1]", "float64[::1, :]", "array(float64, 1d, F)"},
      {"a[1:3, 1]", "float64[::1, :]", "array(float64, 1d, F)"},
      {"a[1, 2]", "float64[:, ::1]", "float64"},
      {"a[1][2:]", "float64[:, :, ::1]", "array(float64, 2d, C)"},
      {"a[:, :, 0]", "float64[:, :, ::1]", "array(float64, 2d, A)"},
      {"a[0, 0]", "float32[:, :, ::1]", "array(float32, 1d, C)"},
      {"a[1][2]", "int32[:, :]", "int32"},
      {"a[1].shape", "int32[:, :]", "UniTuple(int64 x 1)"},
      {"len(a[1:])", "int32[:]", "int64"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.expr);
    CAPTURE(c.array);
    CHECK(type_of(c.expr, c.array) == c.type);
  }
}

TEST_CASE("views of shared and local arrays keep their memory space and C layout") {
  auto module = compile("def k(a):\n"
                        "    s = cuda.local.array((4, 4), numba.float32)\n"
                        "    r = s[1]\n"
                        "    r[0] = 1\n"
                        "    a[0] = r[0]\n",
                        "(float32[:],)", [] {
                          auto r = std::make_shared<ViewResolver>();
                          GlobalValue cuda, numba;
                          cuda.kind = numba.kind = GlobalValue::Kind::Module;
                          cuda.module_name = "numba.cuda";
                          numba.module_name = "numba";
                          r->names["cuda"] = cuda;
                          r->names["numba"] = numba;
                          return r;
                        }());
  const ir::Function &k = module.kernel();
  for (const ir::Slot &s : k.slots)
    if (s.name == "r") {
      CHECK(s.type.str() == "array(float32, 1d, C)");
      CHECK(s.type.space == MemSpace::Local);
    }
}

TEST_CASE("a slice's omitted parts get Numba's defaults by the step's sign") {
  auto module = compile("def k(a):\n    r = a[::-1]\n    r = a[2:]\n", "(float64[:],)");
  std::string dump = ir::dump(module);
  CHECK(dump.find("a[9223372036854775807:-9223372036854775808:-1]") != std::string::npos);
  CHECK(dump.find("a[2:9223372036854775807:1]") != std::string::npos);
}

TEST_CASE("storing a scalar into a view loops over its elements") {
  auto module = compile("def k(a):\n    a[1, :] = 5\n", "(int32[:, :],)");
  std::string dump = ir::dump(module);
  CHECK(dump.find("for $2 in range(0, $1.shape[0], 1):") != std::string::npos);
  CHECK(dump.find("$1[$2] = int32(5)") != std::string::npos);
}

TEST_CASE("for loops over arrays, tuples, enumerate and zip type their targets as Numba") {
  auto module = compile("def k(a, b):\n"
                        "    for x in a:\n"
                        "        pass\n"
                        "    for row in b:\n"
                        "        pass\n"
                        "    for i, y in enumerate(a, 1):\n"
                        "        pass\n"
                        "    for p, q in zip(range(3), b[0]):\n"
                        "        pass\n"
                        "    for t in (1, 2, 3):\n"
                        "        pass\n"
                        "    else:\n"
                        "        u = 1.5\n",
                        "(float32[::1], int16[:, ::1])");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "x") == "float32");
  CHECK(slot_type(k, "row") == "array(int16, 1d, A)"); // Numba's ArrayIterator yields 'A' rows
  CHECK(slot_type(k, "i") == "int64");
  CHECK(slot_type(k, "y") == "float32");
  CHECK(slot_type(k, "p") == "int64");
  CHECK(slot_type(k, "q") == "int16");
  CHECK(slot_type(k, "t") == "int64");
  CHECK(slot_type(k, "u") == "float64");
}

TEST_CASE("tuples: variable indices, equality and membership") {
  auto module = compile("def k(a, i):\n"
                        "    t = (1, 2, 3)\n"
                        "    x = t[i]\n"
                        "    e = t == (1, 2, 3)\n"
                        "    f = (1, 2) != (1, 2, 3)\n"
                        "    c = 2 in t\n"
                        "    d = 2 not in t\n",
                        "(float32[:], int32)");
  const ir::Function &k = module.kernel();
  CHECK(slot_type(k, "x") == "int64");
  CHECK(slot_type(k, "e") == "bool");
  CHECK(slot_type(k, "f") == "bool");
  CHECK(slot_type(k, "c") == "bool");
  CHECK(slot_type(k, "d") == "bool");
}

TEST_CASE("device functions take keyword arguments and defaults") {
  auto resolver = with_device_function(
      "f", "def f(v, scale=2.0, shift=SCALE, n=-1):\n    return v * scale + shift + n\n");
  auto module = compile("def k(a):\n"
                        "    a[0] = f(a[0])\n"
                        "    a[1] = f(a[1], shift=1)\n"
                        "    a[2] = f(v=a[2], n=2, scale=3)\n",
                        "(float32[:],)", resolver);
  REQUIRE(module.functions.size() == 4);
  const ir::Function &first = module.functions[1];
  CHECK(first.slots[1].type.str() == "float64");
  CHECK(first.slots[2].type.str() == "float64");
  CHECK(first.slots[3].type.str() == "int64");
  CHECK(module.functions[2].slots[2].type.str() == "int64");
  const ir::Function &third = module.functions[3];
  CHECK(third.slots[1].type.str() == "int64");
  CHECK(third.slots[2].type.str() == "float64");
}

TEST_CASE("view, loop, tuple and argument errors carry clear messages") {
  CHECK(error_of("def k(a):\n    r = a[1:2, 3, 4]\n", "(float64[:, :],)") ==
        "2:9: cannot index array(float64, 2d, A) with 3 indices");
  CHECK(error_of("def k(a):\n    r = a[1.0:]\n", "(float64[:],)") ==
        "2:11: slice indices must be integers or None, not float64");
  CHECK(error_of("def k(a):\n    r = a[:, 1.5]\n", "(float64[:, :],)") ==
        "2:14: array indices must be integers or slices, not float64");
  CHECK(error_of("def k(a):\n    a[:] += 1\n", "(float64[:],)")
            .starts_with("2:5: simt: augmented assignment to an array slice (a[i:j] += x) is not "
                         "supported"));
  CHECK(error_of("def k(a, b):\n    a[:] = b\n", "(float64[:], float64[:])")
            .starts_with("2:12: simt: storing array(float64, 1d, A) into an array slice is not "
                         "supported, as in Numba's CUDA target"));
  CHECK(error_of("def k(a, i):\n    a[0] = (1, 2.5)[i]\n", "(float64[:], int64)") ==
        "2:12: simt: indexing Tuple(int64, float64), whose elements differ in type, needs a "
        "constant index");
  CHECK(error_of("def k(a):\n    for x in (1, 2.5):\n        pass\n", "(float64[:],)") ==
        "2:14: cannot iterate over Tuple(int64, float64): like Numba, simt iterates only over "
        "tuples whose elements have one type");
  CHECK(error_of("def k(a, n):\n    for x in n:\n        pass\n", "(float64[:], int32)") ==
        "2:14: 'int32' object is not iterable");
  CHECK(error_of("def k(a):\n    z = zip(a, a)\n", "(float64[:],)") ==
        "2:9: simt: zip() outside a for loop is not supported yet");
  CHECK(error_of("def k(a):\n    for i, x in enumerate(a, 1.5):\n        pass\n",
                 "(float64[:],)") == "2:30: Only integers supported as start value in enumerate");
  auto resolver = with_device_function("f", "def f(v, scale=2.0):\n    return v * scale\n");
  CHECK(error_of("def k(a):\n    a[0] = f(a[0], 1, 2)\n", "(float64[:],)", resolver) ==
        "2:12: f() takes 2 positional arguments but 3 were given");
  CHECK(error_of("def k(a):\n    a[0] = f(a[0], scal=1)\n", "(float64[:],)", resolver) ==
        "2:20: f() got an unexpected keyword argument 'scal'");
  CHECK(error_of("def k(a):\n    a[0] = f(a[0], v=1)\n", "(float64[:],)", resolver) ==
        "2:20: f() got multiple values for argument 'v'");
  CHECK(error_of("def k(a):\n    a[0] = f(scale=1)\n", "(float64[:],)", resolver) ==
        "2:12: f() missing required argument 'v'");
  auto bad = with_device_function("g", "def g(v, s=math.pi):\n    return v\n");
  CHECK(error_of("def k(a):\n    a[0] = g(a[0])\n", "(float64[:],)", bad) ==
        "2:12: simt: the default value of parameter 's' is not supported yet (use a number, a "
        "tuple of numbers or a global number)");
}
