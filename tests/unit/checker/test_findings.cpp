// What the checkers report (checker/finding.h): findings kept once each with a count of their
// instances, in the order first found; and the values a write-after-write report prints
// (checker/finding.h: format_value).
#include "checker/finding.h"

#include "tests/unit/checker/bits.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace simt;
using checker::Finding;
using checker::Findings;
using checker::Severity;
using checker::Side;
using checker::Tool;

using checker::testing::bits_of;

namespace {

Side side(std::string action, std::string file, int line, int tid = 0) {
  Side out;
  out.action = std::move(action);
  out.tid.x = uint32_t(tid);
  out.where.file = std::move(file);
  out.where.line = line;
  return out;
}

// A write-after-write hazard between lines 10 and 12 of kernel.py.
Finding hazard(std::string subject = "on shared array `buf` (buf[3]) in block (0,0,0)") {
  Finding finding;
  finding.tool = Tool::Race;
  finding.severity = Severity::Error;
  finding.kind = "write-after-write hazard";
  finding.subject = std::move(subject);
  finding.sides = {side("write", "kernel.py", 10), side("write", "kernel.py", 12, 32)};
  finding.kernel = "scale";
  return finding;
}

} // namespace

TEST_CASE("findings: tools and severities have the names reports print") {
  CHECK(std::string(checker::tool_name(Tool::Race)) == "racecheck");
  CHECK(std::string(checker::tool_name(Tool::Init)) == "initcheck");
  CHECK(std::string(checker::tool_name(Tool::Sync)) == "synccheck");
  CHECK(std::string(checker::tool_name(Tool::Mem)) == "memcheck");
  CHECK(std::string(checker::severity_name(Severity::Error)) == "error");
  CHECK(std::string(checker::severity_name(Severity::Warning)) == "warning");
  CHECK(std::string(checker::severity_name(Severity::Info)) == "info");
}

TEST_CASE("findings: the instances of one hazard are kept once, with their count") {
  Findings findings;
  findings.add(hazard());
  Finding again = hazard();
  again.count = 3;
  findings.add(again);
  REQUIRE(findings.all().size() == 1);
  CHECK(findings.all()[0].count == 4);
}

TEST_CASE("findings: instances differing only in what a report's text says of them merge") {
  // The subject (another element, another block), the threads, the columns and the values are
  // not part of a finding's identity: the first instance's are kept.
  Findings findings;
  findings.add(hazard("on shared array `buf` (buf[3]) in block (0,0,0)"));
  Finding other = hazard("on shared array `buf` (buf[7]) in block (1,0,0)");
  other.sides[0].tid.x = 5;
  other.sides[0].ctaid.x = 1;
  other.sides[0].where.col = 9;
  other.sides[1].value = "2.0";
  findings.add(other);
  REQUIRE(findings.all().size() == 1);
  CHECK(findings.all()[0].count == 2);
  CHECK(findings.all()[0].subject == "on shared array `buf` (buf[3]) in block (0,0,0)");
  CHECK(findings.all()[0].sides[0].tid.x == 0);
  CHECK(findings.all()[0].sides[1].value.empty());
}

TEST_CASE("findings: distinct findings are kept apart, in the order first found") {
  Findings findings;
  findings.add(hazard()); // 0

  Finding tool = hazard();
  tool.tool = Tool::Init;
  findings.add(tool); // 1

  Finding severity = hazard();
  severity.severity = Severity::Warning;
  findings.add(severity); // 2

  Finding kind = hazard();
  kind.kind = "read-after-write hazard";
  findings.add(kind); // 3

  Finding kernel = hazard();
  kernel.kernel = "other";
  findings.add(kernel); // 4

  Finding action = hazard();
  action.sides[1].action = "atomic";
  findings.add(action); // 5

  Finding line = hazard();
  line.sides[1].where.line = 13;
  findings.add(line); // 6

  Finding file = hazard();
  file.sides[0].where.file = "other.py";
  findings.add(file); // 7

  Finding one_side = hazard();
  one_side.sides.pop_back();
  findings.add(one_side); // 8

  findings.add(hazard()); // merges into 0
  findings.add(line);     // into 6
  findings.add(one_side); // into 8
  findings.add(one_side); // into 8
  const std::vector<Finding> &all = findings.all();
  REQUIRE(all.size() == 9);
  CHECK(all[0].count == 2);
  CHECK(all[1].tool == Tool::Init);
  CHECK(all[2].severity == Severity::Warning);
  CHECK(all[3].kind == "read-after-write hazard");
  CHECK(all[4].kernel == "other");
  CHECK(all[5].sides[1].action == "atomic");
  CHECK(all[6].sides[1].where.line == 13);
  CHECK(all[6].count == 2);
  CHECK(all[7].sides[0].where.file == "other.py");
  CHECK(all[8].sides.size() == 1);
  CHECK(all[8].count == 3);
  for (size_t i = 1; i < 8; ++i)
    CHECK(all[i].count == (i == 6 ? 2 : 1));
}

TEST_CASE("findings: clear forgets every finding") {
  Findings findings;
  findings.add(hazard());
  findings.add(hazard());
  findings.clear();
  CHECK(findings.all().empty());
  findings.add(hazard());
  REQUIRE(findings.all().size() == 1);
  CHECK(findings.all()[0].count == 1);
}

TEST_CASE("format_value: floats print as NumPy prints them") {
  CHECK(checker::format_value(bits_of(1.5f), Scalar::F32) == "1.5");
  CHECK(checker::format_value(bits_of(0.1f), Scalar::F32) == "0.1"); // float32's shortest
  CHECK(checker::format_value(bits_of(2.0f), Scalar::F32) == "2.0");
  CHECK(checker::format_value(bits_of(2.0), Scalar::F64) == "2.0");
  CHECK(checker::format_value(bits_of(-0.25), Scalar::F64) == "-0.25");
  CHECK(checker::format_value(bits_of(-0.0), Scalar::F64) == "-0.0");
  CHECK(checker::format_value(bits_of(1e20), Scalar::F64) == "1e+20");
  CHECK(checker::format_value(bits_of(std::numeric_limits<double>::infinity()), Scalar::F64) ==
        "inf");
  CHECK(checker::format_value(bits_of(std::numeric_limits<float>::quiet_NaN()), Scalar::F32) ==
        "nan");
}

TEST_CASE("format_value: integers print signed or unsigned by their dtype") {
  CHECK(checker::format_value(uint32_t(-3), Scalar::I32) == "-3"); // zero-extended bits
  CHECK(checker::format_value(uint8_t(-1), Scalar::I8) == "-1");
  CHECK(checker::format_value(uint16_t(-300), Scalar::I16) == "-300");
  CHECK(checker::format_value(uint64_t(-5), Scalar::I64) == "-5");
  CHECK(checker::format_value(7, Scalar::I32) == "7");
  CHECK(checker::format_value(255, Scalar::U8) == "255");
  CHECK(checker::format_value(uint64_t(-1), Scalar::U64) == "18446744073709551615");
}

TEST_CASE("format_value: booleans print as Python's") {
  CHECK(checker::format_value(1, Scalar::Bool) == "True");
  CHECK(checker::format_value(0, Scalar::Bool) == "False");
}

// NumPy prints 100000.0, 0.0001 and 1000000000000000.0 in fixed notation: it goes scientific
// only from 1e16 up and below 1e-4 (the shortest notation would give "1e+05").
TEST_CASE("format_value: round floats of six digits and more print as NumPy prints them") {
  CHECK(checker::format_value(bits_of(100000.0), Scalar::F64) == "100000.0");
  CHECK(checker::format_value(bits_of(100000.0f), Scalar::F32) == "100000.0");
  CHECK(checker::format_value(bits_of(0.0001), Scalar::F64) == "0.0001");
  CHECK(checker::format_value(bits_of(1e15), Scalar::F64) == "1000000000000000.0");
}
