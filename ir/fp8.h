// numba-cuda's FP8 conversion intrinsics, value types and formats (ir/fp8.def): the typer
// stores the function's enumerator in the Fp8 expression and the value type's in the Fp8Value one
// (ir.h); the lowering (codegen/lower_fp8.h) and the Python stubs and enums (simt.fp8) use the
// tables.
#pragma once

#include "ir/types.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace simt::ir {

enum class Fp8Fn : uint8_t {
#define SIMT_FP8(Id, Param, Lanes, Target) Id,
#include "ir/fp8.def"
};

enum class Fp8Type : uint8_t {
#define SIMT_FP8_TYPE(Id, Encoding, Lanes) Id,
#include "ir/fp8.def"
};

// What a function converts to: an E4M3/E5M2 code (by its fp8_interpretation_t argument), an
// E8M0 one (by its cudaRoundMode argument), or an E8M0 code's bfloat16_raw.
enum class Fp8Target : uint8_t { Fp8, E8m0, Bf16Raw };

// cuda_bf16.h's __nv_bfloat16_raw as numba-cuda's bindings name it: a bfloat16's bits, field x.
inline constexpr const char *kBfloat16Raw = "bfloat16_raw";
inline Type bfloat16_raw_type() { return Type::storage_of(kBfloat16Raw, Scalar::U16); }

struct Fp8Info {
  const char *name; // in numba.cuda._internal.cuda_fp8
  Scalar param;     // the value's type, or its vector's elements' (BF16: a bfloat16_raw)
  int lanes;        // 1: a scalar, uint8 result; 2: a 2-vector, uint16 result
  Fp8Target target;

  int arity() const { return target == Fp8Target::Bf16Raw ? 1 : 3; }
  // The result: the code(s) as an unsigned integer, or a bfloat16_raw
  Type result() const {
    if (target == Fp8Target::Bf16Raw)
      return bfloat16_raw_type();
    return Type::scalar_of(lanes == 1 ? Scalar::U8 : Scalar::U16);
  }
  // The value parameter's type
  Type param_type() const {
    if (param == Scalar::BF16)
      return bfloat16_raw_type();
    return lanes == 1 ? Type::scalar_of(param) : Type::vector_of(param, lanes);
  }
};

// How a value type's codes encode numbers: fp8_interpretation_t's two formats, or E8M0.
enum class Fp8Encoding : uint8_t { E4M3, E5M2, E8M0 };

struct Fp8TypeInfo {
  const char *name; // its class in numba.cuda._internal.cuda_fp8
  Fp8Encoding encoding;
  int lanes; // codes held: 1, 2 or 4

  // Its storage: the codes in a uint8 / uint16 / uint32, named as the class
  Type type() const {
    return Type::storage_of(name, lanes == 1 ? Scalar::U8 : lanes == 2 ? Scalar::U16 : Scalar::U32);
  }
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
inline constexpr int kRoundZero = 1;    // cudaRoundZero
inline constexpr int kRoundPosInf = 2;  // cudaRoundPosInf

namespace detail {

inline constexpr Fp8Info kFp8[] = {
#define SIMT_FP8(Id, Param, Lanes, Target) {#Id, Scalar::Param, Lanes, Fp8Target::Target},
#include "ir/fp8.def"
};

inline constexpr Fp8TypeInfo kFp8Types[] = {
#define SIMT_FP8_TYPE(Id, Encoding, Lanes) {#Id, Fp8Encoding::Encoding, Lanes},
#include "ir/fp8.def"
};

inline constexpr Fp8Format kFp8Formats[] = {
#define SIMT_FP8_FORMAT(Id, MantissaBits, Bias, MaxNorm, Overflow, Nan, NanPayload)                \
  {#Id, MantissaBits, Bias, MaxNorm, Overflow, Nan, NanPayload},
#include "ir/fp8.def"
};

} // namespace detail

inline constexpr int kFp8Count = int(std::size(detail::kFp8));
inline constexpr int kFp8FormatCount = int(std::size(detail::kFp8Formats));
inline constexpr int kFp8TypeCount = int(std::size(detail::kFp8Types));

constexpr const Fp8Info &fp8_info(Fp8Fn fn) { return detail::kFp8[int(fn)]; }
constexpr const Fp8TypeInfo &fp8_type_info(Fp8Type type) { return detail::kFp8Types[int(type)]; }
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

// The value type a kernel names as numba.cuda._internal.cuda_fp8.<name>, if any.
constexpr std::optional<Fp8Type> find_fp8_type(std::string_view name) {
  for (int i = 0; i < kFp8TypeCount; ++i)
    if (name == detail::kFp8Types[i].name)
      return Fp8Type(i);
  return std::nullopt;
}

// The value type a Storage type is, if it is one (not a bfloat16_raw).
inline std::optional<Fp8Type> fp8_type_of(const Type &type) {
  if (!type.is_storage())
    return std::nullopt;
  return find_fp8_type(type.nominal->name);
}

} // namespace simt::ir
