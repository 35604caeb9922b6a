// NumPy's datetime64/timedelta64 units and the types that carry them.
#include "frontend/compile.h"
#include "ir/time_units.h"
#include "ir/types.h"

#include <doctest/doctest.h>

using namespace simt;

TEST_CASE("time units convert exactly from coarser to finer, not across the month/day divide") {
  CHECK(time_unit_factor("D", "h") == 24);
  CHECK(time_unit_factor("W", "s") == 604800);
  CHECK(time_unit_factor("Y", "M") == 12);
  CHECK(time_unit_factor("", "ns") == 1); // the generic unit converts to any
  CHECK(time_unit_factor("ms", "ms") == 1);
  CHECK_FALSE(time_unit_factor("h", "D")); // finer to coarser is not exact
  CHECK_FALSE(time_unit_factor("M", "D"));
  CHECK_FALSE(time_unit_factor("W", "as")); // overflows int64
  CHECK(common_time_unit("D", "h") == "h");
  CHECK(common_time_unit("us", "m") == "us");
  CHECK_FALSE(common_time_unit("M", "D"));
  CHECK(is_time_unit("ps"));
  CHECK_FALSE(is_time_unit("days"));
}

TEST_CASE("datetime64 and timedelta64 types are spelt and parsed as Numba spells them") {
  const Type days = Type::time_of(NominalClass::Kind::Datetime, "D");
  CHECK(days.str() == "datetime64[D]");
  CHECK(Type::time_of(NominalClass::Kind::Timedelta, "").str() == "timedelta64");
  std::vector<Type> args =
      parse_signature("(datetime64[D], timedelta64[ns][:, ::1], array(timedelta64, 1d, A))");
  CHECK(args[0] == days);
  CHECK(args[1].str() == "array(timedelta64[ns], 2d, C)");
  CHECK(args[1].element() == Type::time_of(NominalClass::Kind::Timedelta, "ns"));
  CHECK(args[2].str() == "array(timedelta64, 1d, A)");
  CHECK_FALSE(days == Type::time_of(NominalClass::Kind::Datetime, "h"));
  CHECK_THROWS(parse_signature("(datetime64[fortnight],)"));
}

TEST_CASE("times of one kind unify in their common unit") {
  Type out;
  CHECK(unify(Type::time_of(NominalClass::Kind::Timedelta, "D"),
              Type::time_of(NominalClass::Kind::Timedelta, "m"), out));
  CHECK(out.str() == "timedelta64[m]");
  CHECK_FALSE(unify(Type::time_of(NominalClass::Kind::Timedelta, "M"),
                    Type::time_of(NominalClass::Kind::Timedelta, "D"), out));
  CHECK_FALSE(unify(Type::time_of(NominalClass::Kind::Datetime, "D"),
                    Type::time_of(NominalClass::Kind::Timedelta, "D"), out));
  CHECK_FALSE(
      unify(Type::time_of(NominalClass::Kind::Datetime, "D"), Type::scalar_of(Scalar::I64), out));
}
