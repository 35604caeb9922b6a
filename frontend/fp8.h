// numba-cuda's FP8 conversion intrinsics and formats (frontend/fp8.def): the typer stores the
// function's enumerator in the Fp8 expression (ir.h); the lowering (codegen/lower_fp8.h) and the
// Python stubs and enums (simt.fp8) use the tables.
#pragma once

#include "frontend/types.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace simt::ir {

enum class Fp8Fn : uint8_t {
#define SIMT_FP8(Id, Param, Lanes, Target) Id,
#include "frontend/fp8.def"
};

// What a function converts to: an E4M3/E5M2 code (by its fp8_interpretation_t argument) or an
// E8M0 one (by its cudaRoundMode argument).
enum class Fp8Target : uint8_t { Fp8, E8m0 };

struct Fp8Info {
  const char *name; // in numba.cuda._internal.cuda_fp8
  Scalar param;     // the value's type, or its vector's elements'
  int lanes;        // 1: a scalar, uint8 result; 2: a 2-vector, uint16 result
  Fp8Target target;

  Scalar result() const { return lanes == 1 ? Scalar::U8 : Scalar::U16; }
};

// One E4M3/E5M2 format, indexed by its fp8_interpretation_t value.
struct Fp8Format {
  const char *name;
  int mantissa_bits;
  int bias;
  uint8_t max_norm;
  uint8_t overflow;
  uint8_t nan;
  bool nan_payload;
};

// cuda_fp8.h's __nv_saturation_t and cudaRoundMode values the conversions test.
inline constexpr int kFp8SatFinite = 1; // __NV_SATFINITE (__NV_NOSAT is 0)
inline constexpr int kRoundZero = 1;    // cudaRoundZero (cudaRoundPosInf is 2)

namespace detail {

inline constexpr Fp8Info kFp8[] = {
#define SIMT_FP8(Id, Param, Lanes, Target) {#Id, Scalar::Param, Lanes, Fp8Target::Target},
#include "frontend/fp8.def"
};

inline constexpr Fp8Format kFp8Formats[] = {
#define SIMT_FP8_FORMAT(Id, MantissaBits, Bias, MaxNorm, Overflow, Nan, NanPayload)                \
  {#Id, MantissaBits, Bias, MaxNorm, Overflow, Nan, NanPayload},
#include "frontend/fp8.def"
};

} // namespace detail

inline constexpr int kFp8Count = int(std::size(detail::kFp8));
inline constexpr int kFp8FormatCount = int(std::size(detail::kFp8Formats));

constexpr const Fp8Info &fp8_info(Fp8Fn fn) { return detail::kFp8[int(fn)]; }
constexpr const Fp8Format &fp8_format(int interpretation) {
  return detail::kFp8Formats[interpretation];
}

// The function a kernel calls as numba.cuda._internal.cuda_fp8.<name>, if any.
constexpr std::optional<Fp8Fn> find_fp8(std::string_view name) {
  for (int i = 0; i < kFp8Count; ++i)
    if (name == detail::kFp8[i].name)
      return Fp8Fn(i);
  return std::nullopt;
}

} // namespace simt::ir
