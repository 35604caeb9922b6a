// Breakpoint conditions the controller evaluates itself, without calling back into Python: a
// program of comparisons, arithmetic and math functions over the stopped thread's scalar locals,
// the elements of its arrays, its thread and block ids and constants, joined by and/or/not. The
// REPL translates the conditions it can into one (python/simt/tools/debug_breakpoints.py); others
// are evaluated by the REPL at each hit.
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
    // pop `axis` indices (the first pushed first), push the element of kind `scalar` of the
    // array whose header (data, shape, strides) is at `offset` of the innermost frame's locals
    Element,
    Call, // pop one, push the math function `scalar` of it (condition_functions())
    // pop two, push the result (Python's semantics on ints and floats)
    Add,
    Sub,
    Mul,
    Mod,
    TrueDiv,
    FloorDiv,
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

// The functions Op::Call knows, by the names Python's math module (and builtins' abs) gives them.
const std::vector<std::string> &condition_functions();

// Runs `program` for the thread on `thread` whose innermost frame's locals are at `locals`;
// nullopt when it cannot (a division by zero, a malformed program): the REPL decides then.
std::optional<bool> evaluate(const std::vector<ConditionStep> &program,
                             const sim::ThreadContext &thread, const void *locals);

} // namespace simt::debugger
