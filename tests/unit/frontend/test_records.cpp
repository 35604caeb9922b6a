// Record (structured dtype) types: Numba's spelling, signatures, and typing of field accesses.
#include "frontend/compile.h"
#include "ir/ir.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

const char *const kState = "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)";

std::shared_ptr<const Record> state_record() {
  auto r = std::make_shared<Record>();
  r->fields = {{"s0", Scalar::U64, 0}, {"s1", Scalar::U64, 8}};
  r->size = 16;
  r->aligned = true;
  return r;
}

class Globals : public Resolver {
public:
  GlobalValue resolve(const std::string &name) override {
    GlobalValue g;
    if (name == "uint64") {
      g.kind = GlobalValue::Kind::Dtype;
      g.scalar = Scalar::U64;
    } else if (name == "cuda") {
      g.kind = GlobalValue::Kind::Module;
      g.module_name = "numba.cuda";
    }
    return g;
  }
};

ir::Module compile(const std::string &text, const std::string &signature) {
  return test::compile_text(text, signature, std::make_shared<Globals>());
}

std::string states_sig(const std::string &more = "") {
  return std::string("(array(") + kState + ", 1d, C)" + more + ")";
}

std::string error_of(const std::string &text, const std::string &signature) {
  return test::error_text([&] { compile(text, signature); });
}

std::string body_of(const ir::Module &module) {
  std::string dump = ir::dump(module);
  return dump.substr(dump.find("\n   "));
}

} // namespace

TEST_CASE("records print and compare as Numba's Record types") {
  Type rec = Type::record_of(state_record());
  CHECK(rec.str() == kState);
  CHECK(Type::record_array_of(state_record(), 1, 'C').str() ==
        std::string("array(") + kState + ", 1d, C)");
  // Equal layouts are equal types, whatever object holds them.
  CHECK(Type::record_of(state_record()) == rec);
  auto packed = std::make_shared<Record>(*state_record());
  packed->aligned = false;
  CHECK(Type::record_of(packed) != rec);
  CHECK(Type::record_array_of(packed, 1, 'C') != Type::record_array_of(state_record(), 1, 'C'));
  CHECK(Type::record_array_of(packed, 1, 'C') != Type::array_of(Scalar::U8, 1, 'C'));
  CHECK(state_record()->field_index("s1") == 1);
  CHECK(state_record()->field_index("s2") == -1);
  Type unified;
  CHECK(unify(Type::record_array_of(state_record(), 1, 'C'),
              Type::record_array_of(state_record(), 1, 'A'), unified));
  CHECK(unified == Type::record_array_of(state_record(), 1, 'A'));
  CHECK_FALSE(unify(Type::record_array_of(packed, 1, 'C'),
                    Type::record_array_of(state_record(), 1, 'A'), unified));
  CHECK_FALSE(unify(rec, Type::record_of(packed), unified));
}

TEST_CASE("parse_signature reads Record types") {
  auto args = parse_signature(states_sig(", Record(a[type=int8;offset=0],b[type=float32;offset=1],"
                                         "c[type=bool;offset=5];6;False)[:, ::1]"));
  REQUIRE(args.size() == 2);
  CHECK(args[0] == Type::record_array_of(state_record(), 1, 'C'));
  CHECK(args[0].str() == std::string("array(") + kState + ", 1d, C)");
  REQUIRE(args[1].is_record_array());
  CHECK(args[1].layout == 'C');
  CHECK(args[1].ndim == 2);
  CHECK(args[1].record->str() ==
        "Record(a[type=int8;offset=0],b[type=float32;offset=1],c[type=bool;offset=5];6;False)");
  CHECK(parse_signature(std::string("(") + kState + ",)")[0] == Type::record_of(state_record()));
  CHECK(parse_signature(std::string("(unaligned array(") + kState + ", 1d, C),)")[0] ==
        Type::record_array_of(state_record(), 1, 'C'));
  CHECK_THROWS_WITH(parse_signature("(Record(a[type=int64;offset=4];8;False)[:],)"),
                    doctest::Contains("field 'a' lies outside the record"));
  CHECK_THROWS_WITH(parse_signature("(Record(a[kind=int64;offset=0];8;False)[:],)"),
                    doctest::Contains("expected 'type='"));
  CHECK_THROWS_WITH(parse_signature("(Record(a[type=int64;offset=0];8;Maybe)[:],)"),
                    doctest::Contains("expected True or False (aligned)"));
}

TEST_CASE("record fields load and store by subscript and attribute") {
  auto module = compile("def k(states, out):\n"
                        "    i = cuda.grid(1)\n"
                        "    s0 = states[i]['s0']\n"
                        "    states[i].s1 = s0 + uint64(1)\n"
                        "    states[i]['s0'] ^= states[i].s1\n"
                        "    out[i] = states[i].s0\n",
                        states_sig(", uint64[:]"));
  CHECK(body_of(module) == "\n"
                           "   2:  i: int32 = add(threadIdx.x, mul(blockIdx.x, blockDim.x))\n"
                           "   3:  s0: uint64 = states[int64(i)].s0\n"
                           "   4:  states[int64(i)].s1 = add(s0, uint64(1))\n"
                           "   5:  $1: " +
                               std::string(kState) +
                               " = states[int64(i)]\n"
                               "   5:  $1.s0 = bitxor($1.s0, states[int64(i)].s1)\n"
                               "   6:  out[int64(i)] = states[int64(i)].s0\n");
}

TEST_CASE("record values refer to their element; whole records copy") {
  auto module = compile("def k(states):\n"
                        "    rec = states[0]\n"
                        "    rec.s0 += 2\n"
                        "    states[1] = rec\n"
                        "    states[2] = states[1]\n",
                        states_sig());
  CHECK(body_of(module) == "\n"
                           "   2:  rec: " +
                               std::string(kState) +
                               " = states[0]\n"
                               "   3:  rec.s0 = uint64(add(int64(rec.s0), 2))\n"
                               "   4:  states[1] = rec\n"
                               "   5:  states[2] = states[1]\n");
}

TEST_CASE("record field errors name the record and the field") {
  CHECK(error_of("def k(states):\n    x = states[0]['s2']\n", states_sig()) ==
        std::string("2:19: record ") + kState + " has no field 's2' (fields: 's0', 's1')");
  CHECK(error_of("def k(states):\n    x = states[0].s2\n", states_sig()) ==
        std::string("2:9: record ") + kState + " has no field 's2' (fields: 's0', 's1')");
  CHECK(error_of("def k(states, i):\n    x = states[0][i]\n", states_sig(", int64")) ==
        "2:19: simt: record fields are selected by a constant string (rec['name']), a constant "
        "integer (rec[0]) or an attribute (rec.name)");
  CHECK(error_of("def k(states):\n    x = states[0][2]\n", states_sig()) ==
        std::string("2:19: record index out of range: ") + kState + " has 2 fields");
  CHECK(error_of("def k(states):\n    x = states[0][-3]\n", states_sig()) ==
        std::string("2:19: record index out of range: ") + kState + " has 2 fields");
  CHECK(error_of("def k(states):\n    states[0].s0 = (1, 2)\n", states_sig()) ==
        "2:20: cannot store UniTuple(int64 x 2) into the uint64 field 's0'");
  CHECK(error_of("def k(states, a):\n    states[0] = a[0]\n", states_sig(", float32[:]")) ==
        std::string("2:17: cannot store float32 into an element of array(") + kState + ", 1d, C)");
  CHECK(error_of("def k(states):\n    states[0] += 1\n", states_sig()) ==
        "2:5: simt: augmented assignment to a whole record is not supported");
  CHECK(error_of("def k(states):\n    cuda.atomic.add(states, 0, 1)\n", states_sig()) ==
        "2:21: cuda.atomic.add does not support record arrays");
  CHECK(error_of("def k(a):\n    a.foo = 1\n", "(float32[:],)") ==
        "2:5: simt: assigning to attributes of array(float32, 1d, A) is not supported");
}
