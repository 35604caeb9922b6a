// float16: the scalar's facts, Numba's casting and promotion rules for it, and the typer's
// results for float16 expressions and cuda.fp16 calls.
#include "frontend/builtins.h"
#include "frontend/compile.h"
#include "frontend/conversion.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>

using namespace simt;

namespace {

using S = Scalar;

ir::Module compile(const std::string &text, const std::string &signature) {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda").module("np", "numpy");
  return test::compile_text(text, signature, names);
}

// The type of `r = EXPR` in a kernel taking h (float16[:]) and f (float32[:]).
std::string type_of(const std::string &expr) {
  auto module = compile("def k(h, f):\n    r = " + expr + "\n", "(float16[:], float32[:])");
  return test::slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &text) {
  return test::error_text([&] { compile(text, "(float16[:], float32[:])"); });
}

} // namespace

TEST_CASE("float16 is a 2-byte float named as Numba and NumPy name it") {
  Scalar s;
  for (const char *name : {"float16", "f2", "half"}) {
    REQUIRE(parse_scalar_name(name, s));
    CHECK(s == S::F16);
  }
  CHECK(scalar_name(S::F16) == "float16");
  CHECK(byte_size(S::F16) == 2);
  CHECK(bit_width(S::F16) == 16);
  CHECK(is_float(S::F16));
  CHECK(is_signed(S::F16));
  CHECK_FALSE(is_integer(S::F16));
  CHECK(Type::array_of(S::F16, 1, 'C').str() == "array(float16, 1d, C)");
  CHECK(parse_signature("(float16[::1], float16)")[0] == Type::array_of(S::F16, 1, 'C'));
}

TEST_CASE("float16 rounding and bit patterns") {
  CHECK(round_to_float16(0.1) == 0.0999755859375);
  CHECK(round_to_float16(1 + 0x1p-11) == 1);              // tie: to even
  CHECK(round_to_float16(1 + 3 * 0x1p-11) == 1 + 0x1p-9); // tie: to even
  CHECK(round_to_float16(65519.99) == 65504);             // below the overflow tie
  CHECK(std::isinf(round_to_float16(65520)));             // the tie rounds up: infinity
  CHECK(round_to_float16(3 * 0x1p-26) == 0x1p-24);        // subnormals
  CHECK(round_to_float16(0x1p-25) == 0);                  // tie with zero: to even
  CHECK(std::signbit(round_to_float16(-1e-9)));           // keeps the sign
  CHECK(float16_bits(1.0) == 0x3c00);
  CHECK(float16_bits(-2.0) == 0xc000);
  CHECK(float16_bits(65504) == 0x7bff);
  CHECK(float16_bits(0x1p-24) == 0x0001);
  CHECK(float16_bits(0x1p-14) == 0x0400);
  CHECK(float16_bits(-0.0) == 0x8000);
  CHECK(float16_bits(INFINITY) == 0x7c00);
  CHECK(float16_bits(NAN) == 0x7e00);
}

TEST_CASE("float16 casting rules are Numba's typeconv rules") {
  CHECK(conversion(S::F16, S::F32) == Conversion::Promote);
  CHECK(conversion(S::F16, S::F64) == Conversion::Promote);
  CHECK(conversion(S::F32, S::F16) == Conversion::Unsafe);
  CHECK(conversion(S::I16, S::F16) == Conversion::Unsafe);
  CHECK(conversion(S::I8, S::F16) == Conversion::Unsafe);
  CHECK(conversion(S::F16, S::C64) == Conversion::Safe);
  CHECK(conversion(S::C64, S::F16) == Conversion::Never);
}

TEST_CASE("float16 operands take BinOp's float32/float64 cases (float16 is no real_domain type)") {
  struct Row {
    Scalar a, b, result;
  };
  const Row rows[] = {{S::F16, S::F16, S::F32}, {S::F16, S::F32, S::F32},
                      {S::F16, S::F64, S::F64}, {S::F16, S::I64, S::F64},
                      {S::F16, S::I8, S::F32},  {S::F16, S::I16, S::F32},
                      {S::F16, S::I32, S::F64}, {S::F16, S::Bool, S::F32},
                      {S::F16, S::C64, S::C64}, {S::F16, S::C128, S::C128}};
  for (const Row &r : rows) {
    CAPTURE(scalar_name(r.a));
    CAPTURE(scalar_name(r.b));
    CHECK(promote_arithmetic(r.a, r.b) == r.result);
    CHECK(promote_arithmetic(r.b, r.a) == r.result);
  }
  CHECK(binary_operator_signature(ast::Operator::TrueDiv, S::F16, S::F16)->result == S::F32);
  CHECK(unary_operator_signature(ast::Operator::Neg, S::F16)->result == S::F32);
  CHECK(compare_signature(S::F16, S::F16)->params[0] == S::F32);
  // Number.unify is numpy.promote_types: float16 survives with int8/uint8/bool
  Type out;
  auto s = [](Scalar x) { return Type::scalar_of(x); };
  REQUIRE(unify(s(S::F16), s(S::I8), out));
  CHECK(out == s(S::F16));
  REQUIRE(unify(s(S::F16), s(S::U16), out));
  CHECK(out == s(S::F32));
  REQUIRE(unify(s(S::F16), s(S::I32), out));
  CHECK(out == s(S::F64));
  REQUIRE(unify(s(S::F16), s(S::F32), out));
  CHECK(out == s(S::F32));
}

TEST_CASE("typing float16 expressions and cuda.fp16 calls") {
  CHECK(type_of("h[0]") == "float16");
  CHECK(type_of("h[0] + h[1]") == "float32");
  CHECK(type_of("h[0] * 2") == "float64");
  CHECK(type_of("-h[0]") == "float32");
  CHECK(type_of("abs(h[0])") == "float32");
  CHECK(type_of("round(h[0])") == "int64");
  CHECK(type_of("np.float16(f[0])") == "float16");
  CHECK(type_of("cuda.fp16.hadd(h[0], h[1])") == "float16");
  CHECK(type_of("cuda.fp16.hadd(f[0], f[1])") == "float16"); // unsafe conversions allowed
  CHECK(type_of("cuda.fp16.hfma(h[0], h[1], h[2])") == "float16");
  CHECK(type_of("cuda.fp16.hneg(h[0])") == "float16");
  CHECK(type_of("cuda.fp16.hmax(h[0], h[1])") == "float16");
  CHECK(type_of("cuda.fp16.hlt(h[0], h[1])") == "bool");
  CHECK(type_of("cuda.local.array(4, np.float16)") == "array(float16, 1d, C)");
  CHECK(type_of("cuda.shared.array((2, 3), np.float16)") == "array(float16, 2d, C)");
  CHECK(find_cuda_function("fp16.hpow") == nullptr); // not in this Numba
  CHECK(error_of("def k(h, f):\n    h[0] = cuda.fp16.hpow(h[0], h[1])\n") ==
        "2:12: unknown attribute 'cuda.fp16.hpow'");
  CHECK(error_of("def k(h, f):\n    h[0] = cuda.fp16.habs(h[0], h[1])\n") ==
        "2:12: function cuda.fp16.habs expects 1 argument, got 2");
  CHECK(error_of("def k(h, f):\n    h[0] = cuda.fp16.habs(h)\n") ==
        "2:27: function cuda.fp16.habs does not accept array(float16, 1d, A)");
  CHECK(error_of("def k(h, f):\n    h[0] = cuda.fp16.habs(1j)\n") ==
        "2:12: function cuda.fp16.habs does not accept complex numbers");
}
