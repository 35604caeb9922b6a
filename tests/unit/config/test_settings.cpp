// simt's C++ settings (config/settings.h): the table's defaults read as their types say, and each
// reader's parsing of what the environment holds.
#include "config/settings.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

namespace config = simt::config;
using config::Setting;

namespace {

// Sets `name` to `value` (null: unsets it) for the scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

} // namespace

TEST_CASE("settings: every name is a SIMT_ variable, once, and every default reads as its type") {
  std::string names = " ";
  for (const config::SettingInfo &setting : config::settings) {
    const std::string name = setting.name;
    CHECK(name.rfind("SIMT_", 0) == 0);
    CHECK(names.find(" " + name + " ") == std::string::npos);
    names += name + " ";
    CHECK(std::string(setting.meaning).size() > 0);
    const char *fallback = setting.default_value;
    switch (setting.type) {
    case config::Type::Number:
      CHECK(config::parse_number(fallback).has_value());
      break;
    case config::Type::Count: // "": a count the reader works out
      CHECK((*fallback == '\0' || config::parse_count(fallback).has_value()));
      break;
    case config::Type::Switch:
      CHECK((std::string(fallback) == "" || std::string(fallback) == "0" ||
             std::string(fallback) == "1"));
      break;
    default:
      break;
    }
  }
  CHECK(std::string(config::info(Setting::SIMT_THREADS).name) == "SIMT_THREADS");
}

TEST_CASE("settings: text is the value, or the default when unset or empty") {
  {
    ScopedEnv env("SIMT_OPT_TIER", nullptr);
    CHECK(config::raw(Setting::SIMT_OPT_TIER) == nullptr);
    CHECK(config::text(Setting::SIMT_OPT_TIER) == "auto");
  }
  {
    ScopedEnv env("SIMT_OPT_TIER", "");
    CHECK(config::raw(Setting::SIMT_OPT_TIER) != nullptr);
    CHECK(config::text(Setting::SIMT_OPT_TIER) == "auto");
  }
  ScopedEnv env("SIMT_OPT_TIER", "quick");
  CHECK(config::text(Setting::SIMT_OPT_TIER) == "quick");
}

TEST_CASE("settings: a number is all of the text, at least 0; set to anything else, it is none") {
  CHECK(config::parse_number("2.5") == 2.5);
  CHECK(config::parse_number("0") == 0.0);
  CHECK_FALSE(config::parse_number("").has_value());
  CHECK_FALSE(config::parse_number("5ms").has_value());
  CHECK_FALSE(config::parse_number("-1").has_value());
  CHECK_FALSE(config::parse_number("nan").has_value());
  {
    ScopedEnv env("SIMT_TIER_UP_MS", nullptr);
    CHECK(config::number(Setting::SIMT_TIER_UP_MS) == 20.0);
  }
  {
    ScopedEnv env("SIMT_TIER_UP_MS", ""); // set, but not a number: its reader reports it
    CHECK_FALSE(config::number(Setting::SIMT_TIER_UP_MS).has_value());
  }
  ScopedEnv env("SIMT_TIER_UP_MS", "1e3");
  CHECK(config::number(Setting::SIMT_TIER_UP_MS) == 1000.0);
}

TEST_CASE("settings: a leading number is what atof reads, the default when unset or empty") {
  {
    ScopedEnv env("SIMT_GPU_TIMEOUT", nullptr);
    CHECK(config::leading_number(Setting::SIMT_GPU_TIMEOUT) == 60.0);
  }
  {
    ScopedEnv env("SIMT_GPU_TIMEOUT", "");
    CHECK(config::leading_number(Setting::SIMT_GPU_TIMEOUT) == 60.0);
  }
  {
    ScopedEnv env("SIMT_GPU_TIMEOUT", "2.5s");
    CHECK(config::leading_number(Setting::SIMT_GPU_TIMEOUT) == 2.5);
  }
  ScopedEnv env("SIMT_GPU_TIMEOUT", "none");
  CHECK(config::leading_number(Setting::SIMT_GPU_TIMEOUT) == 0.0);
}

TEST_CASE("settings: a count is a whole number at least 1, else none") {
  CHECK(config::parse_count("8") == 8L);
  CHECK_FALSE(config::parse_count("0").has_value());
  CHECK_FALSE(config::parse_count("-2").has_value());
  CHECK_FALSE(config::parse_count("4x").has_value());
  CHECK_FALSE(config::parse_count("").has_value());
  {
    ScopedEnv env("SIMT_THREADS", nullptr);
    CHECK_FALSE(config::count(Setting::SIMT_THREADS).has_value());
  }
  ScopedEnv env("SIMT_THREADS", "3");
  CHECK(config::count(Setting::SIMT_THREADS) == 3L);
}
