// NumPy's datetime64/timedelta64 units (Numba's npdatetime_helpers): which convert to which, and
// by what factor. Units are NumPy's codes ("Y", "M", "W", "D", "h", ..., "as"); "" is generic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace simt {

bool is_time_unit(const std::string &unit);

// The factor that converts a count of `from` units to `to` units, where the conversion is exact
// (`to` no coarser than `from`, and both on the same side of the month/day divide); the generic
// unit converts to any with factor 1. nullopt otherwise, or where the factor overflows int64.
std::optional<int64_t> time_unit_factor(const std::string &from, const std::string &to);

// The unit two time values combine in (Numba's get_best_unit): the finer of the two where one
// converts to the other exactly, else nullopt.
std::optional<std::string> common_time_unit(const std::string &a, const std::string &b);

// NaT, NumPy's "not a time": int64's minimum.
constexpr int64_t not_a_time = INT64_MIN;

} // namespace simt
