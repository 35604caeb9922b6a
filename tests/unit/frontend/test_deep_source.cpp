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

ir::Module compile(const std::string &text, const std::string &signature) {
  return test::compile_text(text, signature, std::make_shared<test::NameTable>());
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

TEST_CASE("deep source: nesting past the limit is a CompileError naming it") {
  const std::string limit = "more than " + std::to_string(kMaxNesting) + " levels";
  // a long left-associative chain nests as deeply as it is long
  std::string sum =
      compile_error("def k(out, x):\n    out[0] = " + chain("x", "+", kMaxNesting + 10) + "\n",
                    "(int64[:], int64)");
  CHECK(sum.find(limit) != std::string::npos);
  CHECK(sum.rfind("2:", 0) == 0);
  CHECK(compile_error("def k(out, x):\n    out[0] = " + chain("x", "+", kMaxNesting - 20) + "\n",
                      "(int64[:], int64)") == "no error");
  for (const char *prefix : {"-", "not ", "~"})
    CHECK(compile_error("def k(out, x):\n    out[0] = " + repeat(prefix, 50000) + "x\n",
                        "(int64[:], int64)")
              .find(limit) != std::string::npos);
  std::string powers = "def k(out, x):\n    out[0] = " + chain("x", "**", 50000) + "\n";
  CHECK(compile_error(powers, "(int64[:], int64)").find(limit) != std::string::npos);
  std::string conditional = "def k(out, x):\n    out[0] = " + repeat("x if x else ", 50000) + "x\n";
  CHECK(compile_error(conditional, "(int64[:], int64)").find(limit) != std::string::npos);
  std::string elifs = "def k(out, x):\n    if x == 0:\n        out[0] = 0\n";
  for (int i = 1; i < 3000; ++i)
    elifs += "    elif x == " + std::to_string(i) + ":\n        out[0] = 1\n";
  CHECK(compile_error(elifs, "(int64[:], int64)").find(limit) != std::string::npos);
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
  CHECK(folded("1 ** 100000000000") == "x: int64 = 1");
  CHECK(folded("~5 << 3 >> 1 & 0xff ^ 3 | 1") == "x: int64 = 235");
  // left alone, as CPython leaves them: a division by zero, 0 ** -1, a result past 128 bits
  CHECK(compile_error("def k(out):\n    out[0] = 0 ** -1\n", "(float64[:],)") == "no error");
  CHECK(compile_error("def k(out):\n    out[0] = 1 // 0\n", "(float64[:],)") == "no error");
  CHECK(compile_error("def k(out):\n    out[0] = 2 ** 200 // 2 ** 190\n", "(float64[:],)") ==
        "no error");
}
