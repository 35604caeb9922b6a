#include "sim/print_format.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace simt::sim;

TEST_CASE("print items use Numba's CUDA printf formats") {
  CHECK(format_int(-42) == "-42");
  CHECK(format_int(std::numeric_limits<int64_t>::min()) == "-9223372036854775808");
  CHECK(format_uint(std::numeric_limits<uint64_t>::max()) == "18446744073709551615");
  CHECK(format_float(1.5) == "1.500000");
  CHECK(format_float(-0.1) == "-0.100000");
  CHECK(format_float(1e-9) == "0.000000");
  CHECK(format_float(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(format_float(NAN).find("nan") != std::string::npos);
  CHECK(format_float(1e300).size() == 301 + 7);
}

TEST_CASE("print items are separated by single spaces, even around empty strings") {
  PrintLine line;
  line.append("a");
  line.append("");
  line.append("b");
  CHECK(line.text() == "a  b");
  PrintLine first_empty;
  first_empty.append("");
  first_empty.append("x");
  CHECK(first_empty.text() == " x");
}
