// Typing of Ellipsis subscripts, tuple stores into slices and their errors.
#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

ir::Module compile(const std::string &text, const std::string &signature) {
  return test::compile_text(text, signature, std::make_shared<test::NameTable>());
}

// The type of `r = EXPR` in a kernel taking an array `a` of type `array`.
std::string type_of(const std::string &expr, const std::string &array) {
  auto module = compile("def k(a):\n    r = " + expr + "\n", "(" + array + ",)");
  return test::slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &body, const std::string &signature) {
  return test::error_text([&] { compile("def k(a):\n    " + body + "\n", signature); });
}

} // namespace

TEST_CASE("Ellipsis subscripts are typed with Numba's layout rules") {
  struct Case {
    const char *expr, *array, *type;
  };
  // each checked against numba 0.56 (typemap of `r = expr` under njit)
  const Case cases[] = {
      {"a[0, ...]", "float64[:, :, ::1]", "array(float64, 2d, C)"},
      {"a[0:2, ...]", "float64[:, :, ::1]", "array(float64, 3d, C)"},
      {"a[..., 0]", "float64[:, :, ::1]", "array(float64, 2d, A)"},
      {"a[..., 0]", "float64[::1, :, :]", "array(float64, 2d, F)"},
      {"a[0, ...]", "float64[::1, :, :]", "array(float64, 2d, A)"},
      {"a[..., 1:3]", "float64[::1, :, :]", "array(float64, 3d, F)"},
      {"a[1, ..., 2]", "float64[:, ::1]", "float64"},
      {"a[1, ..., 2]", "float64[:, :, ::1]", "array(float64, 1d, A)"},
      {"a[..., ::2]", "float64[:, ::1]", "array(float64, 2d, A)"},
      {"a[0, ..., 1]", "float64[:, :, ::1]", "array(float64, 1d, A)"},
      {"a[:, ...]", "float64[:, ::1]", "array(float64, 2d, C)"},
      {"a[1, 2, ...]", "float64[:, ::1]", "float64"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.expr);
    CAPTURE(c.array);
    CHECK(type_of(c.expr, c.array) == c.type);
  }
}

TEST_CASE("Ellipsis stores and tuple stores into slices compile") {
  CHECK(error_of("a[...] = 5", "(float64[:, :],)") == "no error");
  CHECK(error_of("a[..., 1] = 2.5", "(float32[:, :],)") == "no error");
  CHECK(error_of("a[0, 1:3] = (1, 2)", "(float64[:, :],)") == "no error");
}

TEST_CASE("unsupported Ellipsis and slice statements are errors, as in Numba's CUDA target") {
  CHECK(error_of("r = a[...]", "(float64[:],)") ==
        "2:9: simt: reading a[...] is not supported, as in Numba's CUDA target (storing a[...] = "
        "value is); use the array itself or a[:]");
  CHECK(error_of("a[..., ...] = 1", "(float64[:, :],)") ==
        "2:12: only one ellipsis allowed in array index");
  CHECK(error_of("a[0, 1, ...] = 1", "(float64[:],)") ==
        "2:5: cannot index array(float64, 1d, A) with 2 indices");
  CHECK(error_of("x = ...", "(float64[:],)") ==
        "2:9: simt: Ellipsis ('...') is only supported as an array index");
  CHECK(error_of("a[1:3] += 1", "(float64[:],)") ==
        "2:5: simt: augmented assignment to an array slice (a[i:j] += x) is not supported, as "
        "in Numba's CUDA target (no in-place array operators); update the elements in a loop");
  CHECK(error_of("a[...] += 1", "(float64[:],)").find("augmented assignment to an array slice") !=
        std::string::npos);
  CHECK(error_of("a[0:2] = a[2:4]", "(float64[:],)") ==
        "2:14: simt: storing array(float64, 1d, A) into an array slice is not supported, as in "
        "Numba's CUDA target (it needs NRT); copy the elements in a loop");
  CHECK(error_of("a[0:2] = (1, 2.5)", "(float64[:],)") ==
        "2:14: simt: storing Tuple(int64, float64) into array(float64, 1d, A) is not supported, "
        "as in Numba's CUDA target (only a tuple of one scalar type into a 1-d slice)");
  CHECK(error_of("a[0:2] = (1, 2)", "(float64[:, :],)").find("into array(float64, 2d, A)") !=
        std::string::npos);
}
