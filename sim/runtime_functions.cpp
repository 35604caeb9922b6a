// The compile-time check that sim/runtime.def and the C declarations of sim/abi.h agree: every
// runtime function's result and parameter types are the ones the table says.
#include "sim/runtime_functions.h"

#include "sim/abi.h"

#include <type_traits>

namespace simt::sim {

namespace {

template <typename T> constexpr RtType rt_type_of() {
  if constexpr (std::is_void_v<T>)
    return RtType::Void;
  else if constexpr (std::is_same_v<T, int32_t>)
    return RtType::I32;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return RtType::U32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return RtType::I64;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return RtType::U64;
  else if constexpr (std::is_same_v<T, double>)
    return RtType::F64;
  else if constexpr (std::is_same_v<T, void *>)
    return RtType::Ptr;
  else if constexpr (std::is_same_v<T, const char *>)
    return RtType::Str;
  else if constexpr (std::is_same_v<T, ThreadContext *>)
    return RtType::Ctx;
  else
    static_assert(!sizeof(T), "a runtime function type sim/runtime.def has no spelling for");
}

template <typename Result, typename... Params>
constexpr bool declared_as(Result (*)(Params...), const RuntimeSignature &signature) {
  constexpr RtType params[] = {rt_type_of<Params>()...};
  if (rt_type_of<Result>() != signature.result || sizeof...(Params) != signature.arity)
    return false;
  for (size_t i = 0; i < sizeof...(Params); ++i)
    if (params[i] != signature.params[i])
      return false;
  return true;
}

#define SIMT_RUNTIME(Name, Cold, Result, ...)                                                      \
  static_assert(declared_as(&::Name, runtime_signature(RuntimeFn::Name)),                          \
                #Name ": its declaration in sim/abi.h and its line in sim/runtime.def disagree");
#include "sim/runtime.def"

} // namespace

} // namespace simt::sim
