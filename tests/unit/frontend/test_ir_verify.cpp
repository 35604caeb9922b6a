// The typed IR layer's own operations on typed kernels: ir::verify accepts what the typer makes
// and names what a broken module gets wrong; Properties are derived through calls (recursive
// ones too); ir::clone is deep.
#include "ir/ir.h"
#include "ir/walk.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

using namespace simt;

namespace {

ir::Module compile(const std::string &text, const std::string &signature = "(float64[::1])") {
  return test::compile_cuda_kernel(text, signature);
}

const char *const kLoop = R"(def k(out):
    i = cuda.grid(1)
    total = 0.0
    for j in range(out.size):
        if j > 3:
            break
        total += out[j]
    out[i] = total
)";

// The message ir::verify throws for `module`, "" when it accepts it.
std::string verify_error(const ir::Module &module) {
  try {
    ir::verify(module);
  } catch (const std::logic_error &e) {
    return e.what();
  }
  return "";
}

ir::Stmt *first_statement(ir::Module &module, ir::StmtKind kind) {
  ir::Stmt *found = nullptr;
  ir::walk_stmts(module.functions[0].body, [&](ir::Stmt &s) {
    if (!found && s.kind == kind)
      found = &s;
  });
  return found;
}

} // namespace

TEST_CASE("ir::verify accepts the typer's modules") { CHECK(verify_error(compile(kLoop)) == ""); }

TEST_CASE("ir::verify names the function, the line and what is wrong") {
  ir::Module module = compile(kLoop);
  SUBCASE("an assignment of another type") {
    ir::Stmt *assign = first_statement(module, ir::StmtKind::Assign);
    assign->exprs[0]->type = Type::scalar_of(Scalar::I8);
    const std::string error = verify_error(module);
    CAPTURE(error);
    CHECK(error.find("(k.py:2)") != std::string::npos);
    CHECK(error.find("the value assigned to i is int8") != std::string::npos);
  }
  SUBCASE("a slot that does not exist") {
    first_statement(module, ir::StmtKind::Assign)->slot = 999;
    CHECK(verify_error(module).find("slot 999 does not exist") != std::string::npos);
  }
  SUBCASE("a break outside a loop") {
    ir::Stmt brk;
    brk.kind = ir::StmtKind::Break;
    brk.loc = {9, 4};
    module.functions[0].body.push_back(std::move(brk));
    CHECK(verify_error(module).find("(k.py:9): break or continue outside a loop") !=
          std::string::npos);
  }
  SUBCASE("a condition that is not a bool") {
    ir::Stmt *branch = first_statement(module, ir::StmtKind::If);
    branch->exprs[0]->type = Type::scalar_of(Scalar::I64);
    const std::string error = verify_error(module);
    CAPTURE(error);
    CHECK(error.find("a condition is int64, not bool") != std::string::npos);
  }
}

TEST_CASE("properties are derived through calls, recursive ones included") {
  auto names = test::cuda_names();
  auto step =
      std::make_shared<FunctionSource>(test::kernel_source("def step(a, n):\n"
                                                           "    if n < 1:\n"
                                                           "        cuda.syncthreads()\n"
                                                           "        return 0.5\n"
                                                           "    cuda.atomic.add(a, 0, 1.0)\n"
                                                           "    return step(a, n - 1) + 1\n",
                                                           names));
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = step;
  names->names["step"] = fn;
  ir::Module module =
      test::compile_text("def k(a):\n    a[1] = step(a, 3)\n", "(float64[:],)", names);
  REQUIRE(module.functions.size() == 2);
  CHECK(module.functions[1].recursive);
  for (const ir::Properties &p : {module.props, module.functions[0].props}) {
    CHECK(p.uses_barrier);
    CHECK(p.uses_atomics);
    CHECK_FALSE(p.uses_shared);
    CHECK_FALSE(p.uses_print);
  }
  CHECK(verify_error(module) == "");
}

TEST_CASE("ir::clone is deep: the copy's expressions are its own") {
  const ir::Module module = compile(kLoop);
  ir::Module copy = ir::clone(module);
  CHECK(ir::fingerprint(copy) == ir::fingerprint(module));
  first_statement(copy, ir::StmtKind::Assign)->exprs[0]->type = Type::scalar_of(Scalar::I8);
  CHECK(ir::fingerprint(copy) != ir::fingerprint(module));
  CHECK(verify_error(module) == "");
}
