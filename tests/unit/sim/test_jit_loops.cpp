// What the optimiser must make of the common flat kernel, compiled from Python source.
#include "frontend/compile.h"
#include "sim/jit.h"

#include <doctest/doctest.h>

#include <memory>

using namespace simt;

namespace {

// Only `cuda` is a global name in these kernels.
struct CudaOnly : Resolver {
  GlobalValue resolve(const std::string &name) override {
    GlobalValue value;
    if (name == "cuda") {
      value.kind = GlobalValue::Kind::Module;
      value.module_name = "cuda";
    }
    return value;
  }
};

} // namespace

TEST_CASE("a guarded 1-D kernel's thread loop sheds its bounds checks (IRCE)") {
  FunctionSource add{"add",
                     "def add(r, x, y):\n"
                     "    i = cuda.grid(1)\n"
                     "    if i < r.size:\n"
                     "        r[i] = x[i] + y[i]\n",
                     "add.py",
                     1,
                     std::make_shared<CudaOnly>(),
                     1,
                     {},
                     {}};
  ir::Module module = compile_kernel(add, {3, Type::array_of(Scalar::F32, 1, 'C')});
  std::string ir = sim::host_llvm_ir(module);
  // cuda.grid(1) is no-wrap int32 arithmetic, so the thread index is an affine induction
  // variable: IRCE splits the loop into pre/main/post loops and the main loop has no checks.
  CHECK(ir.find("add nuw nsw i32") != std::string::npos);
  CHECK(ir.find(".postloop") != std::string::npos);
}
