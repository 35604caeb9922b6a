#include "frontend/conversion.h"
#include "ir/fp8.h"
#include "ir/types.h"

#include <doctest/doctest.h>

using namespace simt;

TEST_CASE("Type::str spells types as Numba does") {
  CHECK(Type::scalar_of(Scalar::F32).str() == "float32");
  CHECK(Type::scalar_of(Scalar::Bool).str() == "bool");
  CHECK(Type::array_of(Scalar::I64, 2, 'C').str() == "array(int64, 2d, C)");
  CHECK(Type::tuple_of({Type::scalar_of(Scalar::I32), Type::scalar_of(Scalar::I32)}).str() ==
        "UniTuple(int32 x 2)");
  CHECK(Type::tuple_of({Type::scalar_of(Scalar::I64), Type::scalar_of(Scalar::F64)}).str() ==
        "Tuple(int64, float64)");
  CHECK(Type::none().str() == "none");
}

TEST_CASE("scalar names and sizes") {
  Scalar s;
  REQUIRE(parse_scalar_name("f4", s));
  CHECK(s == Scalar::F32);
  REQUIRE(parse_scalar_name("bool_", s));
  CHECK(s == Scalar::Bool);
  REQUIRE(parse_scalar_name("intp", s));
  CHECK(s == Scalar::I64);
  REQUIRE(parse_scalar_name("complex64", s));
  CHECK(s == Scalar::C64);
  REQUIRE(parse_scalar_name("c16", s));
  CHECK(s == Scalar::C128);
  CHECK(byte_size(Scalar::C64) == 8);
  CHECK(byte_size(Scalar::C128) == 16);
  CHECK(scalar_name(Scalar::C128) == "complex128");
  CHECK(Type::array_of(Scalar::C64, 1, 'C').str() == "array(complex64, 1d, C)");
  CHECK(is_complex(Scalar::C64));
  CHECK_FALSE(is_integer(Scalar::C64));
  CHECK_FALSE(is_float(Scalar::C128));
  CHECK(component_of(Scalar::C64) == Scalar::F32);
  CHECK(byte_size(Scalar::U16) == 2);
  CHECK(bit_width(Scalar::Bool) == 1);
  CHECK(is_signed(Scalar::I8));
  CHECK_FALSE(is_signed(Scalar::U64));
  CHECK(is_integer(Scalar::U8));
  CHECK_FALSE(is_integer(Scalar::Bool));
}

TEST_CASE("arithmetic promotion matches Numba's operator typing") {
  // checked against numba 0.56's typing context
  CHECK(promote_arithmetic(Scalar::I32, Scalar::I32) == Scalar::I64);
  CHECK(promote_arithmetic(Scalar::U8, Scalar::U8) == Scalar::U64);
  CHECK(promote_arithmetic(Scalar::I64, Scalar::U64) == Scalar::I64);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::F32) == Scalar::F32);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::F64) == Scalar::F64);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::I64) == Scalar::F64);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::I32) == Scalar::F64);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::I16) == Scalar::F32);
  CHECK(promote_arithmetic(Scalar::F32, Scalar::Bool) == Scalar::F32);
  CHECK(promote_arithmetic(Scalar::Bool, Scalar::Bool) == Scalar::I64);
}

TEST_CASE("complex promotion matches Numba's operator typing") {
  // BinOp's complex cases with typeconv's float32 -> complex64 and float64 -> complex128 (safe)
  struct Row {
    Scalar a, b, result;
  };
  using S = Scalar;
  const Row rows[] = {{S::C64, S::C64, S::C64},   {S::C64, S::C128, S::C128},
                      {S::F32, S::C64, S::C64},   {S::F64, S::C64, S::C128},
                      {S::F32, S::C128, S::C128}, {S::I16, S::C64, S::C64},
                      {S::I32, S::C64, S::C128},  {S::I64, S::C64, S::C128},
                      {S::Bool, S::C64, S::C64},  {S::U64, S::C128, S::C128}};
  for (const Row &r : rows) {
    CAPTURE(scalar_name(r.a));
    CAPTURE(scalar_name(r.b));
    CHECK(promote_arithmetic(r.a, r.b) == r.result);
    CHECK(promote_arithmetic(r.b, r.a) == r.result);
  }
  // no implicit conversion from a complex to a real
  CHECK(conversion(S::C64, S::F64) == Conversion::Never);
  CHECK(conversion(S::C128, S::I64) == Conversion::Never);
  CHECK(conversion(S::F32, S::C64) == Conversion::Safe);
  CHECK(conversion(S::C64, S::C128) == Conversion::Promote);
  CHECK(conversion(S::C128, S::C64) == Conversion::Unsafe);
  CHECK_FALSE(select_overload({S::C64}, {{S::F64, {S::F64}}}));
}

TEST_CASE("complex unification follows numpy.promote_types") {
  auto s = [](Scalar x) { return Type::scalar_of(x); };
  Type out;
  REQUIRE(unify(s(Scalar::F32), s(Scalar::C64), out));
  CHECK(out == s(Scalar::C64));
  REQUIRE(unify(s(Scalar::F64), s(Scalar::C64), out));
  CHECK(out == s(Scalar::C128));
  REQUIRE(unify(s(Scalar::I64), s(Scalar::C64), out));
  CHECK(out == s(Scalar::C128));
  REQUIRE(unify(s(Scalar::I8), s(Scalar::C64), out));
  CHECK(out == s(Scalar::C64));
}

TEST_CASE("unification follows numpy.promote_types") {
  auto s = [](Scalar x) { return Type::scalar_of(x); };
  Type out;
  REQUIRE(unify(s(Scalar::I64), s(Scalar::F64), out));
  CHECK(out == s(Scalar::F64));
  REQUIRE(unify(s(Scalar::I32), s(Scalar::F32), out));
  CHECK(out == s(Scalar::F64));
  REQUIRE(unify(s(Scalar::I8), s(Scalar::U8), out));
  CHECK(out == s(Scalar::I16));
  REQUIRE(unify(s(Scalar::Bool), s(Scalar::I32), out));
  CHECK(out == s(Scalar::I32));
  REQUIRE(unify(Type::array_of(Scalar::F32, 1, 'C'), Type::array_of(Scalar::F32, 1, 'F'), out));
  CHECK(out == Type::array_of(Scalar::F32, 1, 'A'));
  CHECK_FALSE(unify(s(Scalar::F32), Type::array_of(Scalar::F32, 1, 'C'), out));
}

TEST_CASE("conversion kinds") {
  CHECK(conversion(Scalar::I32, Scalar::I64) == Conversion::Promote);
  CHECK(conversion(Scalar::I64, Scalar::F64) == Conversion::Safe);
  CHECK(conversion(Scalar::F64, Scalar::I64) == Conversion::Unsafe);
  CHECK(conversion(Scalar::Bool, Scalar::I64) == Conversion::Safe);
  CHECK(conversion(Scalar::F32, Scalar::F32) == Conversion::Exact);
}

TEST_CASE("storage types are their class, held as an integer no integer rule applies to") {
  const Type e4m3 = ir::fp8_type_info(ir::Fp8Type::fp8_e4m3).type();
  CHECK(e4m3.str() == "fp8_e4m3");
  CHECK(e4m3.scalar == Scalar::U8);
  CHECK(ir::fp8_type_info(ir::Fp8Type::fp8x4_e8m0).type().scalar == Scalar::U32);
  CHECK(e4m3.has_no_operators());
  CHECK(e4m3 == Type::storage_of("fp8_e4m3", Scalar::U8));
  CHECK_FALSE(e4m3 == Type::storage_of("fp8_e5m2", Scalar::U8));
  CHECK_FALSE(e4m3 == Type::scalar_of(Scalar::U8));
  Type out;
  CHECK_FALSE(unify(e4m3, Type::scalar_of(Scalar::U8), out));
  REQUIRE(ir::fp8_type_of(e4m3));
  CHECK(*ir::fp8_type_of(e4m3) == ir::Fp8Type::fp8_e4m3);
  CHECK_FALSE(ir::fp8_type_of(Type::storage_of(ir::kBfloat16Raw, Scalar::U16)));
  CHECK(ir::fp8_info(*ir::find_fp8("cvt_e8m0_to_bf16raw")).result().str() == "bfloat16_raw");
}
