// bfloat16 (numba-cuda's numba.cuda.bf16): the scalar's name and facts, its rounding, the casting
// and promotion rules numba-cuda gives it, the bf16 function table, and the typer's results for
// bfloat16 expressions and numba.cuda.bf16 calls.
#include "frontend/builtins.h"
#include "frontend/compile.h"
#include "frontend/conversion.h"
#include "ir/bf16.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>

using namespace simt;

namespace {

using S = Scalar;

ir::Module compile(const std::string &text, const std::string &signature) {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda").module("np", "numpy").module("math", "math");
  names->module("bf16", "numba.cuda.bf16");
  GlobalValue bfloat16;
  bfloat16.kind = GlobalValue::Kind::Dtype;
  bfloat16.scalar = S::BF16;
  names->names["bfloat16"] = bfloat16;
  return test::compile_text(text, signature, names);
}

const char *const kSignature = "(__nv_bfloat16[:], float32[:], int8[:], int64[:])";

// The type of `r = EXPR` in a kernel taking b (bfloat16[:]), f (float32[:]), c (int8[:]) and
// n (int64[:]).
std::string type_of(const std::string &expr) {
  auto module = compile("def k(b, f, c, n):\n    r = " + expr + "\n", kSignature);
  return test::slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &body) {
  return test::error_text([&] { compile("def k(b, f, c, n):\n" + body, kSignature); });
}

} // namespace

TEST_CASE("bfloat16 is a 2-byte number named as numba-cuda names it") {
  Scalar s;
  for (const char *name : {"__nv_bfloat16", "nv_bfloat16", "bfloat16"}) {
    CAPTURE(name);
    REQUIRE(parse_scalar_name(name, s));
    CHECK(s == S::BF16);
  }
  CHECK(scalar_name(S::BF16) == "__nv_bfloat16");
  CHECK(static_cast<int>(S::BF16) == 14); // the last dtype code: the codes before it stay
  CHECK(byte_size(S::BF16) == 2);
  CHECK(bit_width(S::BF16) == 16);
  CHECK(is_signed(S::BF16));
  CHECK(is_real(S::BF16));
  CHECK_FALSE(is_float(S::BF16)); // numba-cuda's Bfloat16 is a Number, not a Float
  CHECK_FALSE(is_integer(S::BF16));
  CHECK(Type::array_of(S::BF16, 1, 'C').str() == "array(__nv_bfloat16, 1d, C)");
  CHECK(parse_signature("(bfloat16[::1], __nv_bfloat16)")[0] == Type::array_of(S::BF16, 1, 'C'));
  CHECK(parse_signature("(bfloat16[::1], __nv_bfloat16)")[1] == Type::scalar_of(S::BF16));
}

TEST_CASE("bfloat16 rounding and bit patterns") {
  CHECK(round_to_bfloat16(1.0) == 1.0);
  CHECK(round_to_bfloat16(0.1) == 0.10009765625);
  CHECK(round_to_bfloat16(1 + 0x1p-8) == 1);                    // tie: to even
  CHECK(round_to_bfloat16(1 + 3 * 0x1p-8) == 1 + 0x1p-6);       // tie: to even
  CHECK(round_to_bfloat16(1 + 0x1p-8 + 0x1p-40) == 1 + 0x1p-7); // above the tie
  CHECK(round_to_bfloat16(261 + 0x1p-30) == 262);               // not rounded twice
  CHECK(round_to_bfloat16(0x1.fep127) == 0x1.fep127);           // the largest
  CHECK(std::isinf(round_to_bfloat16(0x1.ffp127)));             // its tie with 2**128: to even
  CHECK(round_to_bfloat16(0x1.fefp127) == 0x1.fep127);
  CHECK(round_to_bfloat16(0x1p-133) == 0x1p-133); // the least subnormal
  CHECK(round_to_bfloat16(0x1p-134) == 0);        // tie with zero: to even
  CHECK(round_to_bfloat16(0x1.8p-134) == 0x1p-133);
  CHECK(std::signbit(round_to_bfloat16(-1e-60)));
  CHECK(std::isnan(round_to_bfloat16(NAN)));
  CHECK(bfloat16_bits(1.0) == 0x3f80);
  CHECK(bfloat16_bits(-2.0) == 0xc000);
  CHECK(bfloat16_bits(1.5) == 0x3fc0);
  CHECK(bfloat16_bits(0x1.fep127) == 0x7f7f);
  CHECK(bfloat16_bits(0x1p-133) == 0x0001);
  CHECK(bfloat16_bits(-0.0) == 0x8000);
  CHECK(bfloat16_bits(INFINITY) == 0x7f80);
  CHECK(bfloat16_bits(-INFINITY) == 0xff80);
  CHECK(bfloat16_bits(NAN) == 0x7fff); // the GPU's canonical NaN
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double value = bfloat16_value(uint16_t(bits));
    if (std::isnan(value))
      continue;
    CAPTURE(bits);
    REQUIRE(bfloat16_bits(value) == bits);
    REQUIRE(round_to_bfloat16(value) == value);
  }
}

TEST_CASE("bfloat16 casting rules are numba-cuda's Bfloat16.can_convert_from/to") {
  CHECK(conversion(S::I8, S::BF16) == Conversion::Safe);
  CHECK(conversion(S::U8, S::BF16) == Conversion::Safe);
  CHECK(conversion(S::Bool, S::BF16) == Conversion::Safe);
  CHECK(conversion(S::I16, S::BF16) == Conversion::Unsafe);
  CHECK(conversion(S::I64, S::BF16) == Conversion::Unsafe);
  CHECK(conversion(S::F16, S::BF16) == Conversion::Unsafe);
  CHECK(conversion(S::F32, S::BF16) == Conversion::Unsafe);
  CHECK(conversion(S::F64, S::BF16) == Conversion::Unsafe);
  CHECK(conversion(S::BF16, S::F32) == Conversion::Safe);
  CHECK(conversion(S::BF16, S::F64) == Conversion::Safe);
  CHECK(conversion(S::BF16, S::F16) == Conversion::Unsafe);
  CHECK(conversion(S::BF16, S::I64) == Conversion::Unsafe);
  CHECK(conversion(S::C64, S::BF16) == Conversion::Never);
  // and nothing else changed: the rules closed through bfloat16 give the old conversions
  CHECK(conversion(S::I8, S::F32) == Conversion::Safe);
  CHECK(conversion(S::I8, S::I16) == Conversion::Promote);
  CHECK(conversion(S::F16, S::F32) == Conversion::Promote);
  CHECK(conversion(S::I32, S::F32) == Conversion::Unsafe);
}

TEST_CASE("bfloat16 operators: + - * / of bfloat16s stay bfloat16, the rest go to float32") {
  struct Row {
    Scalar a, b, result;
  };
  const Row rows[] = {
      {S::BF16, S::BF16, S::BF16}, {S::BF16, S::I8, S::BF16}, {S::BF16, S::U8, S::BF16},
      {S::BF16, S::Bool, S::BF16}, {S::BF16, S::F32, S::F32}, {S::BF16, S::F64, S::F64},
      {S::BF16, S::F16, S::F32},   {S::BF16, S::I16, S::F32}, {S::BF16, S::I32, S::F64},
      {S::BF16, S::I64, S::F64},   {S::BF16, S::C64, S::C64}};
  for (const Row &r : rows) {
    CAPTURE(scalar_name(r.a));
    CAPTURE(scalar_name(r.b));
    CHECK(promote_arithmetic(r.a, r.b) == r.result);
    CHECK(promote_arithmetic(r.b, r.a) == r.result);
  }
  // the bfloat16 cases come after Numba's: ties still go to those
  CHECK(promote_arithmetic(S::Bool, S::Bool) == S::I64);
  CHECK(promote_arithmetic(S::I8, S::U8) == S::I64);
  CHECK(binary_operator_signature(ast::Operator::TrueDiv, S::BF16, S::BF16)->result == S::BF16);
  CHECK(binary_operator_signature(ast::Operator::FloorDiv, S::BF16, S::BF16)->result == S::F32);
  CHECK(binary_operator_signature(ast::Operator::Pow, S::BF16, S::BF16)->result == S::F32);
  CHECK(unary_operator_signature(ast::Operator::Neg, S::BF16)->result == S::BF16);
  CHECK_FALSE(unary_operator_signature(ast::Operator::Invert, S::BF16));
  CHECK(compare_signature(S::BF16, S::BF16)->params[0] == S::F32); // exact
  Type out;
  auto s = [](Scalar x) { return Type::scalar_of(x); };
  REQUIRE(unify(s(S::BF16), s(S::I8), out));
  CHECK(out == s(S::BF16));
  REQUIRE(unify(s(S::BF16), s(S::F32), out));
  CHECK(out == s(S::F32));
  REQUIRE(unify(s(S::BF16), s(S::I64), out));
  CHECK(out == s(S::F64));
}

TEST_CASE("the bf16 function table: numba-cuda's names and aliases, one entry each") {
  std::set<std::string> names;
  for (int i = 0; i < ir::kBf16Count; ++i) {
    const ir::Bf16Info &info = ir::bf16_info(ir::Bf16Fn(i));
    CAPTURE(info.name);
    CHECK(names.insert(info.name).second);
    if (*info.alias)
      CHECK(names.insert(info.alias).second);
    REQUIRE(ir::find_bf16(info.name) == ir::Bf16Fn(i));
    CHECK((info.result == S::BF16 || info.param == S::BF16)); // every one takes or makes one
    CHECK((info.arity >= 1 && info.arity <= 3));
  }
  CHECK(ir::kBf16Count == 111);
  CHECK(ir::find_bf16("float2bfloat16_rz") == ir::Bf16Fn::float32_to_bfloat16_rz);
  CHECK(ir::find_bf16("bfloat162ll_ru") == ir::Bf16Fn::bfloat16_to_int64_ru);
  CHECK(ir::find_bf16("short_as_bfloat16") == ir::Bf16Fn::int16_as_bfloat16);
  CHECK_FALSE(ir::find_bf16(""));
  CHECK_FALSE(ir::find_bf16("hfoo"));
  CHECK(ir::find_bf16_math("sqrt") == ir::Bf16Fn::hsqrt);
  CHECK(ir::find_bf16_math("exp2") == ir::Bf16Fn::hexp2);
  CHECK_FALSE(ir::find_bf16_math("log2")); // numba-cuda overloads no math.log2
  CHECK(ir::bf16_signature(ir::Bf16Fn::hfma) ==
        "bf16.hfma(a: __nv_bfloat16, b: __nv_bfloat16, c: __nv_bfloat16) -> __nv_bfloat16");
  CHECK(ir::bf16_signature(ir::Bf16Fn::bfloat16_to_int64_rd) ==
        "bf16.bfloat16_to_int64_rd(a: __nv_bfloat16) -> int64");
}

TEST_CASE("typing bfloat16 expressions and numba.cuda.bf16 calls") {
  CHECK(type_of("b[0]") == "__nv_bfloat16");
  CHECK(type_of("bfloat16(f[0])") == "__nv_bfloat16");
  CHECK(type_of("bf16.bfloat16(1.5)") == "__nv_bfloat16");
  CHECK(type_of("cuda.bf16.bfloat16(n[0])") == "__nv_bfloat16");
  CHECK(type_of("b[0] + b[1]") == "__nv_bfloat16");
  CHECK(type_of("b[0] / b[1]") == "__nv_bfloat16");
  CHECK(type_of("b[0] * c[0]") == "__nv_bfloat16");
  CHECK(type_of("b[0] * f[0]") == "float32");
  CHECK(type_of("b[0] + 1") == "float64");
  CHECK(type_of("b[0] // b[1]") == "float32");
  CHECK(type_of("-b[0]") == "__nv_bfloat16");
  CHECK(type_of("b[0] < b[1]") == "bool");
  CHECK(type_of("abs(b[0])") == "float32");
  CHECK(type_of("max(b[0], b[1])") == "__nv_bfloat16");
  CHECK(type_of("round(b[0])") == "int64");
  CHECK(type_of("float(b[0])") == "float64");
  CHECK(type_of("np.float32(b[0])") == "float32");
  CHECK(type_of("math.sqrt(b[0])") == "__nv_bfloat16"); // numba-cuda's overload: hsqrt
  CHECK(type_of("math.exp(b[0])") == "__nv_bfloat16");
  CHECK(type_of("math.log2(b[0])") == "float32"); // not overloaded: float32's
  CHECK(type_of("math.sqrt(f[0])") == "float32");
  CHECK(type_of("bf16.hadd(b[0], b[1])") == "__nv_bfloat16");
  CHECK(type_of("bf16.hadd(f[0], 2.0)") == "__nv_bfloat16"); // unsafe conversions allowed
  CHECK(type_of("bf16.hfma_relu(b[0], b[1], b[2])") == "__nv_bfloat16");
  CHECK(type_of("bf16.hltu(b[0], b[1])") == "bool");
  CHECK(type_of("bf16.hisinf(b[0])") == "int32");
  CHECK(type_of("bf16.float32_to_bfloat16_rd(f[0])") == "__nv_bfloat16");
  CHECK(type_of("bf16.float2bfloat16_rd(f[0])") == "__nv_bfloat16");
  CHECK(type_of("bf16.bfloat16_to_uint64_ru(b[0])") == "uint64");
  CHECK(type_of("bf16.bfloat162char_rz(b[0])") == "int8");
  CHECK(type_of("bf16.bfloat16_as_int16(b[0])") == "int16");
  CHECK(type_of("bf16.uint16_as_bfloat16(n[0])") == "__nv_bfloat16");
  CHECK(type_of("cuda.bf16.hexp10(b[0])") == "__nv_bfloat16");
  CHECK(type_of("cuda.local.array(4, bfloat16)") == "array(__nv_bfloat16, 1d, C)");
  CHECK(type_of("cuda.shared.array((2, 3), bfloat16)") == "array(__nv_bfloat16, 2d, C)");
  CHECK(error_of("    b[0] = bf16.hdiv2(b[0], b[1])\n") ==
        "2:12: module 'numba.cuda.bf16' has no attribute 'hdiv2'");
  CHECK(error_of("    b[0] = bf16.habs(b[0], b[1])\n") ==
        "2:12: function bf16.habs expects 1 argument, got 2 (signature bf16.habs(a: "
        "__nv_bfloat16) -> __nv_bfloat16)");
  CHECK(error_of("    b[0] = bf16.habs(1j)\n") ==
        "2:22: function bf16.habs does not accept complex128 (signature bf16.habs(a: "
        "__nv_bfloat16) -> __nv_bfloat16)");
  CHECK(error_of("    b[0] = ~b[0]\n") == "2:12: bad operand type for unary ~: __nv_bfloat16");
  CHECK(error_of("    cuda.atomic.add(b, 0, b[0])\n").find("bfloat16") != std::string::npos);
  CHECK(error_of("    r = np.bfloat16(1.0)\n") == "2:9: unknown attribute 'numpy.bfloat16'");
}

TEST_CASE("bfloat16 constants fold as the conversions round them") {
  auto folded = [](const std::string &expr) {
    auto module = compile("def k(b, f, c, n):\n    b[0] = " + expr + "\n", kSignature);
    std::string text = ir::dump(module);
    return text;
  };
  // bfloat16(0.1) folds to the nearest bfloat16; to an int it truncates, as cuda_bf16.h does
  CHECK(folded("bfloat16(0.1)").find("__nv_bfloat16(0.10009765625)") != std::string::npos);
  CHECK(folded("bfloat16(1.00390625)").find("__nv_bfloat16(1.0)") != std::string::npos);
  CHECK(folded("bfloat16(2 ** 62 + 2 ** 54 + 1)").find("__nv_bfloat16(4.6477148154463519e+18)") !=
        std::string::npos);
  CHECK(folded("bfloat16(np.int8(np.int32(bfloat16(2.75))))").find("__nv_bfloat16(2.0)") !=
        std::string::npos);
}
