// split_variable_webs: each web of a local (the definitions reaching a common use) becomes a
// variable of its own, as Numba's SSA versions do.
#include "frontend/ast_dump.h"
#include "frontend/compile.h"
#include "frontend/variable_webs.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

// The function's body after the pass, dumped.
std::string split(const std::string &source,
                  std::map<std::string, std::pair<int, int>> *lines_out = nullptr) {
  ast::FunctionDef def = parse_function(source, "k.py", 1);
  std::map<std::string, std::pair<int, int>> lines;
  split_variable_webs(def, lines);
  if (lines_out)
    *lines_out = lines;
  std::string out;
  for (const auto &s : def.body)
    out += ast::dump(*s) + "\n";
  return out;
}

} // namespace

TEST_CASE("webs: a rebinding whose value no later read shares is a new variable") {
  std::map<std::string, std::pair<int, int>> lines;
  const std::string out = split("def k(b, out):\n"
                                "    acc = b[0]\n"
                                "    for i in range(4):\n"
                                "        acc += b[i]\n"
                                "    acc = acc / 2.0\n"
                                "    out[0] = acc\n",
                                &lines);
  // the loop's acc (read by += and by the division) is one web; the quotient another
  CHECK(out.find("(Assign (Name acc) = (Subscript (Name b) (Int 0)))") != std::string::npos);
  CHECK(out.find("(AugAssign (Name acc) += ") != std::string::npos);
  CHECK(out.find("(Assign (Name acc.2) = (BinOp / (Name acc) (Float 2)))") != std::string::npos);
  CHECK(out.find("= (Name acc.2))") != std::string::npos);
  CHECK(lines.at("acc.2") == std::pair{5, 6});
}

TEST_CASE("webs: definitions meeting after a branch or around a loop stay one variable") {
  const std::string out = split("def k(a, c):\n"
                                "    if c:\n"
                                "        x = 1\n"
                                "    else:\n"
                                "        x = 2.5\n"
                                "    y = 0\n"
                                "    while y < 3:\n"
                                "        y = y + 1.5\n"
                                "    a[0] = x + y\n");
  CHECK(out.find(".2") == std::string::npos);
}

TEST_CASE("webs: parameters keep their names; closures' names are left whole") {
  const std::string out = split("def k(n, out):\n"
                                "    out[0] = n\n"
                                "    n = 2.5\n"
                                "    out[1] = n\n"
                                "    m = 1\n"
                                "    f = lambda v: v + m\n"
                                "    m = 2.5\n"
                                "    out[2] = f(m)\n");
  CHECK(out.find("(Assign (Name n.2) = (Float 2.5))") != std::string::npos);
  CHECK(out.find("(Subscript (Name out) (Int 0)) = (Name n)") != std::string::npos);
  CHECK(out.find("m.2") == std::string::npos);
}

TEST_CASE("webs: break and continue carry definitions to where they go") {
  const std::string out = split("def k(a):\n"
                                "    x = 0\n"
                                "    for i in range(3):\n"
                                "        if a[i] > 0:\n"
                                "            x = 1.5\n"
                                "            break\n"
                                "        x = 2\n"
                                "        continue\n"
                                "    a[0] = x\n"
                                "    x = 7\n"
                                "    a[1] = x\n");
  // the three definitions before a[0] = x reach it: one web; the last x is another
  CHECK(out.find("(Assign (Name x) = (Float 1.5))") != std::string::npos);
  CHECK(out.find("(Assign (Name x.2) = (Int 7))") != std::string::npos);
}
