// gpu/ptxas_workarounds.h: 16-bit negation and absolute value leave PTX in unsigned forms that
// ptxas sign-extends again; everything else passes through unchanged.
#include "gpu/ptxas_workarounds.h"

#include <doctest/doctest.h>

using simt::gpu::avoid_ptxas_miscompiles;

TEST_CASE("ptxas workarounds: neg.s16 becomes a subtraction from zero") {
  CHECK(avoid_ptxas_miscompiles("\tneg.s16 \t%rs4, %rs3;\n\tcvt.s64.s16 \t%rd21, %rs4;\n") ==
        "\tsub.u16 \t%rs4, 0, %rs3;\n\tcvt.s64.s16 \t%rd21, %rs4;\n");
}

TEST_CASE("ptxas workarounds: abs.s16 becomes shift, xor and subtract") {
  CHECK(avoid_ptxas_miscompiles("\tabs.s16 \t%rs2, %rs1;\n") ==
        "\t{ .reg .b16 %abs_sign; shr.s16 %abs_sign, %rs1, 15; xor.b16 %rs2, %rs1, %abs_sign; "
        "sub.u16 %rs2, %rs2, %abs_sign; }\n");
}

TEST_CASE("ptxas workarounds: other instructions are left alone") {
  const std::string ptx = "\tneg.s32 \t%r2, %r1;\n\tabs.s64 \t%rd2, %rd1;\n\tneg.f32 \t%f2, %f1;\n"
                          "\tadd.s16 \t%rs2, %rs1, 1;\n";
  CHECK(avoid_ptxas_miscompiles(ptx) == ptx);
}
