// LLVM's fatal errors on the PTX path: names PTX cannot spell never reach LLVM's NVPTX backend
// (codegen/symbol_name.h), and a fatal error that does happen in a PTX compile is thrown out of
// LLVM (codegen/llvm_errors.h) with the compile's LLVM objects leaked, and the next compile works.
#include "codegen/llvm_errors.h"
#include "gpu/ptx.h"
#include "tests/unit/ir_builder.h"

#include <doctest/doctest.h>
#include <llvm/Support/ErrorHandling.h>

using namespace simt;
using namespace simt::irb;

namespace {

void handler(void *, const char *reason, bool) { codegen::on_llvm_fatal_error(reason); }

// kñ(x: float64[:]): x[0] = π(x[0]), π a device function kept out of line.
ir::Module unicode_module() {
  FunctionBuilder k("k\xc3\xb1", true);
  int x = k.param("x", array(Scalar::F64, 1));
  FunctionBuilder pi("\xcf\x80$1", false, f64());
  pi.f.python_name = "\xcf\x80";
  int v = pi.param("v", f64());
  pi.f.body = block(ret(binary(Op::Mul, pi.get(v), float_const(2.0))));
  k.f.body = block(store(k.get(x), list(int_const(0)),
                         call(1, f64(), list(load(k.get(x), list(int_const(0)))))));
  return module_of(std::move(k.f), std::move(pi.f));
}

} // namespace

TEST_CASE("fatal errors: Unicode names compile to PTX, written as symbol_name writes them") {
  gpu::PtxOptions options;
  options.opt = false; // the device function stays a function of its own
  gpu::CompiledPtx ptx = gpu::compile_ptx(unicode_module(), options);
  CHECK(ptx.entry == "k$c3$b1");
  CHECK(ptx.ptx.find(".visible .entry k$c3$b1(") != std::string::npos);
  CHECK(ptx.ptx.find("simt_$cf$80$241(") != std::string::npos);
}

TEST_CASE("fatal errors: names the user chose that PTX cannot spell are refused before LLVM") {
  gpu::PtxOptions options;
  options.abi = gpu::EntryAbi{true, true, "not a name"};
  CHECK_THROWS_AS(gpu::compile_ptx(unicode_module(), options), std::invalid_argument);
}

TEST_CASE("fatal errors: a fatal error in LLVM's NVPTX backend is thrown, and LLVM goes on") {
  llvm::ScopedFatalErrorHandler scoped(handler);
  for (int round = 0; round < 3; ++round) {
    try {
      gpu::empty_function_ptx_for_tests("k\xc3\xb1", "sm_75");
      FAIL("no fatal error");
    } catch (const codegen::LlvmFatalError &e) {
      CHECK(std::string(e.what()) == "simt: LLVM failed while compiling kernel 'k\xc3\xb1' for "
                                     "simt's tests: Symbol name with unsupported characters");
    }
    CHECK(codegen::LlvmTask::current() == nullptr);
    CHECK(gpu::empty_function_ptx_for_tests("k", "sm_75").find(".visible .func k(") !=
          std::string::npos);
    CHECK(gpu::compile_ptx(unicode_module(), {}).entry == "k$c3$b1");
  }
}
