// The call registry's routing (frontend/typer_calls.h): which family types a call of each path,
// pinned where exact names, prefixes and the families' tables meet.
#include "frontend/typer_calls.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

struct Routed {
  std::string family, name;
};

Routed route_of(const std::string &path) {
  std::string name;
  const CallRegistry::Match match = call_registry().find(path, name);
  if (!match.route)
    return {"", ""};
  return {match.family->name, name};
}

} // namespace

TEST_CASE("calls route to the family that registered their path") {
  struct Case {
    const char *path, *family, *name;
  };
  const Case cases[] = {
      // exact names before any prefix
      {"builtins.len", "builtins and modules", "builtins.len"},
      {"builtins.print", "print", "builtins.print"},
      {"builtins.complex", "complex numbers", "builtins.complex"},
      {"numpy.abs", "builtins and modules", "numpy.abs"},
      {"numpy.absolute", "builtins and modules", "numpy.absolute"},
      {"operator.abs", "operator module", "operator.abs"},
      {"operator.truth", "operator module", "operator.truth"},
      {"cuda.syncthreads", "cuda", "cuda.syncthreads"},
      {"cuda.shared.array", "cuda", "cuda.shared.array"},
      {"cuda.selp", "cuda intrinsics", "cuda.selp"},
      {"cuda.cg.ThreadBlock.sync", "cuda intrinsics", "cuda.cg.ThreadBlock.sync"},
      {"cuda.libdevice", "cuda.libdevice", "cuda.libdevice"},
      {"cuda.fp8", "cuda.fp8", "cuda.fp8"},
      // the longest prefix
      {"operator.add", "operator module", "add"},
      {"cuda.atomic.add", "cuda atomics", "add"},
      {"cuda.atomic.compare_and_swap", "cuda atomics", "compare_and_swap"},
      {"cuda.atomic.nosuch", "cuda atomics", "nosuch"},
      {"cuda.libdevice.sin", "cuda.libdevice", "sin"},
      {"cuda.bf16.hadd", "cuda.bf16", "hadd"},
      {"cuda.fp8.cvt_float_to_fp8", "cuda.fp8", "cvt_float_to_fp8"},
      {"cmath.sqrt", "complex numbers", "sqrt"},
      {"math.sin", "math and numpy functions", "sin"},
      {"math.nosuch", "math and numpy functions", "nosuch"},
      {"module:mymod.f", "builtins and modules", "mymod.f"},
      // tables of one prefix: reductions, allocations, ufuncs, then every other numpy name
      {"numpy.sum", "numpy reductions", "sum"},
      {"numpy.amax", "numpy reductions", "amax"},
      {"numpy.min", "numpy reductions", "min"},
      {"numpy.empty", "numpy allocations", "empty"},
      {"numpy.copy", "numpy allocations", "copy"},
      {"numpy.sin", "numpy ufuncs", "sin"},
      {"numpy.maximum", "numpy ufuncs", "maximum"},
      {"numpy.nosuch", "math and numpy functions", "nosuch"},
      {"cuda.popc", "cuda intrinsics", "popc"},
      {"cuda.fp16.hadd", "cuda intrinsics", "fp16.hadd"},
      {"cuda.ldcg", "cuda intrinsics", "ldcg"},
      {"cuda.float32x2", "cuda intrinsics", "float32x2"},
      {"cuda.uchar4", "cuda intrinsics", "uchar4"},
      {"cuda.threadfence", "cuda intrinsics", "threadfence"},
      {"cuda.nanosleep", "cuda intrinsics", "nanosleep"},
      {"cuda.shfl_sync", "cuda warp intrinsics", "shfl_sync"},
      {"cuda.lanemask_lt", "cuda warp intrinsics", "lanemask_lt"},
      // no route: "calling '...' is not supported yet"
      {"cuda.nosuch", "", ""},
      {"cuda.cg", "", ""},
      {"numba.prange", "", ""},
      {"math", "", ""},
  };
  for (const Case &c : cases) {
    CAPTURE(c.path);
    const Routed routed = route_of(c.path);
    CHECK(routed.family == c.family);
    CHECK(routed.name == c.name);
  }
}

TEST_CASE("a path registered twice is refused when the registry is assembled") {
  auto type = [](FunctionTyper &, const std::string &, const ast::Expr &) { return Value{}; };
  std::vector<CallFamily> families = {{"one", {{"cuda.grid", type}}},
                                      {"two", {{"cuda.grid", type}}}};
  CHECK_THROWS_WITH_AS(CallRegistry(std::move(families)),
                       "the call 'cuda.grid' is registered by both one and two", std::logic_error);
}
