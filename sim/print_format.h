// print() as Numba does it on CUDA: items formatted with printf's "%lld", "%llu", "%f" and "%s",
// separated by single spaces, each line written to stdout in one piece.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace simt::sim {

std::string format_int(int64_t value);
std::string format_uint(uint64_t value);
std::string format_float(double value);

// The line of one print() call, built item by item.
class PrintLine {
public:
  // Appends `item`, after a separating space unless it is the first item.
  void append(std::string_view item);
  // The next item follows the previous one without the separating space (tuple punctuation).
  void glue() { has_items_ = false; }
  // Writes the line and a newline to stdout, never interleaved with another thread's line, and
  // starts a new line.
  void emit();
  // Drops the items of a print() its thread left unfinished (it faulted before print_end).
  void clear() {
    text_.clear();
    has_items_ = false;
  }
  const std::string &text() const { return text_; }

private:
  std::string text_;
  bool has_items_ = false;
};

} // namespace simt::sim
