// Record fields that are NumPy sub-arrays (Numba's NestedArray), in signatures.
#include "frontend/compile.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace simt;

TEST_CASE("nested array record fields parse and print as Numba spells them") {
  std::string record = "Record(a[type=float64;offset=0],h[type=nestedarray(float32, (3, 2));"
                       "offset=8],d[type=nestedarray(uint8, (5,));offset=32];40;False)";
  std::vector<Type> args = parse_signature("(array(" + record + ", 1d, C),)");
  REQUIRE(args.size() == 1);
  const Record &r = *args[0].record;
  CHECK(r.fields[0].shape.empty());
  CHECK(r.fields[1].shape == std::vector<int64_t>{3, 2});
  CHECK(r.fields[1].size() == 24);
  CHECK(r.fields[2].shape == std::vector<int64_t>{5});
  CHECK(r.str() == record);
}

TEST_CASE("a nested array field must lie inside its record") {
  CHECK_THROWS_WITH_AS(
      parse_signature("(array(Record(h[type=nestedarray(float32, (3,));offset=0];8;False), 1d, "
                      "C),)"),
      doctest::Contains("field 'h' lies outside the record"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(
      parse_signature("(array(Record(h[type=nestedarray(float32, ());offset=0];8;False), 1d, "
                      "C),)"),
      doctest::Contains("expected a nested array shape"), std::invalid_argument);
}

TEST_CASE("nested record fields parse, print and size as Numba spells them") {
  const std::string inner = "Record(x[type=float32;offset=0],y[type=float32;offset=4];8;False)";
  const std::string outer = "Record(id[type=int64;offset=0],pos[type=" + inner +
                            ";offset=8],h[type=nestedarray(int16, (2,));offset=16];24;True)";
  std::vector<Type> args = parse_signature("(array(" + outer + ", 1d, C),)");
  const Record &record = *args.at(0).record;
  REQUIRE(record.fields.size() == 3);
  REQUIRE(record.fields[1].record != nullptr);
  CHECK(record.fields[1].record->str() == inner);
  CHECK(record.fields[1].size() == 8);
  CHECK(record.fields[1].type_str() == inner);
  CHECK(record.str() == outer);
  CHECK_THROWS(
      parse_signature("(array(Record(p[type=" + inner + ";offset=20];24;False), 1d, C),)"));
}

TEST_CASE("fixed-length strings are records of their characters, spelt as Numba spells them") {
  std::vector<Type> args = parse_signature(
      "(array([unichr x 12], 1d, C), array(Record(n[type=int64;offset=0],s[type=[char x 3];"
      "offset=8];16;False), 1d, C))");
  const Record &unicode = *args.at(0).record;
  CHECK(unicode.chars == Record::Chars::Unicode);
  CHECK(unicode.size == 48);
  CHECK(unicode.char_count() == 12);
  CHECK(args[0].str() == "array([unichr x 12], 1d, C)");
  const RecordField &s = args[1].record->fields.at(1);
  REQUIRE(s.record != nullptr);
  CHECK(s.record->chars == Record::Chars::Bytes);
  CHECK(s.size() == 3);
  CHECK(*Record::chars_of(Record::Chars::Bytes, 3) == *s.record);
  CHECK_THROWS(parse_signature("(array([wchar x 2], 1d, C),)"));
}

TEST_CASE("record fields that are arrays of records or strings parse as Numba spells them") {
  const std::string point = "Record(x[type=float32;offset=0];4;False)";
  const std::string outer = "Record(xy[type=nestedarray(" + point +
                            ", (2, 3));offset=0],s[type=nestedarray([char x 2], (2,));offset=24]" +
                            ";28;False)";
  std::vector<Type> args = parse_signature("(array(" + outer + ", 1d, C),)");
  const RecordField &xy = args.at(0).record->fields.at(0);
  REQUIRE(xy.record != nullptr);
  CHECK(xy.shape == std::vector<int64_t>{2, 3});
  CHECK(xy.size() == 24);
  CHECK(args[0].record->fields.at(1).size() == 4);
  CHECK(args[0].record->str() == outer);
}
