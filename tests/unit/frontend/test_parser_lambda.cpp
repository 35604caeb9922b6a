// A lambda's source (the lambda expression alone, at its column) parses as a function whose body
// returns the lambda's expression.
#include "frontend/ast.h"
#include "frontend/ast_dump.h"
#include "frontend/compile.h"

#include <doctest/doctest.h>

using namespace simt;

TEST_CASE("a lambda parses as a function returning its body") {
  ast::FunctionDef f = parse_function("        lambda a, b=2: a + b\n", "k.py", 7);
  CHECK(f.name == "<lambda>");
  REQUIRE(f.params.size() == 2);
  CHECK(f.params[0].name == "a");
  CHECK(f.params[1].name == "b");
  CHECK(f.params[1].default_value != nullptr);
  REQUIRE(f.body.size() == 1);
  CHECK(f.body[0]->kind == ast::StmtKind::Return);
  CHECK(f.body[0]->loc.line == 7);
  CHECK(f.body[0]->value->loc.col == 24);
  CHECK(ast::dump(*f.body[0]->value) ==
        ast::dump(*parse_function("def g():\n    return a + b\n", "k.py", 1).body[0]->value));
}

TEST_CASE("a parenthesized lambda may span lines") {
  ast::FunctionDef f = parse_function("   (lambda x: (x *\n        2))\n", "k.py", 3);
  REQUIRE(f.body.size() == 1);
  CHECK(f.body[0]->value->loc.line == 3);
  CHECK(f.params.size() == 1);
}

TEST_CASE("lambda source errors") {
  auto message = [](const std::string &source) {
    try {
      parse_function(source, "k.py", 1);
    } catch (const CompileError &error) {
      return error.message + " @" + std::to_string(error.line) + ":" + std::to_string(error.col);
    }
    return std::string("no error");
  };
  CHECK(message("lambda x: x y\n") == "simt: expected a single function definition @1:13");
  CHECK(message("lambda x: lambda y: y\n") == "no error"); // the typer inlines inner lambdas
  CHECK(message("lambda x: int: x\n") == "simt: expected a single function definition @1:14");
}
