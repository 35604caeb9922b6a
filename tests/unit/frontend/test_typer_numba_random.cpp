// Typing rules that Numba's numba.cuda.random relies on: uint64 literals, parameters redefined at
// the top of a function (Numba types each definition on its own), run-time indices into uniform
// tuples.
#include "frontend/compile.h"
#include "frontend/param_versions.h"
#include "ir/ir.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

// Numba's scalar type names (uint64, uint32, float32, ...) as numba.cuda.random imports them.
class Globals : public Resolver {
public:
  GlobalValue resolve(const std::string &name) override {
    GlobalValue g;
    Scalar s;
    if (parse_scalar_name(name, s)) {
      g.kind = GlobalValue::Kind::Dtype;
      g.scalar = s;
    }
    return g;
  }
};

ir::Module compile(const std::string &text, const std::string &signature) {
  return test::compile_text(text, signature, std::make_shared<Globals>());
}

std::string slot_type(const ir::Function &fn, const std::string &name) {
  return test::slot_type(fn, name).str();
}

std::string error_of(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

} // namespace

TEST_CASE("integer literals beyond int64 are uint64, as Numba types them") {
  auto module = compile("def k(out):\n"
                        "    x = 0x9E3779B97F4A7C15\n"
                        "    out[0] = x\n",
                        "(uint64[:],)");
  CHECK(slot_type(module.kernel(), "x") == "uint64");
  CHECK(ir::dump(module).find("x: uint64 = uint64(11400714819323198485)") != std::string::npos);
  CHECK(error_of("def k(out):\n    out[0] = 0x1_0000_0000_0000_0000\n", "(uint64[:],)") ==
        "2:14: int value is too large: 18446744073709551616 (Numba's int constants are int64 "
        "or uint64)");
}

TEST_CASE("a parameter redefined first thing is a new variable, typed on its own") {
  // int64 and uint64 unify to float64: without the split `seed` would be a float64.
  auto module = compile("def k(seed, out):\n"
                        "    \"\"\"doc\"\"\"\n"
                        "    seed = uint64(seed)\n"
                        "    out[0] = seed >> uint32(3)\n",
                        "(int64, uint64[:])");
  const ir::Function &fn = module.kernel();
  CHECK(fn.slots[0].name == "$seed");
  CHECK(slot_type(fn, "$seed") == "int64");
  CHECK(slot_type(fn, "seed") == "uint64");
  // Read before the redefinition: two webs, two variables (Numba's SSA versions); redefined on
  // one branch only: one web (both definitions reach the read after the if), unified.
  module = compile("def k(seed, out):\n"
                   "    out[0] = seed\n"
                   "    seed = uint64(seed)\n",
                   "(int64, float64[:])");
  CHECK(slot_type(module.kernel(), "seed") == "int64");
  CHECK(slot_type(module.kernel(), "seed.2") == "uint64");
  module = compile("def k(seed, out):\n"
                   "    if out[0] > 0:\n"
                   "        seed = uint64(seed)\n"
                   "    out[0] = seed\n",
                   "(int64, float64[:])");
  CHECK(slot_type(module.kernel(), "seed") == "float64");
}

TEST_CASE("split_redefined_parameters renames the parameter and the reads in its redefinition") {
  ast::FunctionDef def = parse_function("def f(x, k, n):\n"
                                        "    x = uint64(x) + x\n"
                                        "    k = k + x\n"
                                        "    n += 1\n",
                                        "f.py", 1);
  std::map<std::string, std::pair<int, int>> lines;
  split_redefined_parameters(def, lines);
  CHECK(def.params[0].name == "$x");
  CHECK(def.body[0]->value->elts[1]->id == "$x");
  CHECK(def.body[0]->targets[0]->id == "x");
  CHECK(def.params[1].name == "$k");
  CHECK(def.body[1]->value->elts[0]->id == "$k");
  CHECK(def.body[1]->value->elts[1]->id == "x"); // the new x
  CHECK(def.params[2].name == "n");              // an augmented assignment reads it first
  // where x and k mean the locals: from the statement after each one's redefinition
  CHECK(lines.at("x").first == 3);
  CHECK(lines.at("k").first == 4);
  CHECK(lines.count("n") == 0);
  CHECK(python_name("$x") == "x");
  CHECK(python_name("v.2") == "v");
  CHECK(python_name("$3") == "$3"); // a compiler temporary
  CHECK(python_name("x") == "x");
}

TEST_CASE("uniform tuples take run-time indices: bounds-checked, negative ones wrap") {
  auto module = compile("def k(out, i):\n"
                        "    t = (uint64(5), uint64(6))\n"
                        "    out[0] = t[i]\n",
                        "(uint64[:], int32)");
  std::string dump = ir::dump(module);
  // A TupleIndex: the lowering checks the bounds (IndexError) and wraps negative indices.
  CHECK(dump.find("out[0] = t[int64(i)]") != std::string::npos);
  CHECK(error_of("def k(out, i):\n    out[0] = (1, 2.0)[i]\n", "(float64[:], int64)") ==
        "2:14: simt: indexing Tuple(int64, float64), whose elements differ in type, needs a "
        "constant index");
}
