#include "frontend/compile.h"

#include <doctest/doctest.h>

using namespace simt;

TEST_CASE("parse_signature reads Numba's string signatures") {
  Type ret;
  auto args = parse_signature("void(float32[:], int32)", &ret);
  REQUIRE(args.size() == 2);
  CHECK(args[0] == Type::array_of(Scalar::F32, 1, 'A'));
  CHECK(args[1] == Type::scalar_of(Scalar::I32));
  CHECK(ret.is_none());

  args = parse_signature("(float32[::1], float32[:, :])");
  REQUIRE(args.size() == 2);
  CHECK(args[0] == Type::array_of(Scalar::F32, 1, 'C'));
  CHECK(args[1] == Type::array_of(Scalar::F32, 2, 'A'));

  args = parse_signature("float64(float64, float64)", &ret);
  CHECK(args.size() == 2);
  CHECK(ret == Type::scalar_of(Scalar::F64));

  args = parse_signature("(int8[:, ::1], uint8[::1, :], float64[:, :, ::1],)");
  CHECK(args[0] == Type::array_of(Scalar::I8, 2, 'C'));
  CHECK(args[1] == Type::array_of(Scalar::U8, 2, 'F'));
  CHECK(args[2] == Type::array_of(Scalar::F64, 3, 'C'));
}

TEST_CASE("parse_signature reads Numba type reprs and dtype names") {
  auto args =
      parse_signature("(array(float32, 1d, C), array(int64, 2d, A), boolean, bool_, uint8)");
  REQUIRE(args.size() == 5);
  CHECK(args[0] == Type::array_of(Scalar::F32, 1, 'C'));
  CHECK(args[1] == Type::array_of(Scalar::I64, 2, 'A'));
  CHECK(args[2] == Type::scalar_of(Scalar::Bool));
  CHECK(args[3] == Type::scalar_of(Scalar::Bool));
  CHECK(args[4] == Type::scalar_of(Scalar::U8));
  CHECK(parse_signature("()").empty());
}

TEST_CASE("parse_signature rejects bad signatures") {
  CHECK_THROWS_AS(parse_signature("void(floot32)"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("void(float32"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("(float32[:, ::2])"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("(void)"), std::invalid_argument);
  try {
    parse_signature("void(int32, floot32)");
  } catch (const std::invalid_argument &e) {
    CHECK(std::string(e.what()).find("floot32") != std::string::npos);
  }
}

TEST_CASE("parse_signature reads tuple types as Numba spells and prints them") {
  Type i64 = Type::scalar_of(Scalar::I64), f64 = Type::scalar_of(Scalar::F64);
  Type pair = Type::tuple_of({i64, i64});
  auto args = parse_signature("void(float64[:], UniTuple(int64, 2), UniTuple(int64 x 2))");
  REQUIRE(args.size() == 3);
  CHECK(args[1] == pair);
  CHECK(args[2] == pair);
  args = parse_signature("(Tuple((int64, float64)), Tuple([int64, float64]), Tuple(int64, "
                         "float64), Tuple(), Tuple(()))");
  REQUIRE(args.size() == 5);
  for (int i = 0; i < 3; ++i)
    CHECK(args[i] == Type::tuple_of({i64, f64}));
  CHECK(args[3] == Type::tuple_of({}));
  CHECK(args[4] == Type::tuple_of({}));
  args = parse_signature("(Tuple(int64, UniTuple(float32 x 3)), UniTuple(array(float64, 1d, A) "
                         "x 2), UniTuple(UniTuple(int64, 2), 2))");
  REQUIRE(args.size() == 3);
  CHECK(args[0].str() == "Tuple(int64, UniTuple(float32 x 3))");
  CHECK(args[1].str() == "UniTuple(array(float64, 1d, A) x 2)");
  CHECK(args[2] == Type::tuple_of({pair, pair}));
  CHECK(parse_signature("(Record(x[type=int32;offset=0],y[type=float64;offset=8];16;True),)")[0]
            .is_record());
}

TEST_CASE("parse_signature rejects bad tuple types") {
  CHECK_THROWS_AS(parse_signature("(UniTuple(int64),)"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("(UniTuple(int64, two),)"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("(Tuple((int64, float64),)"), std::invalid_argument);
  CHECK_THROWS_AS(parse_signature("(Tuple(int64; float64),)"), std::invalid_argument);
}

TEST_CASE("read-only arrays: spelt as Numba spells them, unified and converted as Numba does") {
  Type readonly = Type::array_of(Scalar::F64, 1, 'C');
  readonly.readonly = true;
  CHECK(readonly.str() == "readonly array(float64, 1d, C)");
  CHECK(parse_signature("(readonly array(float64, 1d, C),)")[0] == readonly);
  CHECK(parse_signature("(unaligned readonly array(float64, 1d, C),)")[0] == readonly);
  CHECK(parse_signature("(array(float64, 1d, C, readonly=True),)")[0] == readonly);
  CHECK(parse_signature("(float64[::1],)")[0] != readonly);
  CHECK(parse_signature("(readonly array(float64, 1d, C),)")[0].view_of(1, 'A').readonly);

  Type unified;
  REQUIRE(unify(readonly, Type::array_of(Scalar::F64, 1, 'C'), unified));
  CHECK(unified == readonly); // readonly when either is, layout kept when both share it
  REQUIRE(unify(readonly, Type::array_of(Scalar::F64, 1, 'F'), unified));
  CHECK(unified.str() == "readonly array(float64, 1d, A)");
}
