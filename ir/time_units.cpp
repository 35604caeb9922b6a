#include "ir/time_units.h"

#include <array>
#include <utility>

namespace simt {

namespace {

// Coarsest first, each with the number of it the previous unit holds (0: no exact factor, the
// month/day divide).
constexpr std::array<std::pair<const char *, int64_t>, 13> units = {{{"Y", 1},
                                                                     {"M", 12},
                                                                     {"W", 0},
                                                                     {"D", 7},
                                                                     {"h", 24},
                                                                     {"m", 60},
                                                                     {"s", 60},
                                                                     {"ms", 1000},
                                                                     {"us", 1000},
                                                                     {"ns", 1000},
                                                                     {"ps", 1000},
                                                                     {"fs", 1000},
                                                                     {"as", 1000}}};

std::optional<size_t> rank(const std::string &unit) {
  for (size_t i = 0; i < units.size(); ++i)
    if (unit == units[i].first)
      return i;
  return std::nullopt;
}

} // namespace

bool is_time_unit(const std::string &unit) { return unit.empty() || rank(unit).has_value(); }

std::optional<int64_t> time_unit_factor(const std::string &from, const std::string &to) {
  if (from.empty() || from == to)
    return 1;
  auto a = rank(from), b = rank(to);
  if (!a || !b || *b < *a)
    return std::nullopt;
  int64_t factor = 1;
  for (size_t i = *a + 1; i <= *b; ++i)
    if (units[i].second == 0 || __builtin_mul_overflow(factor, units[i].second, &factor))
      return std::nullopt;
  return factor;
}

std::optional<std::string> common_time_unit(const std::string &a, const std::string &b) {
  if (time_unit_factor(a, b))
    return b;
  if (time_unit_factor(b, a))
    return a;
  return std::nullopt;
}

} // namespace simt
