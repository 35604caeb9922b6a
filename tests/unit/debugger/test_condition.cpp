// Breakpoint conditions the debugger's controller evaluates itself (debugger/condition.h).
#include "debugger/condition.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace simt;
using Op = debugger::ConditionStep::Op;

namespace {

debugger::ConditionStep push_int(int64_t v) {
  debugger::ConditionStep s;
  s.op = Op::Const;
  s.value = {false, v, 0};
  return s;
}

debugger::ConditionStep push_float(double v) {
  debugger::ConditionStep s;
  s.op = Op::Const;
  s.value = {true, 0, v};
  return s;
}

debugger::ConditionStep push_local(uint64_t offset, std::string scalar) {
  debugger::ConditionStep s;
  s.op = Op::Local;
  s.offset = offset;
  s.scalar = std::move(scalar);
  return s;
}

debugger::ConditionStep apply(Op op) {
  debugger::ConditionStep s;
  s.op = op;
  return s;
}

} // namespace

TEST_CASE("conditions over locals, thread ids and constants") {
  // locals: int32 i at 0, float32 v at 4, int64 n at 8
  alignas(8) char locals[16] = {};
  const int32_t i = 1000000;
  const float v = 2.5f;
  const int64_t n = -7;
  std::memcpy(locals, &i, 4);
  std::memcpy(locals + 4, &v, 4);
  std::memcpy(locals + 8, &n, 8);
  sim::ThreadContext thread{};
  thread.tid[0] = 10;
  thread.ntid[0] = 32;

  // i == 1000000
  CHECK(debugger::evaluate({push_local(0, "int32"), push_int(1000000), apply(Op::Eq)}, thread,
                           locals) == true);
  // v > 2 and threadIdx.x == 10
  debugger::ConditionStep tid;
  tid.op = Op::Special;
  CHECK(debugger::evaluate({push_local(4, "float32"), push_int(2), apply(Op::Gt), tid, push_int(10),
                            apply(Op::Eq), apply(Op::And)},
                           thread, locals) == true);
  // n % 3 == 2 (Python's modulo: -7 % 3 is 2), -n * 2 == 14
  CHECK(debugger::evaluate(
            {push_local(8, "int64"), push_int(3), apply(Op::Mod), push_int(2), apply(Op::Eq)},
            thread, locals) == true);
  CHECK(debugger::evaluate({push_local(8, "int64"), apply(Op::Neg), push_int(2), apply(Op::Mul),
                            push_int(14), apply(Op::Eq)},
                           thread, locals) == true);
  // 2.5 < 2.5 is false; not (2.5 < 2.5)
  CHECK(
      debugger::evaluate({push_local(4, "float32"), push_float(2.5), apply(Op::Lt), apply(Op::Not)},
                         thread, locals) == true);
  // What cannot be evaluated is left to the REPL: modulo by zero, a malformed program, no frame.
  CHECK_FALSE(debugger::evaluate({push_int(1), push_int(0), apply(Op::Mod)}, thread, locals));
  CHECK_FALSE(debugger::evaluate({push_int(1), apply(Op::Eq)}, thread, locals));
  CHECK_FALSE(debugger::evaluate({push_local(0, "int32")}, thread, nullptr));
}
