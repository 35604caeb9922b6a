// Typing of the warp intrinsics (cuda.shfl_sync, the votes, match, syncwarp, activemask,
// lanemask_lt), checked against what Numba's CUDA typing context answers.
#include "frontend/compile.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

using test::slot_type;

ir::Module compile(const std::string &text, const std::string &signature) {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda");
  return test::compile_text(text, signature, names);
}

// The type of `r = EXPR` in a kernel taking a scalar a of type `a` and an int32 array x.
std::string type_of(const std::string &expr, const std::string &a) {
  auto module = compile("def k(a, x):\n    r = " + expr + "\n", "(" + a + ", int32[:])");
  return slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

} // namespace

TEST_CASE("warp intrinsics type as Numba's cudadecl.py and intrinsic_wrapper.py") {
  struct Case {
    const char *expr, *a, *type;
  };
  // The shuffled value converts to the first best of int32, int64, float32, float64 (Numba's
  // typing context picks float64 for uint64 and int64 for uint32).
  const Case cases[] = {
      {"cuda.shfl_sync(0xffffffff, a, 0)", "int32", "int32"},
      {"cuda.shfl_sync(0xffffffff, a, 0)", "int8", "int32"},
      {"cuda.shfl_sync(0xffffffff, a, 0)", "bool", "int32"},
      {"cuda.shfl_sync(0xffffffff, a, 0)", "uint32", "int64"},
      {"cuda.shfl_sync(0xffffffff, a, 0)", "int64", "int64"},
      {"cuda.shfl_sync(0xffffffff, a, 0)", "uint64", "float64"},
      {"cuda.shfl_up_sync(0xffffffff, a, 1)", "float32", "float32"},
      {"cuda.shfl_down_sync(0xffffffff, a, 1)", "float64", "float64"},
      {"cuda.shfl_xor_sync(0xffffffff, a, 1)", "int32", "int32"},
      {"cuda.all_sync(0xffffffff, a)", "int32", "bool"},
      {"cuda.any_sync(0xffffffff, a > 0)", "float64", "bool"},
      {"cuda.eq_sync(0xffffffff, a)", "bool", "bool"},
      {"cuda.ballot_sync(0xffffffff, a)", "int64", "int32"},
      {"cuda.match_any_sync(0xffffffff, a)", "float32", "int32"},
      {"cuda.match_all_sync(0xffffffff, a)", "int64", "Tuple(int32, bool)"},
      {"cuda.activemask()", "int32", "uint32"},
      {"cuda.lanemask_lt()", "int32", "uint32"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.expr);
    CAPTURE(c.a);
    CHECK(type_of(c.expr, c.a) == c.type);
  }
}

TEST_CASE("warp collectives mark the kernel (and its callers) as using warps") {
  auto module = compile("def k(x):\n"
                        "    v = cuda.shfl_down_sync(0xffffffff, x[0], 16)\n"
                        "    cuda.syncwarp()\n"
                        "    cuda.syncwarp(0xffff)\n"
                        "    m, p = cuda.match_all_sync(0xffffffff, v)\n"
                        "    x[0] = v + m\n",
                        "(int32[:],)");
  CHECK(module.props.uses_warp);
  CHECK_FALSE(module.props.uses_barrier);
  std::string dump = ir::dump(module);
  CHECK(dump.find("uses warp") != std::string::npos);
  CHECK(dump.find("@shfl_down_sync(") != std::string::npos);
  CHECK(dump.find("@syncwarp(int32(-1))") != std::string::npos);
  CHECK(dump.find("@syncwarp(int32(65535))") != std::string::npos);
  // lanemask_lt is the lane id's arithmetic: no warp collective, no fibers.
  CHECK_FALSE(
      compile("def k(x):\n    x[0] = cuda.lanemask_lt()\n", "(uint32[:],)").props.uses_warp);
}

TEST_CASE("warp intrinsic errors name the function and the problem") {
  CHECK(error_of("def k(x):\n    x[0] = cuda.shfl_sync(0xffffffff, x[0])\n", "(int32[:],)") ==
        "2:12: function cuda.shfl_sync expects 3 arguments, got 2");
  CHECK(error_of("def k(x):\n    x[0] = cuda.ballot_sync(0xffffffff, x)\n", "(int32[:],)") ==
        "2:41: function cuda.ballot_sync does not accept array(int32, 1d, A)");
  CHECK(error_of("def k(x):\n    cuda.syncwarp(1, 2)\n", "(int32[:],)") ==
        "2:5: function cuda.syncwarp expects 1 argument, got 2");
  CHECK(error_of("def k(x):\n    x[0] = cuda.activemask(1)\n", "(int32[:],)") ==
        "2:12: function cuda.activemask expects 0 arguments, got 1");
  CHECK(error_of("def k(x):\n    x[0] = cuda.shfl_sync(mask=1, value=2, src_lane=0)\n",
                 "(int32[:],)") == "2:12: function cuda.shfl_sync takes no keyword arguments");
}
