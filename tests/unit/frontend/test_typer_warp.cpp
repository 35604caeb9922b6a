// Typing of the warp intrinsics (cuda.shfl_sync, the votes, match, syncwarp, activemask,
// lanemask_lt), checked against what Numba's CUDA typing context answers.
#include "frontend/compile.h"

#include <doctest/doctest.h>

#include <map>

using namespace simt;

namespace {

class WarpResolver : public Resolver {
public:
  WarpResolver() {
    GlobalValue g;
    g.kind = GlobalValue::Kind::Module;
    g.module_name = "numba.cuda";
    cuda = g;
  }
  GlobalValue resolve(const std::string &name) override {
    return name == "cuda" ? cuda : GlobalValue{};
  }
  GlobalValue cuda;
};

ir::Module compile(const std::string &text, const std::string &signature) {
  FunctionSource src;
  src.name = text.substr(4, text.find('(') - 4);
  src.source = text;
  src.file = "k.py";
  src.first_line = 1;
  src.resolver = std::make_shared<WarpResolver>();
  src.identity = std::hash<std::string>()(text);
  return compile_kernel(src, parse_signature(signature));
}

Type slot_type(const ir::Function &fn, const std::string &name) {
  for (const ir::Slot &s : fn.slots)
    if (s.name == name)
      return s.type;
  FAIL("no slot " << name);
  return {};
}

// The type of `r = EXPR` in a kernel taking a scalar a of type `a` and an int32 array x.
std::string type_of(const std::string &expr, const std::string &a) {
  auto module = compile("def k(a, x):\n    r = " + expr + "\n", "(" + a + ", int32[:])");
  return slot_type(module.kernel(), "r").str();
}

std::string error_of(const std::string &text, const std::string &signature) {
  try {
    compile(text, signature);
  } catch (const CompileError &e) {
    return std::to_string(e.line) + ":" + std::to_string(e.col) + ": " + e.message;
  }
  return "no error";
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
