// Breakpoint conditions the controller evaluates itself, without calling back into Python: a
// program of comparisons and arithmetic over the stopped thread's scalar locals, its thread and
// block ids and constants, joined by and/or/not. The REPL translates the conditions it can into
// one (python/simt/tools/debug_breakpoints.py); others are evaluated by the REPL at each hit.
#pragma once

#include "sim/abi.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simt::debugger {

struct ConditionStep {
  enum class Op : uint8_t {
    Local,   // push the scalar at `offset` of the innermost frame's locals, of kind `scalar`
    Special, // push threadIdx/blockIdx/blockDim/gridDim (`special` 0-3) along `axis`
    Const,   // push `value`
    // pop two, push the result (Python's semantics on ints and floats)
    Add,
    Sub,
    Mul,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not, // pop one
    Neg, // pop one
  };
  struct Value {
    bool is_float = false;
    int64_t i = 0;
    double f = 0;
  };
  Op op = Op::Const;
  uint64_t offset = 0;
  std::string scalar; // Local: int8 ... uint64, float32, float64, bool
  int special = 0;
  int axis = 0;
  Value value;
};

// Runs `program` for the thread on `thread` whose innermost frame's locals are at `locals`;
// nullopt when it cannot (a division by zero, a malformed program): the REPL decides then.
std::optional<bool> evaluate(const std::vector<ConditionStep> &program,
                             const sim::ThreadContext &thread, const void *locals);

} // namespace simt::debugger
