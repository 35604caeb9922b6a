#include "codegen/symbol_name.h"

namespace simt::codegen {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_letter(c) || is_digit(c) || c == '_'; }

} // namespace

bool is_symbol_name(std::string_view name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!is_word(c) && c != '$')
      return false;
  // PTX: a letter first, or '_' or '$' followed by at least one more character.
  return is_letter(name[0]) || (name.size() > 1 && !is_digit(name[0]));
}

std::string symbol_name(std::string_view name) {
  if (is_symbol_name(name))
    return std::string(name);
  if (name.empty())
    return "$_";
  static constexpr char hex[] = "0123456789abcdef";
  std::string symbol;
  symbol.reserve(name.size() * 3);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool first_invalid = i == 0 && (is_digit(c) || name == "_");
    if (is_word(c) && !first_invalid) {
      symbol += c;
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    symbol += '$';
    symbol += hex[byte >> 4];
    symbol += hex[byte & 15];
  }
  return symbol;
}

} // namespace simt::codegen
