// codegen/math.h: every math intrinsic is a libdevice function of the same arity, on both float
// types, and fastmath's approximate forms are float32 functions of their own.
#include "codegen/math.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace simt;

namespace {

// Every math intrinsic (the kMath flag) of ir/intrinsics.def.
std::vector<ir::Intrinsic> math_intrinsics() {
  std::vector<ir::Intrinsic> out;
  for (int i = 0; i < ir::kIntrinsicCount; ++i)
    if (ir::intrinsic_info(ir::Intrinsic(i)).has(ir::kMath))
      out.push_back(ir::Intrinsic(i));
  return out;
}

} // namespace

TEST_CASE("math: every math intrinsic is libdevice's function of its name on each float type") {
  const std::vector<ir::Intrinsic> fns = math_intrinsics();
  REQUIRE(fns.size() > 30);
  for (ir::Intrinsic fn : fns) {
    const std::string name = ir::intrinsic_name(fn);
    CAPTURE(name);
    const ir::Libdevice f64 = codegen::math_libdevice(fn, Scalar::F64);
    const ir::Libdevice f32 = codegen::math_libdevice(fn, Scalar::F32);
    CHECK(std::string(ir::libdevice_name(f64)) == name);
    CHECK(std::string(ir::libdevice_name(f32)) == name + "f");
    CHECK(ir::libdevice_info(f64).inputs() == ir::intrinsic_info(fn).arity);
    CHECK(ir::libdevice_info(f32).inputs() == ir::intrinsic_info(fn).arity);
    CHECK(ir::libdevice_info(f64).result == ir::LibdeviceType::F64);
    CHECK(ir::libdevice_info(f32).result == ir::LibdeviceType::F32);
    // fastmath changes only float32 functions, and only to libdevice's fast_ ones
    CHECK(codegen::math_libdevice(fn, Scalar::F64, true) == f64);
    const std::string fast = ir::libdevice_name(codegen::math_libdevice(fn, Scalar::F32, true));
    CHECK((fast == name + "f" || fast == "fast_" + name + "f"));
  }
  CHECK(std::string(ir::libdevice_name(
            codegen::math_libdevice(ir::Intrinsic::Sin, Scalar::F32, true))) == "fast_sinf");
  CHECK(std::string(ir::libdevice_name(
            codegen::math_libdevice(ir::Intrinsic::Pow, Scalar::F32, true))) == "fast_powf");
  CHECK(std::string(ir::libdevice_name(
            codegen::math_libdevice(ir::Intrinsic::Sqrt, Scalar::F32, true))) == "sqrtf");
}
