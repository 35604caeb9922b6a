// The one table of libdevice functions (ir/libdevice.def) and what is derived from it.
#include "ir/libdevice.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace simt;
using namespace simt::ir;

TEST_CASE("the table holds Numba's 317 libdevice functions, each found by its name") {
  CHECK(kLibdeviceCount == 317);
  std::set<std::string> names;
  for (int i = 0; i < kLibdeviceCount; ++i) {
    CAPTURE(libdevice_name(Libdevice(i)));
    CHECK(names.insert(libdevice_name(Libdevice(i))).second);
    CHECK(find_libdevice(libdevice_name(Libdevice(i))) == Libdevice(i));
    CHECK(libdevice_info(Libdevice(i)).param_count > 0);
  }
  CHECK(find_libdevice("sincos") == Libdevice::sincos);
  CHECK_FALSE(find_libdevice("__nv_sincos"));
  CHECK_FALSE(find_libdevice(""));
}

TEST_CASE("parameters and results as Numba types a call") {
  const LibdeviceInfo &remquo = libdevice_info(Libdevice::remquo);
  REQUIRE(remquo.param_count == 3);
  CHECK(remquo.inputs() == 2);
  CHECK(remquo.params[2].output);
  CHECK(remquo.params[2].type == LibdeviceType::I32);
  CHECK(libdevice_result_type(Libdevice::remquo).str() == "Tuple(float64, int32)");
  CHECK(libdevice_result_type(Libdevice::sincosf).str() == "UniTuple(float32 x 2)");
  CHECK(libdevice_result_type(Libdevice::sad) == Type::scalar_of(Scalar::I32));
  CHECK(libdevice_result_type(Libdevice::float2half_rn) == Type::scalar_of(Scalar::I16));
  CHECK(libdevice_signature(Libdevice::jnf) == "libdevice.jnf(n: int32, x: float32) -> float32");
  CHECK(libdevice_signature(Libdevice::frexp) ==
        "libdevice.frexp(x: float64) -> Tuple(float64, int32)");
}
