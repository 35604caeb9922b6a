// numba.cuda.bf16's functions (ir/bf16.def): what every layer knows of one, its names,
// types and what it computes, comes from here. The typer looks a name up once and stores the
// enumerator in the Bf16 expression (ir.h); the lowering (codegen/lower_bf16.h) and the Python
// stubs (simt.cuda.bf16) use the table.
#pragma once

#include "ir/types.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace simt::ir {

enum class Bf16Fn : uint8_t {
#define SIMT_BF16(Id, Alias, Result, Param, Arity, Op, Mode, Math) Id,
#include "ir/bf16.def"
};

// What a function computes (bf16.def's Op column).
enum class Bf16Op : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Fma,
  Abs,
  Neg,
  Eq,
  Ne,
  Ge,
  Gt,
  Le,
  Lt,
  Max,
  Min,
  IsNan,
  IsInf,
  Convert, // Param to Result, rounded by the mode
  Bits,    // the same 16 bits as the other type
  Trunc,
  Ceil,
  Floor,
  Rint,
  Sqrt,
  Rsqrt,
  Rcp,
  Log,
  Log2,
  Log10,
  Cos,
  Sin,
  Tanh,
  Exp,
  Exp2,
  Exp10
};

// How (bf16.def's Mode column).
enum class Bf16Mode : uint8_t { None, RN, RZ, RD, RU, Sat, Relu, Unordered, Nan };

struct Bf16Info {
  const char *name;  // in numba.cuda.bf16
  const char *alias; // its CUDA-style name there too, or ""
  Scalar result;
  Scalar param;
  uint8_t arity;
  Bf16Op op;
  Bf16Mode mode;
  const char *math; // the math function it overloads for a bfloat16, or ""
};

namespace detail {

inline constexpr Bf16Info kBf16[] = {
#define SIMT_BF16(Id, Alias, Result, Param, Arity, Op, Mode, Math)                                 \
  {#Id, Alias, Scalar::Result, Scalar::Param, Arity, Bf16Op::Op, Bf16Mode::Mode, Math},
#include "ir/bf16.def"
};

} // namespace detail

inline constexpr int kBf16Count = int(std::size(detail::kBf16));

constexpr const Bf16Info &bf16_info(Bf16Fn fn) { return detail::kBf16[int(fn)]; }
constexpr const char *bf16_name(Bf16Fn fn) { return bf16_info(fn).name; }

// The function a kernel calls as numba.cuda.bf16.<name> (by either of its names), if any.
constexpr std::optional<Bf16Fn> find_bf16(std::string_view name) {
  if (name.empty())
    return std::nullopt;
  for (int i = 0; i < kBf16Count; ++i)
    if (name == detail::kBf16[i].name || name == detail::kBf16[i].alias)
      return Bf16Fn(i);
  return std::nullopt;
}

// The function numba.cuda.bf16 binds to math.<name> for one bfloat16 argument, if any.
constexpr std::optional<Bf16Fn> find_bf16_math(std::string_view name) {
  if (name.empty())
    return std::nullopt;
  for (int i = 0; i < kBf16Count; ++i)
    if (name == detail::kBf16[i].math)
      return Bf16Fn(i);
  return std::nullopt;
}

// "bf16.hfma(a: __nv_bfloat16, b: __nv_bfloat16, c: __nv_bfloat16) -> __nv_bfloat16", for
// messages.
std::string bf16_signature(Bf16Fn fn);

} // namespace simt::ir
