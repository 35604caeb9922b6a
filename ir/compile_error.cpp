#include "ir/compile_error.h"

#include <algorithm>

namespace simt {

namespace {

// "file:line:col: error: message", then the source line without its indentation and a caret
// under column `col` (1-based, in bytes of the original line).
std::string format_error(const std::string &file, int line, int col, const std::string &message,
                         const std::string &source_line) {
  std::string text = file;
  if (line > 0) {
    text += ':';
    text += std::to_string(line);
    if (col > 0) {
      text += ':';
      text += std::to_string(col);
    }
  }
  text += ": error: ";
  text += message;
  size_t begin = source_line.find_first_not_of(" \t\f");
  if (begin == std::string::npos)
    return text;
  size_t end = source_line.find_last_not_of(" \t\f\r\n") + 1;
  std::string shown = source_line.substr(begin, end - begin);
  text += "\n    ";
  text += shown;
  if (col <= 0)
    return text;
  size_t caret = static_cast<size_t>(col - 1) > begin ? static_cast<size_t>(col - 1) - begin : 0;
  caret = std::min(caret, shown.size());
  text += "\n    ";
  for (size_t i = 0; i < caret; ++i) {
    char c = shown[i];
    if (c == '\t')
      text += '\t';
    else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) // one space per UTF-8 character
      text += ' ';
  }
  text += '^';
  return text;
}

} // namespace

CompileError::CompileError(std::string file_, int line_, int col_, std::string message_,
                           std::string source_line_)
    : std::runtime_error(format_error(file_, line_, col_, message_, source_line_)),
      file(std::move(file_)), line(line_), col(col_), message(std::move(message_)),
      source_line(std::move(source_line_)) {}

} // namespace simt
