// The runtime functions of sim/runtime.def as a table: their names, how hot they are, their
// signatures (sim/abi.h declares them in C).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace simt::sim {

enum class RuntimeFn : uint8_t {
#define SIMT_RUNTIME(Name, Cold, Result, ...) Name,
#include "sim/runtime.def"
};

// A runtime function's parameter or result type (sim/runtime.def).
enum class RtType : uint8_t { Void, I32, U32, I64, U64, F64, Ptr, Str, Ctx };

struct RuntimeSignature {
  const char *name;
  bool cold;
  RtType result;
  std::array<RtType, 8> params;
  size_t arity;
};

namespace detail {

// The table's spellings of the types.
inline constexpr RtType Void = RtType::Void, I32 = RtType::I32, U32 = RtType::U32,
                        I64 = RtType::I64, U64 = RtType::U64, F64 = RtType::F64, Ptr = RtType::Ptr,
                        Str = RtType::Str, Ctx = RtType::Ctx;

inline constexpr RuntimeSignature kRuntime[] = {
#define SIMT_RUNTIME(Name, Cold, Result, ...)                                                      \
  {#Name, Cold != 0, Result, {__VA_ARGS__}, std::initializer_list<RtType>{__VA_ARGS__}.size()},
#include "sim/runtime.def"
};

} // namespace detail

constexpr const RuntimeSignature &runtime_signature(RuntimeFn fn) {
  return detail::kRuntime[size_t(fn)];
}

} // namespace simt::sim
