// CUDA vector types (Numba's vector_types.py): names and aliases, constructor typing, attributes.
#include "frontend/builtins.h"
#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

ir::Module compile(const std::string &text) {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda");
  return test::compile_text(text, "(float32[:], int32[:])", names);
}

// The type of `r = EXPR` in a kernel taking f (float32[:]) and n (int32[:]).
std::string type_of(const std::string &expr) {
  auto module = compile("def k(f, n):\n    r = " + expr + "\n");
  return test::slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &body) {
  return test::error_text([&] { compile("def k(f, n):\n    " + body + "\n"); });
}

} // namespace

TEST_CASE("vector type names: Numba's and the C aliases") {
  struct Row {
    const char *name;
    Scalar base;
    int count;
  };
  const Row rows[] = {
      {"float32x3", Scalar::F32, 3}, {"float3", Scalar::F32, 3}, {"double2", Scalar::F64, 2},
      {"uint8x4", Scalar::U8, 4},    {"uchar4", Scalar::U8, 4},  {"char1", Scalar::I8, 1},
      {"short2", Scalar::I16, 2},    {"int4", Scalar::I32, 4},   {"long3", Scalar::I64, 3},
      {"longlong2", Scalar::I64, 2}, {"ulong1", Scalar::U64, 1}, {"ulonglong4", Scalar::U64, 4},
      {"uint2", Scalar::U32, 2},     {"ushort3", Scalar::U16, 3}};
  for (const Row &r : rows) {
    CAPTURE(r.name);
    Scalar base;
    int count;
    REQUIRE(parse_vector_type_name(r.name, base, count));
    CHECK(base == r.base);
    CHECK(count == r.count);
  }
  Scalar base;
  int count;
  for (const char *name : {"float5", "float16x2", "float0", "bool2", "half2", "int", "x3"})
    CHECK_FALSE(parse_vector_type_name(name, base, count));
  CHECK(Type::vector_of(Scalar::F32, 3).str() == "float32x3");
  CHECK(Type::vector_of(Scalar::F32, 3) != Type::vector_of(Scalar::F32, 2));
}

TEST_CASE("typing vector constructors and attributes") {
  CHECK(type_of("cuda.float3(1, 2.5, f[0])") == "float32x3");
  CHECK(type_of("cuda.float32x4(cuda.float2(1, 2), 3, 4)") == "float32x4");
  CHECK(type_of("cuda.int32x3(cuda.int1(1), cuda.int2(n[0], 3))") == "int32x3");
  CHECK(type_of("cuda.double2(1, 2).y") == "float64");
  CHECK(type_of("cuda.uchar4(1, 2, 3, 4).w") == "uint8");
  CHECK(type_of("cuda.float3(1, 2, 3).x + 1") == "float64");
  CHECK(error_of("r = cuda.float3(1, 2)") ==
        "2:9: function cuda.float3 expects 3 elements (numbers or float32 vectors), got 2");
  CHECK(error_of("r = cuda.float3(cuda.float2(1, 2), cuda.float2(3, 4))") ==
        "2:9: function cuda.float3 expects 3 elements (numbers or float32 vectors), got 4");
  CHECK(error_of("r = cuda.float3(cuda.int2(1, 2), 3)") ==
        "2:21: function cuda.float3 does not accept int32x2");
  CHECK(error_of("r = cuda.float2(f, 3)") ==
        "2:21: function cuda.float2 does not accept array(float32, 1d, A)");
  CHECK(error_of("r = cuda.float2(x=1, y=2)") == "2:9: function cuda.float2 takes no keyword "
                                                 "arguments");
  CHECK(error_of("r = cuda.float2(1, 2).z") == "2:9: unknown attribute 'z' of float32x2");
  CHECK(error_of("v = cuda.float2(1, 2)\n    v.x = 3.0") == // read-only, as in Numba
        "3:5: simt: assigning to attributes of float32x2 is not supported");
  CHECK(error_of("v = cuda.float2(1, 2)\n    if v:\n        pass") ==
        "3:8: simt: the truth value of a float32x2 is not supported");
}
