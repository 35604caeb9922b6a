// Breakpoint conditions the debugger's controller evaluates itself (debugger/condition.h).
#include "debugger/condition.h"

#include <doctest/doctest.h>

#include <algorithm>
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

TEST_CASE("conditions over array elements, divisions and math functions") {
  // locals: a 2-D float32 array's header (data, shape 2x3, strides 12, 4) at 0, int64 i at 56
  float data[6] = {0, 1, 2, 3, 4, 1e6f};
  alignas(8) char locals[64] = {};
  const int64_t header[5] = {int64_t(reinterpret_cast<intptr_t>(data)), 2, 3, 12, 4};
  const int64_t i = 2;
  std::memcpy(locals, header, sizeof header);
  std::memcpy(locals + 56, &i, 8);
  sim::ThreadContext thread{};
  debugger::ConditionStep element;
  element.op = Op::Element;
  element.offset = 0;
  element.scalar = "float32";
  element.axis = 2;
  debugger::ConditionStep sqrt;
  sqrt.op = Op::Call;
  sqrt.scalar = "sqrt";

  // a[1, i] == 1e6, a[-1, -1] == 1e6 (negative indices wrap as Python's)
  CHECK(debugger::evaluate(
            {push_int(1), push_local(56, "int64"), element, push_float(1e6), apply(Op::Eq)}, thread,
            locals) == true);
  CHECK(debugger::evaluate({push_int(-1), push_int(-1), element, push_float(1e6), apply(Op::Eq)},
                           thread, locals) == true);
  // out of bounds: the REPL decides (and reports Python's IndexError)
  CHECK_FALSE(debugger::evaluate({push_int(2), push_int(0), element}, thread, locals).has_value());
  // math.sqrt(a[1, 0]) > 1.7; math.sqrt(-1) raises in Python: the REPL decides
  CHECK(
      debugger::evaluate({push_int(1), push_int(0), element, sqrt, push_float(1.7), apply(Op::Gt)},
                         thread, locals) == true);
  CHECK_FALSE(debugger::evaluate({push_int(-1), sqrt}, thread, locals).has_value());
  // -7 // 2 == -4 and 7 / 2 == 3.5 (Python's); 1 // 0 raises
  CHECK(debugger::evaluate(
            {push_int(-7), push_int(2), apply(Op::FloorDiv), push_int(-4), apply(Op::Eq)}, thread,
            locals) == true);
  CHECK(debugger::evaluate(
            {push_int(7), push_int(2), apply(Op::TrueDiv), push_float(3.5), apply(Op::Eq)}, thread,
            locals) == true);
  CHECK_FALSE(debugger::evaluate({push_int(1), push_int(0), apply(Op::FloorDiv)}, thread, locals)
                  .has_value());
  CHECK(std::find(debugger::condition_functions().begin(), debugger::condition_functions().end(),
                  "isnan") != debugger::condition_functions().end());
}
