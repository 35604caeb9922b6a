// Deep and long source: chains compile flat, nesting past the limits is a clear CompileError, and
// operators on int literals fold as CPython folds them.
#include "frontend/ast.h"
#include "frontend/nesting.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <functional>

using namespace simt;

namespace {

std::string repeat(const std::string &text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += text;
  return out;
}

// `terms` copies of `operand` joined by `op`.
std::string chain(const std::string &operand, const std::string &op, int terms) {
  return operand + repeat(" " + op + " " + operand, terms - 1);
}

// On a compile's stack, as pybind gives it: long chains nest the tree deep.
ir::Module compile(const std::string &text, const std::string &signature) {
  ir::Module module;
  test::on_compile_stack(
      [&] { module = test::compile_text(text, signature, std::make_shared<test::NameTable>()); });
  return module;
}

std::string compile_error(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

// The depth of the deepest expression in `fn`'s statements (a walk with its own stack).
int deepest_expression(const ir::Function &fn) {
  int deepest = 0;
  std::vector<std::pair<const ir::Expr *, int>> work;
  std::function<void(const std::vector<ir::Stmt> &)> statements = [&](const auto &body) {
    for (const ir::Stmt &s : body) {
      for (const auto &e : s.exprs)
        work.emplace_back(e.get(), 1);
      statements(s.body);
      statements(s.orelse);
    }
  };
  statements(fn.body);
  while (!work.empty()) {
    auto [e, depth] = work.back();
    work.pop_back();
    deepest = std::max(deepest, depth);
    for (const auto &arg : e->args)
      work.emplace_back(arg.get(), depth + 1);
  }
  return deepest;
}

} // namespace

TEST_CASE("deep source: comparison and boolean chains are one flat And/Or") {
  ir::Module cmp = compile("def k(out, x, y):\n    out[0] = " + chain("x < y", "<", 4500) + "\n",
                           "(int64[:], int64, int64)");
  CHECK(deepest_expression(cmp.kernel()) < 10);
  ir::Module both = compile("def k(out, x, y):\n    out[0] = " + chain("x", "and", 20000) + " or " +
                                chain("y", "or", 20000) + "\n",
                            "(int64[:], int64, int64)");
  CHECK(deepest_expression(both.kernel()) < 10);
}

TEST_CASE("deep source: long left-associative chains and elif chains are no nesting") {
  // a + a + ... nests as ((a + a) + a) ..., as deep as it is long, yet counts as no nesting
  ir::Module sum =
      compile("def k(out, x):\n    out[0] = " + chain("x", "+", 10000) + "\n", "(int64[:], int64)");
  CHECK(deepest_expression(sum.kernel()) >= 10000);
  std::string mixed = "def k(out, x):\n    out[0] = (" + chain("x", "-", 5000) + ") * " +
                      chain("x", "|", 5000) + " // " + chain("x", "<<", 3) + "\n";
  CHECK(compile_error(mixed, "(int64[:], int64)") == "no error");
  // an elif is an If in the orelse of the one before
  std::string elifs = "def k(out, x):\n    if x == 0:\n        out[0] = 0\n";
  for (int i = 1; i < 3000; ++i)
    elifs +=
        "    elif x == " + std::to_string(i) + ":\n        out[0] = " + std::to_string(i) + "\n";
  elifs += "    else:\n        out[0] = -1\n";
  ir::Module branches = compile(elifs, "(int64[:], int64)");
  int depth = 0;
  for (const std::vector<ir::Stmt> *orelse = &branches.kernel().body;
       orelse->size() == 1 && orelse->at(0).kind == ir::StmtKind::If;
       orelse = &orelse->at(0).orelse)
    ++depth;
  CHECK(depth == 3000);
}

TEST_CASE("deep source: an elif chain's constant tests are pruned link by link") {
  const std::string text = "def k(out, x):\n"
                           "    if x == 0:\n        out[0] = 0\n"
                           "    elif 1 == 2:\n        out[0] = 1\n"
                           "    elif x == 2:\n        out[0] = 2\n"
                           "    elif 2 == 2:\n        out[0] = 3\n"
                           "    elif x == 4:\n        out[0] = 4\n"
                           "    else:\n        out[0] = 5\n";
  const std::string dump = ir::dump(compile(text, "(int64[:], int64)"));
  // the branches on 1 == 2, after 2 == 2 and the else are gone; 2 == 2's is the last orelse
  for (const char *gone : {"= 1\n", "= 4\n", "= 5\n", "x == 4"})
    CHECK(dump.find(gone) == std::string::npos);
  for (const char *kept : {"= 0\n", "= 2\n", "= 3\n"})
    CHECK(dump.find(kept) != std::string::npos);
  // a constant first test decides whether the rest of the block is reachable
  CHECK(compile_error("def k(out, x):\n    if 1 == 2:\n        out[0] = 0\n"
                      "    elif x == 2:\n        return\n    else:\n        return\n"
                      "    out[0] = undefined_name\n",
                      "(int64[:], int64)") == "no error");
}

TEST_CASE("deep source: nesting past the limits is a CompileError naming them") {
  const std::string limit = "more than " + std::to_string(kMaxNesting) + " levels";
  for (const char *prefix : {"-", "not ", "~"})
    CHECK(compile_error("def k(out, x):\n    out[0] = " + repeat(prefix, kMaxNesting + 10) + "x\n",
                        "(int64[:], int64)")
              .find(limit) != std::string::npos);
  std::string powers = "def k(out, x):\n    out[0] = " + chain("x", "**", kMaxNesting + 10) + "\n";
  CHECK(compile_error(powers, "(int64[:], int64)").find(limit) != std::string::npos);
  std::string conditional =
      "def k(out, x):\n    out[0] = " + repeat("x if x else ", kMaxNesting + 10) + "x\n";
  CHECK(compile_error(conditional, "(int64[:], int64)").find(limit) != std::string::npos);
  // chains are bounded too: the walks over the tree recurse once per operator
  const std::string chain_limit = "more than " + std::to_string(kMaxChainDepth) + " levels";
  std::string sum =
      compile_error("def k(out, x):\n    out[0] = " + chain("x", "+", kMaxChainDepth + 10) + "\n",
                    "(int64[:], int64)");
  CHECK(sum.find("too long a chain (" + chain_limit) != std::string::npos);
  CHECK(sum.rfind("2:", 0) == 0);
  std::string elifs = "def k(out, x):\n    if x == 0:\n        out[0] = 0\n";
  for (int i = 1; i < kMaxChainDepth + 10; ++i)
    elifs += "    elif x == 1:\n        out[0] = 1\n";
  CHECK(compile_error(elifs, "(int64[:], int64)").find(chain_limit) != std::string::npos);
}

TEST_CASE("deep source: CPython's bracket and indentation limits") {
  std::string parens =
      "def k(out, x):\n    out[0] = " + repeat("(", 201) + "x" + repeat(")", 201) + "\n";
  CHECK(compile_error(parens, "(int64[:], int64)") == "2:214: too many nested parentheses");
  std::string calls =
      "def k(out, x):\n    out[0] = " + repeat("abs(", 200) + "x" + repeat(")", 200) + "\n";
  CHECK(compile_error(calls, "(int64[:], int64)") == "no error");
  std::string blocks = "def k(out, x):\n";
  for (int i = 1; i <= 100; ++i)
    blocks += repeat(" ", i) + "if x:\n";
  blocks += repeat(" ", 101) + "out[0] = 1\n";
  CHECK(compile_error(blocks, "(int64[:], int64)") == "101:101: too many levels of indentation");
}

TEST_CASE("deep source: operators on int literals fold as CPython folds them") {
  // the typed assignment `x = expr` as the IR dump shows it
  auto folded = [](const std::string &expr) {
    std::string dump = ir::dump(compile("def k(out):\n    x = " + expr + "\n", "(float64[:],)"));
    size_t start = dump.rfind("x: "); // the assignment, after the slots
    return dump.substr(start, dump.find('\n', start) - start);
  };
  CHECK(folded("2 ** -1") == "x: float64 = 0.5");
  CHECK(folded("(1 + 1) ** -2") == "x: float64 = 0.25");
  CHECK(folded("-2 ** -2") == "x: float64 = neg(0.25)");
  CHECK(folded("2 ** 62 * 4 // 8") == "x: int64 = 2305843009213693952");
  CHECK(folded("2 ** 63") == "x: uint64 = uint64(9223372036854775808)");
  CHECK(folded("-7 // 2 + -7 % 2 * 10") == "x: int64 = 6");
  CHECK(folded("2 ** 64 - 1") == "x: uint64 = uint64(18446744073709551615)");
  CHECK(folded("-(2 ** 63)") == "x: int64 = -9223372036854775808");
  CHECK(folded("-9223372036854775808") == "x: int64 = -9223372036854775808");
  CHECK(folded("(1 << 100) >> 90") == "x: int64 = 1024");
  CHECK(folded("3 ** 40") == "x: uint64 = uint64(12157665459056928801)");
  CHECK(folded("123456789012345678901234567890 - 123456789012345678901234567800") ==
        "x: int64 = 90");
  CHECK(folded("not 2 ** 64") == "x: bool = False");
  CHECK(folded("~5 << 3 >> 1 & 0xff ^ 3 | 1") == "x: int64 = 235");
  // left alone, as CPython leaves them: a division by zero, 0 ** -1, a result past 128 bits
  CHECK(compile_error("def k(out):\n    out[0] = 0 ** -1\n", "(float64[:],)") == "no error");
  CHECK(compile_error("def k(out):\n    out[0] = 1 // 0\n", "(float64[:],)") == "no error");
  CHECK(compile_error("def k(out):\n    out[0] = 2 ** 200 // 2 ** 190\n", "(float64[:],)") ==
        "no error");
  // CPython's limits (128 bits): 1 ** 100000000000 and 2 ** 65 are computed at run time
  CHECK(folded("1 ** 100000000000") == "x: int64 = pow(1, 100000000000)");
  CHECK(folded("2 ** 65") == "x: int64 = pow(2, 65)");
}

TEST_CASE("deep source: an int constant CPython folds past uint64 is a CompileError") {
  auto error = [](const std::string &expr) {
    return compile_error("def k(out, x):\n    out[0] = " + expr + "\n", "(float64[:], int64)");
  };
  const std::string numba = " (Numba's int constants are int64 or uint64)";
  CHECK(error("18446744073709551616") ==
        "2:14: int value is too large: 18446744073709551616" + numba);
  CHECK(error("2**64") == "2:14: int value is too large: 18446744073709551616, the one constant "
                          "CPython folds 2 ** 64 into before Numba sees it" +
                              numba);
  CHECK(error("x + (1 << 100)") ==
        "2:19: int value is too large: 1267650600228229401496703205376, the one constant CPython "
        "folds 1 << 100 into before Numba sees it" +
            numba);
  CHECK(error("3 ** 41 * x")
            .find("2:14: int value is too large: 36472996377170786403, the one "
                  "constant CPython folds 3 ** 41 into") == 0);
  CHECK(error("-(2 ** 64)").find("int value is too large: -18446744073709551616") !=
        std::string::npos);
  CHECK(error("~0x1_0000_0000_0000_0000").find("-18446744073709551617") != std::string::npos);
  CHECK(error("-9223372036854775809")
            .find("-9223372036854775809, the one constant CPython "
                  "folds -9223372036854775809 into") != std::string::npos);
}

TEST_CASE("deep source: a constant array extent past int64 is too large, not unknown") {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "cuda").module("np", "numpy");
  auto error = [&](const std::string &kind, const std::string &shape) {
    return test::error_text([&] {
      test::compile_text("def k(out):\n    a = cuda." + kind + ".array(" + shape +
                             ", np.int8)\n    out[0] = a[0]\n",
                         "(int8[:],)", names);
    });
  };
  CHECK(error("local", "2 ** 70") ==
        "2:26: array extent 1180591620717411303424 is too large (extents are int64)");
  CHECK(error("shared", "(4, 10 ** 40)") == "2:27: array extent "
                                            "10000000000000000000000000000000000000000 is too "
                                            "large (extents are int64)");
  CHECK(error("local", "2 ** 10 ** 9") == "2:26: array extent is too large (extents are int64)");
}
