// simt's settings that its C++ layers read from the environment, in one table
// (config/settings.def), and their typed readers. Each reader keeps what its setting's users
// did with a bad value: a number that must be one throws where it is read (number()), one read
// as C's atof reads it falls back to its default (leading_number()).
//
// Header-only and C++17: every layer includes it without linking anything, down to the GPU
// driver layer, which gpu/runner also builds on its own.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

namespace simt::config {

// How a setting's readers parse it.
enum class Type {
  Text,   // a word from a list its reader knows
  Number, // a number at least 0
  Count,  // a whole number at least 1
  Switch, // "0" or "1"
  Path,   // a file or folder
};

enum class Setting {
#define SIMT_SETTING(name, type, default_value, meaning) name,
#include "config/settings.def"
#undef SIMT_SETTING
};

struct SettingInfo {
  const char *name;
  Type type;
  const char *default_value;
  const char *meaning;
};

inline constexpr SettingInfo settings[] = {
#define SIMT_SETTING(name, type, default_value, meaning)                                           \
  {#name, Type::type, default_value, meaning},
#include "config/settings.def"
#undef SIMT_SETTING
};

constexpr const SettingInfo &info(Setting setting) { return settings[size_t(setting)]; }

// The setting's value in the environment; null when unset.
inline const char *raw(Setting setting) { return std::getenv(info(setting).name); }

// Its value; its default when unset or empty.
inline std::string text(Setting setting) {
  const char *value = raw(setting);
  return value != nullptr && *value != '\0' ? value : info(setting).default_value;
}

// `text` as a number at least 0, all of it; nullopt when it is not one.
inline std::optional<double> parse_number(const char *text) {
  char *end = nullptr;
  const double number = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(number >= 0))
    return std::nullopt;
  return number;
}

// `text` as a whole number at least 1, all of it; nullopt when it is not one.
inline std::optional<long> parse_count(const char *text) {
  char *end = nullptr;
  const long count = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || count < 1)
    return std::nullopt;
  return count;
}

// A Number setting; its default when unset; nullopt when it is set (even empty) to something
// else, which its reader reports.
inline std::optional<double> number(Setting setting) {
  const char *value = raw(setting);
  return parse_number(value != nullptr ? value : info(setting).default_value);
}

// The number a Number setting's value starts with, as C's atof reads it (0: none); its default
// when unset or empty.
inline double leading_number(Setting setting) { return std::atof(text(setting).c_str()); }

// A Count setting; nullopt when unset, empty or not one (its default then applies).
inline std::optional<long> count(Setting setting) { return parse_count(text(setting).c_str()); }

} // namespace simt::config
