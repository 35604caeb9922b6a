// The libdevice functions (ir/libdevice.def, generated from Numba's table): what every layer
// knows of one, its name, return type and parameters, comes from here. The typer looks a name up
// once and stores the enumerator in the Libdevice expression (ir.h); the lowering and the targets
// (Target::libdevice) use the enum.
#pragma once

#include "ir/types.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace simt::ir {

enum class Libdevice : uint16_t {
#define SIMT_LIBDEVICE(Name, Result, Params) Name,
#include "ir/libdevice.def"
};

// The types libdevice's functions take and return (Numba's signed integer types stand for the
// unsigned ones too: umax takes int32).
enum class LibdeviceType : uint8_t { Void, I16, I32, I64, F32, F64 };

struct LibdeviceParam {
  const char *name;
  LibdeviceType type;
  bool output; // a pointer the function stores a value of `type` through
};

struct LibdeviceInfo {
  const char *name; // without __nv_
  LibdeviceType result;
  const LibdeviceParam *params;
  uint8_t param_count;

  constexpr const LibdeviceParam *begin() const { return params; }
  constexpr const LibdeviceParam *end() const { return params + param_count; }
  constexpr int inputs() const {
    int n = 0;
    for (const LibdeviceParam &p : *this)
      n += p.output ? 0 : 1;
    return n;
  }
};

namespace detail {

#define SIMT_LD_IN(Name, Type) LibdeviceParam{#Name, LibdeviceType::Type, false},
#define SIMT_LD_OUT(Name, Type) LibdeviceParam{#Name, LibdeviceType::Type, true},
#define SIMT_LIBDEVICE(Name, Result, Params)                                                       \
  inline constexpr LibdeviceParam libdevice_params_##Name[] = {Params};
#include "ir/libdevice.def"

inline constexpr LibdeviceInfo kLibdevice[] = {
#define SIMT_LIBDEVICE(Name, Result, Params)                                                       \
  {#Name, LibdeviceType::Result, libdevice_params_##Name,                                          \
   uint8_t(std::size(libdevice_params_##Name))},
#include "ir/libdevice.def"
};

} // namespace detail

inline constexpr int kLibdeviceCount = int(std::size(detail::kLibdevice));

constexpr const LibdeviceInfo &libdevice_info(Libdevice fn) { return detail::kLibdevice[int(fn)]; }
constexpr const char *libdevice_name(Libdevice fn) { return libdevice_info(fn).name; }

// The function a kernel calls as libdevice.<name>, if any.
constexpr std::optional<Libdevice> find_libdevice(std::string_view name) {
  for (int i = 0; i < kLibdeviceCount; ++i)
    if (name == detail::kLibdevice[i].name)
      return Libdevice(i);
  return std::nullopt;
}

// The scalar type of a libdevice type other than Void.
constexpr Scalar libdevice_scalar(LibdeviceType type) {
  switch (type) {
  case LibdeviceType::I16:
    return Scalar::I16;
  case LibdeviceType::I32:
    return Scalar::I32;
  case LibdeviceType::I64:
    return Scalar::I64;
  case LibdeviceType::F32:
    return Scalar::F32;
  case LibdeviceType::F64:
  case LibdeviceType::Void:
    break;
  }
  return Scalar::F64;
}

// The type of a call's result, as Numba types it (numba/cuda/libdevicefuncs.py's
// create_signature): the return value unless void, then the outputs; one is a scalar, more are a
// tuple.
Type libdevice_result_type(Libdevice fn);
// "libdevice.frexp(x: float64) -> Tuple(float64, int32)", for messages.
std::string libdevice_signature(Libdevice fn);

} // namespace simt::ir
