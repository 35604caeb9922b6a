// Python's operator and delimiter tokens as one enum (symbols.def).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace simt {

enum class Symbol : uint8_t {
#define SIMT_SYMBOL(name, spelling) name,
#include "frontend/symbols.def"
#undef SIMT_SYMBOL
};

// Longest first, as symbols.def lists them.
inline constexpr std::array kSymbolSpellings = {
#define SIMT_SYMBOL(name, spelling) spelling,
#include "frontend/symbols.def"
#undef SIMT_SYMBOL
};

// How `symbol` is written ("(", "**=").
constexpr const char *spelling(Symbol symbol) { return kSymbolSpellings[size_t(symbol)]; }

} // namespace simt
