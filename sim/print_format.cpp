#include "sim/print_format.h"

#include <cstdio>

namespace simt::sim {

namespace {
template <typename T> std::string printf_format(const char *format, T value) {
  char buffer[64];
  int length = std::snprintf(buffer, sizeof buffer, format, value);
  if (length < int(sizeof buffer))
    return std::string(buffer, size_t(length));
  // "%f" of a huge double needs more than 64 characters.
  std::string text(size_t(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), format, value);
  text.resize(size_t(length));
  return text;
}
} // namespace

std::string format_int(int64_t value) { return printf_format("%lld", (long long)value); }

std::string format_uint(uint64_t value) { return printf_format("%llu", (unsigned long long)value); }

std::string format_float(double value) { return printf_format("%f", value); }

void PrintLine::append(std::string_view item) {
  if (has_items_)
    text_ += ' ';
  text_ += item;
  has_items_ = true;
}

void PrintLine::emit() {
  text_ += '\n';
  // stdio's own lock, not a mutex of ours: glibc resets it in a child after fork(), so a child
  // forked while another thread prints can still print.
  flockfile(stdout);
  std::fwrite(text_.data(), 1, text_.size(), stdout);
  std::fflush(stdout);
  funlockfile(stdout);
  clear();
}

} // namespace simt::sim
